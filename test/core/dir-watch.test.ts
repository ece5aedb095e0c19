/**
 * The directory watches a skill library keeps over every folder it walked: inotify on Linux (read when
 * asked, so a change made before the call is seen by it), `fs.watch` per folder elsewhere. Both must
 * report a relevant change once, ignore irrelevant names and removed folders, and notice a folder that
 * went away.
 */
import { mkdir, mkdtemp, readFile, rm, rmdir, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DirectoryWatches, openDirectoryWatches, type WatchKind } from "../../src/core/dir-watch.js";
import { sleep } from "../support/until.js";

let root: string;
let watches: DirectoryWatches | undefined;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "sg-dirwatch-"));
});
afterEach(async () => {
  watches?.close();
  watches = undefined;
  await rm(root, { recursive: true, force: true });
});

const relevant = (name: string | null) => name === null || !name.startsWith(".");

/** True once `takeChanges` reports a change (fs.watch delivers its events a moment later), else false. */
async function sawChange(set: DirectoryWatches, waitMs = 1_500): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (set.takeChanges()) return true;
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
}

async function folders(...names: string[]): Promise<string[]> {
  const dirs = names.map((name) => path.join(root, name));
  for (const dir of dirs) await mkdir(dir, { recursive: true });
  return dirs;
}

it.runIf(process.platform === "linux")("uses inotify on Linux", () => {
  watches = openDirectoryWatches(relevant);
  expect(watches.kind).toBe("inotify");
});

describe.each<WatchKind>(["inotify", "fs-watch"])("%s watches", (kind) => {
  it("reports a relevant change once, and not an ignored name", async () => {
    const [alpha, beta] = await folders("alpha", "beta");
    watches = openDirectoryWatches(relevant, kind);
    expect([watches.add(alpha as string), watches.add(beta as string)]).toEqual(["watched", "watched"]);
    expect(watches.takeChanges()).toBe(false);

    await writeFile(path.join(alpha as string, "SKILL.md"), "---\nname: alpha\n---\n");
    expect(await sawChange(watches)).toBe(true);
    await sleep(100);
    expect(watches.takeChanges()).toBe(false);

    await writeFile(path.join(beta as string, ".scratch"), "x");
    expect(await sawChange(watches, 400)).toBe(false);
  });

  it("stops reporting a folder once it is removed from the set, and keeps the others", async () => {
    const [alpha, beta] = await folders("alpha", "beta");
    watches = openDirectoryWatches(relevant, kind);
    watches.add(alpha as string);
    watches.add(beta as string);
    watches.remove(alpha as string);
    expect([...watches.dirs()]).toEqual([beta]);

    await writeFile(path.join(alpha as string, "SKILL.md"), "changed");
    expect(await sawChange(watches, 400)).toBe(false);
    await writeFile(path.join(beta as string, "SKILL.md"), "changed");
    expect(await sawChange(watches)).toBe(true);
  });

  it("notices a watched folder that went away", async () => {
    const [alpha] = await folders("alpha");
    watches = openDirectoryWatches(() => false, kind);
    watches.add(alpha as string);
    await rmdir(alpha as string);
    expect(await sawChange(watches)).toBe(true);
  });

  it("says a missing folder is gone instead of watching it", async () => {
    watches = openDirectoryWatches(relevant, kind);
    expect(watches.add(path.join(root, "missing"))).toBe("gone");
    expect([...watches.dirs()]).toEqual([]);
  });
});

describe.runIf(process.platform === "linux")("inotify", () => {
  it("sees a change made before the call, without waiting for the event loop", async () => {
    const [alpha] = await folders("alpha");
    watches = openDirectoryWatches(relevant, "inotify");
    watches.add(alpha as string);
    await writeFile(path.join(alpha as string, "SKILL.md"), "x");
    // No sleep: the kernel queued the event when the write happened.
    expect(watches.takeChanges()).toBe(true);
    expect(watches.takeChanges()).toBe(false);
  });

  it("keeps a folder reached by two paths watched until both are removed", async () => {
    const [alpha] = await folders("alpha");
    const link = path.join(root, "alias");
    await symlink(alpha as string, link);
    watches = openDirectoryWatches(relevant, "inotify");
    watches.add(alpha as string);
    watches.add(link);
    watches.remove(alpha as string);
    await writeFile(path.join(alpha as string, "SKILL.md"), "x");
    expect(watches.takeChanges()).toBe(true);
    watches.remove(link);
    await writeFile(path.join(alpha as string, "SKILL.md"), "y");
    expect(watches.takeChanges()).toBe(false);
  });

  it("hands each set the changes of its own folders, and keeps a shared folder watched for the other", async () => {
    const [alpha, beta] = await folders("alpha", "beta");
    const first = openDirectoryWatches(relevant, "inotify");
    const second = openDirectoryWatches(relevant, "inotify");
    try {
      first.add(alpha as string);
      second.add(alpha as string);
      second.add(beta as string);
      await writeFile(path.join(beta as string, "SKILL.md"), "x");
      expect(first.takeChanges()).toBe(false);
      expect(second.takeChanges()).toBe(true);
      // The first set read the queue: the second still gets its change afterwards.
      await writeFile(path.join(alpha as string, "SKILL.md"), "x");
      expect(first.takeChanges()).toBe(true);
      expect(second.takeChanges()).toBe(true);
      first.close();
      await writeFile(path.join(alpha as string, "SKILL.md"), "y");
      expect(second.takeChanges()).toBe(true);
      expect(first.takeChanges()).toBe(false);
    } finally {
      first.close();
      second.close();
    }
  });

  it("counts events the kernel dropped (a full queue) as a change", async () => {
    const [alpha] = await folders("alpha");
    // Nothing is relevant: only the overflow can make this report a change.
    watches = openDirectoryWatches(() => false, "inotify");
    watches.add(alpha as string);
    const queued = Number((await readFile("/proc/sys/fs/inotify/max_queued_events", "utf8")).trim());
    // Each new file queues a create and a modify event.
    for (let file = 0; file < queued / 2 + 64; file++)
      await writeFile(path.join(alpha as string, `f${file}`), "x");
    expect(watches.takeChanges()).toBe(true);
  });

  it("watches ten thousand folders on one descriptor", async () => {
    const dirs = await folders(...Array.from({ length: 10_000 }, (_, index) => `d${index}`));
    watches = openDirectoryWatches(relevant, "inotify");
    for (const dir of dirs) expect(watches.add(dir)).toBe("watched");
    await writeFile(path.join(dirs[9_999] as string, "SKILL.md"), "x");
    expect(watches.takeChanges()).toBe(true);
    watches.close();
    expect([...watches.dirs()]).toEqual([]);
    expect(watches.takeChanges()).toBe(false);
  });
});
