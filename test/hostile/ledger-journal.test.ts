/**
 * Findings 6 and 10. A half-written last ledger line (a crash mid-append) never swallows the next entry:
 * the tail is ended before appending, broken lines are skipped with a warning and counted, and an entry
 * glued onto a broken line by an older writer is still found. A temp file left by a dead writer (the
 * rollback journal's `..rollback-journal.json.<pid>.<host tag + hex>.tmp` has two dots) is cleaned at the
 * next start; one whose writer may live (this host's live pid, or another host's, until it is old) stays.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { terminalContext } from "../../commands/context.js";
import { registry } from "../../commands/index.js";
import type { CommandSpec } from "../../commands/types.js";
import { main } from "../../src/cli/main.js";
import { english } from "../../src/core/i18n/messages.js";
import { replyToPlainText } from "../../src/core/reply.js";
import { atomicTempWriter, HOST_TAG } from "../../src/core/temp-files.js";
import { appendEntry, listEntries, readLedger, withLedger } from "../../src/curator/ledger.js";
import { recoverHome } from "../../src/curator/recovery.js";
import { rollbackEntry } from "../../src/curator/rollback-entry.js";
import { openLibrary } from "../../src/skills/library.js";
import { configWith, makeHome, removeHome, writeSkill } from "../safety/helpers.js";

let home: string;
let ledger: string;
const config = configWith();
beforeEach(async () => {
  home = await makeHome();
  ledger = path.join(home, "skills", ".curator_ledger.jsonl");
});
afterEach(async () => {
  await removeHome(home);
});

async function patchOnce(skill: string, text: string): Promise<void> {
  const file = path.join(home, "skills", skill, "SKILL.md");
  await withLedger({ home, config, actor: "user", action: "patch", skill, paths: [file] }, async () => {
    await fs.appendFile(file, text);
  });
}

/** Records that the user pinned skill `a`: one plain, valid ledger line. */
async function pinEntry(): Promise<void> {
  await appendEntry(home, config, {
    actor: "user",
    action: "pin",
    skill: "a",
    evidence: {},
    before: [],
    after: [],
  });
}

describe("finding 6: ledger appends survive a crash mid-append", () => {
  it("the entry after a half-written line is listed and can be rolled back", async () => {
    await writeSkill(home, "pdf");
    await patchOnce("pdf", "first\n");
    // The crash: half of a line, no newline.
    await fs.appendFile(ledger, '{"id":"deadbeef0000","ts":"2026-');
    await patchOnce("pdf", "second\n");
    const { entries, skipped } = await readLedger(home);
    expect(entries.map((entry) => entry.action)).toEqual(["patch", "patch"]);
    expect(skipped).toBe(1);
    const newest = (await listEntries(home))[0];
    const before = await fs.readFile(path.join(home, "skills", "pdf", "SKILL.md"), "utf8");
    expect(before).toMatch(/second\n$/);
    await rollbackEntry({ home, config, entryId: newest?.id ?? "" });
    const after = await fs.readFile(path.join(home, "skills", "pdf", "SKILL.md"), "utf8");
    expect(after).toMatch(/first\n$/);
    // Nothing valid was lost: every line but the broken one parses.
    const lines = (await fs.readFile(ledger, "utf8")).split("\n").filter(Boolean);
    expect(lines.filter((line) => !line.startsWith('{"id":"deadbeef0000"')).length).toBe(
      (await readLedger(home)).entries.length,
    );
  });

  it("`curator ledger` says how many lines it skipped, in text and on stderr with --json", async () => {
    await pinEntry();
    await fs.appendFile(ledger, "{not json\n");
    const spec = registry.find((candidate) => candidate.path.join(" ") === "curator ledger") as CommandSpec;
    const library = openLibrary(home, config, { watch: false, persistIndex: false });
    const text = replyToPlainText(
      await spec.run(terminalContext({ home, config, library }), { args: [], options: {} }),
    );
    expect(text).toMatch(/1 line of skills\/\.curator_ledger\.jsonl is not valid .* skipped/);
    let stderr = "";
    const sink = (write: (chunk: string) => void) =>
      ({ write, isTTY: false }) as unknown as NodeJS.WriteStream;
    const code = await main(["--home", home, "curator", "ledger", "--json"], {
      stdin: process.stdin,
      stdout: sink(() => undefined),
      stderr: sink((chunk) => {
        stderr += chunk;
      }),
      env: {},
    });
    expect(code).toBe(0);
    expect(stderr).toMatch(/warning: 1 line .* skipped/);
  });

  it("an entry an older writer glued onto a broken line is still found", async () => {
    await pinEntry();
    const glued = JSON.stringify({
      id: "abcdef123456",
      ts: "2026-01-01T00:00:00.000000+00:00",
      actor: "user",
      action: "unpin",
      skill: "a",
      evidence: {},
      before: [],
      after: [],
    });
    await fs.appendFile(ledger, `{"id":"broken","ts${glued}\n`);
    const { entries, skipped } = await readLedger(home);
    expect(entries.map((entry) => entry.id)).toContain("abcdef123456");
    expect(skipped).toBe(1);
  });
});

describe("finding 10: the rollback journal's temp file is cleaned", () => {
  it("a temp file from a dead writer is removed at the next start; one whose writer may live stays", async () => {
    const skills = path.join(home, "skills");
    const dead = `..rollback-journal.json.999999999.${HOST_TAG}beef.tmp`;
    const live = `..rollback-journal.json.${process.ppid}.${HOST_TAG}beef.tmp`;
    const foreignHost = HOST_TAG === "0bad" ? "0bae" : "0bad";
    const foreignYoung = `..rollback-journal.json.999999999.${foreignHost}f00d.tmp`;
    const foreignOld = `..rollback-journal.json.999999998.${foreignHost}f00d.tmp`;
    expect(atomicTempWriter(dead)).toEqual({ pid: 999999999, host: HOST_TAG });
    expect(atomicTempWriter(".rollback-journal.json.12.abcd0123.tmp")).toEqual({ pid: 12, host: "abcd" });
    expect(atomicTempWriter("..rollback-journal.json")).toBeUndefined();
    for (const name of [dead, live, foreignYoung, foreignOld])
      await fs.writeFile(path.join(skills, name), "{");
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await fs.utimes(path.join(skills, foreignOld), twoHoursAgo, twoHoursAgo);
    const notes = await recoverHome(home, config);
    const names = await fs.readdir(skills);
    expect(names).not.toContain(dead);
    expect(names).not.toContain(foreignOld);
    expect(names).toContain(live);
    expect(names).toContain(foreignYoung);
    expect(
      notes.map(english).filter((note) => note.includes("left by a write that was interrupted")),
    ).toHaveLength(2);
  });

  it("the CLI's start-up check notices a lone temp file", async () => {
    const dead = path.join(home, "skills", `..rollback-journal.json.999999999.${HOST_TAG}f00d.tmp`);
    await fs.writeFile(dead, "{");
    const sink = { write: () => true, isTTY: false } as unknown as NodeJS.WriteStream;
    await main(["--home", home, "curator", "status"], {
      stdin: process.stdin,
      stdout: sink,
      stderr: sink,
      env: {},
    });
    await expect(fs.access(dead)).rejects.toThrow();
  });
});
