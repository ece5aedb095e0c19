import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freshHomeEachTest, gatewayDoc, startGateway, writeConfig } from "../gateway/helpers.js";

describe("the dedupe store remembers admitted messages only", () => {
  let home: string;
  freshHomeEachTest((made) => {
    home = made;
  });

  it("does not spend its bounded space on strangers' events", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home, config });
    await mock.shouldReply("/curator status", ["mock:stranger"], {
      user: "stranger",
      eventId: "evt-stranger",
    });
    await mock.shouldReply("/whoami", ["mock:reader"], { user: "reader", eventId: "evt-reader" });
    // The same admitted event again is dropped.
    await mock.shouldNotReply("/whoami", { user: "reader", eventId: "evt-reader" });
    await gateway.stop();
    // The snapshot and its journal together hold what the store remembers.
    const read = (name: string) => readFile(path.join(home, "gateway", name), "utf8").catch(() => "");
    const stored = (await read("dedupe.json")) + (await read("dedupe.log"));
    expect(stored).toContain("evt-reader");
    expect(stored).not.toContain("evt-stranger");
  });
});
