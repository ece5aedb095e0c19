import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { homeEachTest, startDefaultGateway } from "../gateway/helpers.js";

describe("the dedupe store remembers admitted messages only", () => {
  const home = homeEachTest();

  it("does not spend its bounded space on strangers' events", async () => {
    const { gateway, mock } = await startDefaultGateway(home());
    await mock.shouldReply("/curator status", ["mock:stranger"], {
      user: "stranger",
      eventId: "evt-stranger",
    });
    await mock.shouldReply("/whoami", ["mock:reader"], { user: "reader", eventId: "evt-reader" });
    // The same admitted event again is dropped.
    await mock.shouldNotReply("/whoami", { user: "reader", eventId: "evt-reader" });
    await gateway.stop();
    // The snapshot and its journal together hold what the store remembers.
    const read = (name: string) => readFile(path.join(home(), "gateway", name), "utf8").catch(() => "");
    const stored = (await read("dedupe.json")) + (await read("dedupe.log"));
    expect(stored).toContain("evt-reader");
    expect(stored).not.toContain("evt-stranger");
  });
});
