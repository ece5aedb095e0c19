import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UsageStore } from "../../src/skills/usage.js";
import { freshDirEachTest } from "../support/fresh-dir.js";

describe("usage records keep the provenance marker as found", () => {
  let skills: string;
  freshDirEachTest("sg-usage-marker-", (made) => {
    skills = made;
  });

  it("does not add created_by to a record that never had it when another record is bumped", async () => {
    await writeFile(
      path.join(skills, ".usage.json"),
      JSON.stringify({ legacy: { use_count: 3 }, manual: { created_by: null, use_count: 1 } }),
    );
    const store = new UsageStore(skills);
    await store.bump("manual", "use");
    const onDisk = JSON.parse(await readFile(path.join(skills, ".usage.json"), "utf8"));
    // The record that was not bumped keeps its bytes: nothing is added to it, not even backfilled keys.
    expect(onDisk.legacy).toEqual({ use_count: 3 });
    expect(onDisk.manual.created_by).toBeNull();
    expect(onDisk.manual.use_count).toBe(2);
  });

  it("readRecord sees every write, including ones by another store instance", async () => {
    const first = new UsageStore(skills);
    const second = new UsageStore(skills);
    expect(await first.readRecord("a")).toBeNull();
    for (let round = 1; round <= 5; round++) {
      await second.bump("a", "view");
      expect((await first.readRecord("a"))?.view_count).toBe(round);
    }
    const copy = await first.readRecord("a");
    if (copy) copy.view_count = 99;
    expect((await first.readRecord("a"))?.view_count).toBe(5);
  });
});
