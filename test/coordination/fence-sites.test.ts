/**
 * Every library write batch asks the write fence first: with the fence of a replica that no longer
 * leads, a usage bump, a config.yaml edit, a `.env` write, the curator's archive batch and a rollback are
 * each refused with `FencedError` and leave the files as they were; with a fence that lets writes
 * through, the same calls write. The fence here is the real `leadershipFence` over the disk record.
 * A writer paused inside its lock wait (the test holds the lock) while a newer leader takes over is
 * refused once it gets the lock: every write asks the fence again right before it commits.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeDotenv } from "../../src/config/dotenv-write.js";
import { editConfigFile } from "../../src/config/edit.js";
import { FencedError, setWriteFence } from "../../src/core/fence.js";
import { withLock } from "../../src/core/fsutil.js";
import { silentLogger } from "../../src/core/logger.js";
import { appendBuiltEntries, ledgerLockPath } from "../../src/curator/ledger.js";
import { rollbackToSnapshot } from "../../src/curator/rollback.js";
import { runCurator } from "../../src/curator/run.js";
import { leadershipFence, recordLeadership } from "../../src/gateway/coordination/leadership.js";
import { UsageStore } from "../../src/skills/usage.js";
import { libraryFor } from "../curator/harness.js";
import {
  configWith,
  makeHome,
  record,
  removeHome,
  skillsTreeHash,
  writeSkill,
  writeUsage,
} from "../curator/helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");
let home: string;

/** A lease view that leads under `epoch` while `valid` says so. */
function leaseAt(epoch: number, valid = true) {
  return { epoch, valid: () => valid };
}

beforeEach(async () => {
  home = await makeHome();
  await writeSkill(home, "notes/old-note");
  await writeSkill(home, "notes/fresh-note");
  await writeUsage(home, {
    "old-note": record(NOW, { idleDays: 200 }),
    "fresh-note": record(NOW, { idleDays: 1 }),
  });
  await fs.writeFile(path.join(home, "config.yaml"), "skills:\n  disabled: []\n");
  await fs.writeFile(path.join(home, ".env"), "ACME_KEY=old\n");
});
afterEach(async () => {
  setWriteFence(home, undefined);
  await removeHome(home);
});

describe("the write fence at each write site", () => {
  it("a stale leader (the disk names a newer epoch) writes nothing anywhere", async () => {
    await recordLeadership(home, 5, "b");
    setWriteFence(home, leadershipFence(home, leaseAt(4), silentLogger()));
    const before = await skillsTreeHash(home);
    const config = configWith({ curator: { enabled: true } });

    await expect(
      new UsageStore(path.join(home, "skills")).bump("fresh-note", "view", NOW),
    ).rejects.toBeInstanceOf(FencedError);
    await expect(
      editConfigFile(home, { kind: "add-to-list", path: ["skills", "disabled"], value: "x" }),
    ).rejects.toBeInstanceOf(FencedError);
    await expect(writeDotenv(home, new Map([["ACME_KEY", "new"]]))).rejects.toBeInstanceOf(FencedError);
    await expect(
      runCurator({ home, config, library: libraryFor(home, config), trigger: "manual", now: NOW }),
    ).rejects.toBeInstanceOf(FencedError);
    await expect(rollbackToSnapshot({ home, config })).rejects.toBeInstanceOf(FencedError);

    expect(await fs.readFile(path.join(home, "config.yaml"), "utf8")).toBe("skills:\n  disabled: []\n");
    expect(await fs.readFile(path.join(home, ".env"), "utf8")).toBe("ACME_KEY=old\n");
    await expect(fs.stat(path.join(home, "skills", "notes", "old-note", "SKILL.md"))).resolves.toBeTruthy();
    expect(await skillsTreeHash(home)).toBe(before);
  });

  it("a leader whose lease lapsed on its own clock is refused even though the disk still names it", async () => {
    await recordLeadership(home, 7, "a");
    setWriteFence(home, leadershipFence(home, leaseAt(7, false), silentLogger()));
    await expect(writeDotenv(home, new Map([["ACME_KEY", "new"]]))).rejects.toThrow(
      /does not lead the home now/,
    );
    expect(await fs.readFile(path.join(home, ".env"), "utf8")).toBe("ACME_KEY=old\n");
  });

  it("the current leader writes at every site", async () => {
    await recordLeadership(home, 3, "a");
    setWriteFence(home, leadershipFence(home, leaseAt(3), silentLogger()));
    const config = configWith({ curator: { enabled: true } });

    await new UsageStore(path.join(home, "skills")).bump("fresh-note", "view", NOW);
    await editConfigFile(home, { kind: "add-to-list", path: ["skills", "disabled"], value: "x" });
    await writeDotenv(home, new Map([["ACME_KEY", "new"]]));
    const result = await runCurator({
      home,
      config,
      library: libraryFor(home, config),
      trigger: "manual",
      now: NOW,
    });

    expect(result.archived).toContain("old-note");
    expect(await fs.readFile(path.join(home, "config.yaml"), "utf8")).toBe("skills:\n  disabled: [x]\n");
    expect(await fs.readFile(path.join(home, ".env"), "utf8")).toBe("ACME_KEY=new\n");
    await rollbackToSnapshot({ home, config });
    await expect(fs.stat(path.join(home, "skills", "notes", "old-note", "SKILL.md"))).resolves.toBeTruthy();
  });
});

describe("a writer paused inside its lock wait", () => {
  /**
   * Holds `lockFile` while `write` starts (it passes the fence and waits for the lock), lets a newer
   * leader record itself meanwhile, then releases: the write must be refused.
   */
  let epoch = 2;
  async function pausedInLockWait(lockFile: string, write: () => Promise<unknown>): Promise<unknown> {
    epoch += 2;
    await recordLeadership(home, epoch, "a");
    setWriteFence(home, leadershipFence(home, leaseAt(epoch), silentLogger()));
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const holder = withLock(lockFile, async () => {
      held();
      await released;
    });
    await holding;
    const outcome = write().then(
      () => "written",
      (error: unknown) => error,
    );
    // The writer is waiting for the lock now; a new leader takes over the home meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await recordLeadership(home, epoch + 1, "b");
    release();
    await holder;
    return outcome;
  }

  it("a usage bump is refused and .usage.json left as the new leader had it", async () => {
    const file = path.join(home, "skills", ".usage.json");
    const before = await fs.readFile(file, "utf8");
    const outcome = await pausedInLockWait(path.join(home, "skills", ".usage.json.lock"), () =>
      new UsageStore(path.join(home, "skills")).bump("fresh-note", "use", NOW),
    );
    expect(outcome).toBeInstanceOf(FencedError);
    expect((outcome as Error).message).toMatch(/a usage bump was refused: .*epoch 5/);
    expect(await fs.readFile(file, "utf8")).toBe(before);
  });

  it("a config.yaml edit, a .env write and a ledger entry are refused the same way", async () => {
    const edit = await pausedInLockWait(path.join(home, "skills", ".locks", "config.lock"), () =>
      editConfigFile(home, { kind: "add-to-list", path: ["skills", "disabled"], value: "x" }),
    );
    expect(edit).toBeInstanceOf(FencedError);
    expect(await fs.readFile(path.join(home, "config.yaml"), "utf8")).toBe("skills:\n  disabled: []\n");

    const dotenv = await pausedInLockWait(path.join(home, ".env.lock"), () =>
      writeDotenv(home, new Map([["ACME_KEY", "new"]])),
    );
    expect(dotenv).toBeInstanceOf(FencedError);
    expect(await fs.readFile(path.join(home, ".env"), "utf8")).toBe("ACME_KEY=old\n");

    const config = configWith({});
    const ledger = await pausedInLockWait(ledgerLockPath(home), () =>
      appendBuiltEntries(home, config, [JSON.stringify({ note: "stale" })]),
    );
    expect(ledger).toBeInstanceOf(FencedError);
  });
});
