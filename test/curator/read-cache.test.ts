import { rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cachedByFile, RACY_MS, readTextCached, takeSettled } from "../../src/core/read-cache.js";
import { freshDirEachTest } from "../support/fresh-dir.js";

let dir: string;
freshDirEachTest("skillgate-read-cache-", (made) => {
  dir = made;
});

describe("curator read cache", () => {
  it("sees creation, in-place rewrites of the same size and deletion on the next read", async () => {
    const file = path.join(dir, ".curator_state");
    expect(await readTextCached(file)).toBeUndefined();
    await writeFile(file, '{"paused": false}');
    expect(await readTextCached(file)).toBe('{"paused": false}');
    await writeFile(file, '{"paused": true }');
    expect(await readTextCached(file)).toBe('{"paused": true }');
    await unlink(file);
    expect(await readTextCached(file)).toBeUndefined();
  });

  it("reuses a derived value while the file is unchanged and recomputes after a change", async () => {
    const file = path.join(dir, ".usage.json");
    await writeFile(file, "{}");
    let computed = 0;
    const derive = () => cachedByFile(file, "count", async () => ++computed);
    expect(await derive()).toBe(1);
    expect(await derive()).toBe(1);
    await writeFile(file, '{"a": {}}');
    expect(await derive()).toBe(2);
  });

  describe("takeSettled (a writer holding the file's lock takes the shared value)", () => {
    const settle = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));

    it("hands over a settled, unchanged value once; the next read computes it again", async () => {
      const file = path.join(dir, ".usage.json");
      await writeFile(file, '{"a": 1}');
      await settle();
      const shared = await cachedByFile(file, "doc", async () => ({ a: 1 }));
      expect(takeSettled(file, "doc")).toBe(shared);
      expect(takeSettled(file, "doc")).toBeUndefined();
      const again = await cachedByFile(file, "doc", async () => ({ a: 1 }));
      expect(again).not.toBe(shared);
    });

    it("refuses a value read within RACY_MS of the file's last change (the same clock tick may follow)", async () => {
      const file = path.join(dir, ".usage.json");
      await writeFile(file, '{"a": 1}');
      await cachedByFile(file, "doc", async () => ({ a: 1 }));
      expect(takeSettled(file, "doc")).toBeUndefined();
      // And a refused value is dropped: the next read parses the file.
      let computed = 0;
      await cachedByFile(file, "doc", async () => ++computed);
      expect(computed).toBe(1);
    });

    it("refuses a settled value once the file changed, in place or replaced, even to the same size", async () => {
      const file = path.join(dir, ".usage.json");
      for (const change of [
        () => writeFile(file, '{"a": 2}'),
        async () => {
          await writeFile(`${file}.tmp`, '{"a": 3}');
          await rename(`${file}.tmp`, file);
        },
      ]) {
        await writeFile(file, '{"a": 1}');
        await settle();
        await cachedByFile(file, "doc", async () => ({ a: 1 }));
        await change();
        expect(takeSettled(file, "doc")).toBeUndefined();
      }
    });

    it("never hands over the value of a missing file", async () => {
      const file = path.join(dir, "absent.json");
      await cachedByFile(file, "doc", async () => ({}));
      expect(takeSettled(file, "doc")).toBeUndefined();
    });
  });
});
