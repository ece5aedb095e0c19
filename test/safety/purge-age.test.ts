import { mkdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { purgeCandidates } from "../../src/curator/purge.js";
import { freshDirEachTest } from "../support/fresh-dir.js";

const DAY = 86_400_000;

describe("purge ages archived copies by when they were archived", () => {
  let home: string;
  freshDirEachTest("sg-purge-age-", (made) => {
    home = made;
  });

  async function archived(rel: string, folderAgeDays: number): Promise<void> {
    const dir = path.join(home, "skills", ".archive", ...rel.split("/"));
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "SKILL.md"), "---\nname: foo\ndescription: d\n---\n");
    // A rename keeps the folder's time: it is the skill's last edit, not the archive moment.
    const old = new Date(Date.now() - folderAgeDays * DAY);
    await utimes(dir, old, old);
  }

  it("uses the timestamp suffix of a duplicate, not the folder time", async () => {
    const now = new Date("2026-11-29T20:00:44Z");
    await archived("tools/foo-20261129200044", 199);
    await archived("tools/foo-20260101000000", 1);
    const candidates = await purgeCandidates(home, 30, now);
    expect(candidates.map((c) => [c.archivedAs, c.agedBy])).toEqual([
      ["tools/foo-20260101000000", "archive_stamp"],
    ]);
    expect(Math.floor(candidates[0]?.ageDays ?? 0)).toBe(332);
  });
});
