import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  acquireLock,
  atomicWriteFile,
  isoTimestamp,
  LockBusyError,
  stableJson,
  withLock,
} from "../../src/core/fsutil.js";

describe("file helpers", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "sg-fs-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes atomically and leaves no temp files behind", async () => {
    const file = path.join(dir, "a", "b.json");
    await atomicWriteFile(file, "one");
    await atomicWriteFile(file, "two");
    expect(await readFile(file, "utf8")).toBe("two");
    expect(await readdir(path.dirname(file))).toEqual(["b.json"]);
  });

  it("sorts keys at every level like Hermes' json.dump(sort_keys=True, indent=2)", () => {
    expect(stableJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
      '{\n  "a": {\n    "c": null,\n    "d": [\n      {\n        "y": 2,\n        "z": 1\n      }\n    ]\n  },\n  "b": 1\n}',
    );
  });

  it("formats timestamps with microseconds and +00:00", () => {
    expect(isoTimestamp(new Date("2026-05-01T13:05:42.123Z"))).toBe("2026-05-01T13:05:42.123000+00:00");
  });

  it("refuses a lock held by a live process and takes over a dead holder's lock", async () => {
    const file = path.join(dir, "lock");
    const held = await acquireLock(file);
    await expect(acquireLock(file, { waitMs: 0 })).rejects.toBeInstanceOf(LockBusyError);
    await held.release();
    // A lock left by a process that no longer exists is taken over at once.
    await writeFile(file, "999999999 deadbeef\n");
    const taken = await acquireLock(file, { waitMs: 0 });
    expect((await readFile(file, "utf8")).startsWith(`${process.pid} `)).toBe(true);
    await taken.release();
  });

  it("takes over a lock left by an earlier process that had our pid, but never one we hold", async () => {
    const file = path.join(dir, "lock");
    // A restarted container often gets the same pid: the old holder's token is unknown to us.
    await writeFile(file, `${process.pid} feedfacefeedface\n`);
    const taken = await acquireLock(file, { waitMs: 0, staleMs: Number.MAX_SAFE_INTEGER });
    await expect(acquireLock(file, { waitMs: 0, staleMs: Number.MAX_SAFE_INTEGER })).rejects.toBeInstanceOf(
      LockBusyError,
    );
    await taken.release();
  });

  it("keeps a held lock fresh with keepAliveMs", async () => {
    const file = path.join(dir, "lock");
    const held = await acquireLock(file, { keepAliveMs: 20 });
    const old = new Date(Date.now() - 2 * 3_600_000);
    await utimes(file, old, old);
    await new Promise((resolve) => setTimeout(resolve, 120));
    // Refreshed by the holder, so an hour-stale check no longer applies.
    await expect(acquireLock(file, { waitMs: 0, staleMs: 3_600_000 })).rejects.toBeInstanceOf(LockBusyError);
    await held.release();
  });

  it("takes over a lock older than staleMs even when the pid looks alive", async () => {
    const file = path.join(dir, "lock");
    await writeFile(file, `${process.ppid} cafe\n`);
    const old = new Date(Date.now() - 2 * 3_600_000);
    await utimes(file, old, old);
    const taken = await acquireLock(file, { waitMs: 0, staleMs: 3_600_000 });
    await taken.release();
    await expect(readFile(file)).rejects.toThrow();
  });

  it("serialises concurrent critical sections", async () => {
    const file = path.join(dir, "lock");
    let inside = 0;
    let maxInside = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        withLock(file, async () => {
          inside += 1;
          maxInside = Math.max(maxInside, inside);
          await new Promise((resolve) => setTimeout(resolve, 2));
          inside -= 1;
        }),
      ),
    );
    expect(maxInside).toBe(1);
  });
});
