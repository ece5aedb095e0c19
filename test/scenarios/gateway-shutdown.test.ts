import { describe, expect, it } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { registry } from "../../commands/index.js";
import type { CommandSpec } from "../../commands/types.js";
import { textReply } from "../../src/core/reply.js";
import { gatewayDoc, homeEachTest, startGateway, writeConfig } from "../gateway/helpers.js";

describe("shutdown", () => {
  const home = homeEachTest();

  it("answers a message that arrives while an in-flight command drains (it was already acknowledged)", async () => {
    const config = await writeConfig(home(), { gateway: gatewayDoc() });
    let release: () => void = () => undefined;
    const slow: CommandSpec = {
      path: ["slow"],
      summary: "slow",
      mutating: false,
      run: async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return textReply("slow done");
      },
    };
    const mock = createMockAdapter();
    const { gateway } = await startGateway({
      home: home(),
      config,
      adapters: [mock],
      registry: [...registry, slow],
    });
    await mock.inject("/slow", { user: "reader" });
    const stopping = gateway.stop();
    // Delivered by the still-connected adapter during the drain, from another chat.
    await mock.inject("/whoami", { user: "admin" });
    release();
    await stopping;
    const texts = mock.sent.map((sent) => sent.text);
    expect(texts).toContain("slow done");
    expect(texts.some((text) => text.includes("mock:admin"))).toBe(true);
  });
});
