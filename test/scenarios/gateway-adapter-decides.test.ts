import { describe, expect, it } from "vitest";
import { english } from "../../src/core/i18n/messages.js";
import { readState } from "../../src/curator/state.js";
import { NO_AGENT_REPLY } from "../../src/gateway/gateway.js";
import { homeEachTest, startDefaultGateway } from "../gateway/helpers.js";

describe("the adapter decides what is a command", () => {
  const home = homeEachTest();

  it("never runs text the platform delivered as not-a-command (e.g. `/curator@otherbot pause`)", async () => {
    const { gateway, mock } = await startDefaultGateway(home());
    const reply = await mock.shouldReply("/curator@otherbot pause", [english(NO_AGENT_REPLY).slice(0, 30)], {
      user: "admin",
      asText: true,
    });
    expect(reply).not.toMatch(/paused/i);
    expect((await readState(home())).state.paused).toBe(false);
    // The same words as a command for this bot do run.
    await mock.shouldReply("/curator pause", [/paus/i], { user: "admin" });
    expect((await readState(home())).state.paused).toBe(true);
    await gateway.stop();
  });
});
