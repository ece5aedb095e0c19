/**
 * The contract suite checks something: it fails on adapters built to break it, and passes the real
 * adapter under the same conditions.
 */
import { afterEach, describe, expect, it } from "vitest";
import { eagerTelegram, lateDiscord } from "./broken.js";
import { type Booted, bootContract } from "./drivers.js";
import { CONTRACT_CASES, contractConfig, contractHome, removeContractHome } from "./suite.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function contractCase(name: string) {
  const found = CONTRACT_CASES.find((candidate) => candidate.name.startsWith(name));
  if (!found) throw new Error(`no contract case "${name}"`);
  return found;
}

async function home(): Promise<string> {
  const dir = await contractHome();
  cleanups.push(() => removeContractHome(dir));
  return dir;
}

function track<T extends Booted<"telegram" | "discord">>(booted: T): T {
  cleanups.push(() => booted.stop());
  return booted;
}

describe("the adapter contract catches broken adapters", () => {
  it("fails an adapter that answers group text not addressed to the bot", async () => {
    const dir = await home();
    const booted = track(
      await bootContract("telegram", dir, contractConfig("telegram"), {
        wrap: (adapter, emulator) => eagerTelegram(adapter, emulator),
      }),
    );
    const silent = contractCase("stays silent on group text");
    await expect(silent.run({ run: booted.run, home: dir, platform: "telegram" })).rejects.toThrow(
      /the bot answered unaddressed group messages/,
    );
  });

  it("fails an adapter that misses Discord's interaction deadline, and passes the real one", async () => {
    const dm = contractCase("answers a command in a direct chat");
    // Discord's 3-second window, scaled down so the test is quick; the late adapter answers after 600 ms.
    const lateHome = await home();
    const late = track(
      await bootContract("discord", lateHome, contractConfig("discord"), {
        wrap: (adapter, emulator) => lateDiscord(adapter, emulator, 600),
        emulator: { interactionDeadlineMs: 300 },
      }),
    );
    await expect(dm.run({ run: late.run, home: lateHome, platform: "discord" })).rejects.toThrow(
      /DM command was answered/,
    );
    expect([...late.emulator.interactions.values()].some((interaction) => interaction.late > 0)).toBe(true);

    const realHome = await home();
    const real = track(
      await bootContract("discord", realHome, contractConfig("discord"), {
        emulator: { interactionDeadlineMs: 300 },
      }),
    );
    await dm.run({ run: real.run, home: realHome, platform: "discord" });
  });
});
