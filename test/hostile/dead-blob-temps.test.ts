/**
 * A 0-byte `.tmp-<pid>` blob left by a prune or rollback killed mid-write is removed by the next start's
 * recovery (which otherwise lists the blob store only after a curator run or an interrupted move); a tmp
 * blob whose writer still runs stays.
 */
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import { describe, expect, it } from "vitest";
import { homePaths } from "../../src/config/home.js";
import { english } from "../../src/core/i18n/messages.js";
import { HOST_TAG } from "../../src/core/temp-files.js";
import { mayNeedRecovery, recoverHome } from "../../src/curator/recovery.js";
import { configWith, freshHomeEachTest, writeFiles } from "../safety/helpers.js";

let home: string;
freshHomeEachTest((made) => {
  home = made;
});

/** The pid of a process that ran and exited (reaped): no process holds it now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

describe("tmp blobs of killed writes at the next start", () => {
  it("a dead writer's 0-byte tmp blob is found and removed; a live writer's stays", async () => {
    const blobs = homePaths(home).blobs;
    const dead = `.tmp-${deadPid()}.${HOST_TAG}0a1b-${"c".repeat(64)}`;
    const live = `.tmp-${process.ppid}.${HOST_TAG}0a1b-${"d".repeat(64)}`;
    await writeFiles(blobs, { [dead]: "", [live]: "" });
    expect(mayNeedRecovery(home)).toBe(true);
    const notes = await recoverHome(home, configWith(), { atStart: true });
    expect((await fs.readdir(blobs)).sort()).toEqual([live]);
    expect(notes.map(english)).toContain(
      "recovery: removed 1 unfinished ledger blob file(s) of interrupted captures.",
    );
    expect(mayNeedRecovery(home)).toBe(false);
  });

  it("another host's tmp blob is no reason to recover", async () => {
    const other = HOST_TAG === "ffff" ? "eeee" : "ffff";
    await writeFiles(homePaths(home).blobs, { [`.tmp-${deadPid()}.${other}0a1b-${"e".repeat(64)}`]: "" });
    expect(mayNeedRecovery(home)).toBe(false);
  });
});
