import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cachedByFile, readTextCached } from "../../src/core/read-cache.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "skillgate-read-cache-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
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
});
