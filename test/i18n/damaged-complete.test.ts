/**
 * The replies of a DAMAGED home in both locales: skill folders the library skips (a SKILL.md that is
 * not UTF-8, one over the size limit, one linked out of its skill), a file linked out of a skill, an
 * unreadable bundled manifest, a hub lock and a cron file that are not JSON, skills the curator may not
 * move (pinned, external, reached through a category link out of the library), an archive the automatic
 * pass and `prune` fail on, a hub skill that may not be restored, a truncated snapshot, ledger entries
 * pointing outside the home or at a missing blob, corrupt usage and state files, and a backup folder
 * that cannot be written. Every warning, refusal and failure is resolved in zh-CN and found free of
 * English sentences (the allow-list of `complete-support.ts`), and in English free of raw keys. Each
 * case also names a fragment its English must show, so a damage that stops happening fails the test
 * instead of passing it silently.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { create as createTar } from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registry } from "../../commands/index.js";
import { parseAndRun } from "../../commands/runner.js";
import type { Reply } from "../../src/core/reply.js";
import { tempHome } from "../telegram/helpers.js";
import { chatOn, itIsCompleteInBothLocales, shown } from "./complete-support.js";
import { DAMAGED_SKILLS, writeDamagedHome } from "./damaged-home.js";

const NOW = new Date();

interface Case {
  label: string;
  reply: Reply;
  /** English the damage must produce (proves the scenario happened). */
  expectEnglish: RegExp;
}

const cases: Case[] = [];
const data: string[] = [];
let home = "";
let outside = "";
let cleanup: () => Promise<void> = async () => {};

/** Runs `words` (the longest registry path they start with) as the admin and records the reply. */
async function run(words: string[], expectEnglish: RegExp): Promise<Reply> {
  const spec = [...registry]
    .sort((a, b) => b.path.length - a.path.length)
    .find((candidate) => candidate.path.every((word, index) => words[index] === word));
  if (!spec) throw new Error(`no command for ${words.join(" ")}`);
  const reply = await parseAndRun(spec, chatOn(home, true, NOW), words.slice(spec.path.length));
  cases.push({ label: words.join(" "), reply, expectEnglish });
  return reply;
}

/** Appends a ledger entry `id` whose `before` is `files` (a crafted, damaged entry). */
async function appendLedgerEntry(id: string, files: object[]): Promise<void> {
  const entry = {
    id,
    ts: NOW.toISOString(),
    actor: "user",
    action: "archive",
    skill: "pdf-tools",
    evidence: {},
    before: files,
    after: [],
    roots: [],
  };
  await writeFile(path.join(home, "skills", ".curator_ledger.jsonl"), `${JSON.stringify(entry)}\n`, {
    flag: "a",
  });
}

beforeAll(async () => {
  ({ home, cleanup } = await tempHome());
  outside = await mkdtemp(path.join(path.dirname(home), "skillgate-outside-"));
  await writeDamagedHome(home, outside, NOW);
  await run(["skills", "list"], /not valid UTF-8.*over the 1 MiB limit.*leads outside the skill's folder/s);
  await run(["skills", "view", "linky", "notes.md"], /outside the skill directory/);
  await run(["skills", "usage"], /lock\.json is not valid JSON/);
  await run(["curator", "status"], /cannot read \.bundled_manifest: EISDIR.*lock\.json is not valid JSON/s);
  await run(["curator", "archive", "pinned-one", "-y"], /is pinned — unpin first/);
  await run(["curator", "archive", "ext-one", "-y"], /external skills are read-only to the curator/);
  await run(["curator", "archive", "outsider", "-y"], /symlink that leads outside the library \(linked\)/);
  await run(["curator", "prune", "--dry-run"], /cron-referenced skills are not protected/);
  await run(["curator", "run", "--dry-run"], /hub-installed skills cannot be recognised/);
  await run(["curator", "run"], /could not archive 'outsider': skill 'outsider' sits in a folder/);
  await run(["curator", "prune", "--days", "1", "-y"], /outsider: skill 'outsider' sits in a folder/);
  // A snapshot whose archive is cut short.
  await run(["curator", "backup"], /snapshot created/);
  const backups = path.join(home, "skills", ".curator_backups");
  const ids = (await readdir(backups)).filter((name) => /^\d{4}-/.test(name)).sort();
  const newest = ids.at(-1) as string;
  await truncate(path.join(backups, newest, "skills.tar.gz"), 100);
  await run(["curator", "rollback", "--id", newest, "-y"], /is unreadable \(unexpected end of file\)/);
  // A snapshot whose archive holds a link leaving the tree.
  await run(["curator", "backup", "--reason", "evil"], /snapshot created/);
  const evil = (await readdir(backups)).filter(
    (name) => /^\d{4}-/.test(name) && !ids.includes(name),
  )[0] as string;
  const evilDir = path.join(outside, "evil");
  await mkdir(evilDir, { recursive: true });
  await symlink("/etc", path.join(evilDir, "escape"));
  await createTar({ gzip: true, file: path.join(backups, evil, "skills.tar.gz"), cwd: evilDir }, ["escape"]);
  await run(
    ["curator", "rollback", "--id", evil, "-y"],
    /refusing unsafe snapshot archive: 'escape' is a symlink leaving the tree/,
  );
  // Ledger entries that point outside the home, or at a blob that is not there.
  await appendLedgerEntry("0badc0ffee01", [
    { path: path.join(outside, "secret.md"), sha256: "0".repeat(64) },
  ]);
  await run(["curator", "rollback", "0badc0ffee01", "-y"], /entry references a path outside/);
  await appendLedgerEntry("0badc0ffee02", [
    { path: path.join(home, "skills", "tools", "pdf-tools", "SKILL.md"), sha256: "1".repeat(64) },
  ]);
  await run(["curator", "rollback", "0badc0ffee02", "-y"], /missing blob 1{64}/);
  // The hub now owns a name the run archived: restoring it is refused.
  await writeFile(
    path.join(home, "skills", ".hub", "lock.json"),
    JSON.stringify({ installed: { "old-stale": {} } }),
  );
  await run(["curator", "restore", "old-stale", "-y"], /is now hub-installed/);
  // The stored summary of the last run is data (shown as written in every locale).
  const state = JSON.parse(await readFile(path.join(home, "skills", ".curator_state"), "utf8")) as {
    last_run_summary: string;
  };
  data.push(...state.last_run_summary.split("\n").map((line) => line.trim()));
  // Corrupt usage and state files are moved aside; a backup folder that is a file cannot take snapshots.
  await writeFile(path.join(home, "skills", ".usage.json"), "{corrupt");
  await writeFile(path.join(home, "skills", ".curator_state"), "{corrupt");
  await run(["curator", "status"], /\.curator_state was not valid JSON.*\.usage\.json was not valid JSON/s);
  await rm(backups, { recursive: true, force: true });
  await writeFile(backups, "not a folder\n");
  await run(["curator", "backup"], /backup failed|snapshot failed|ENOTDIR|EEXIST/);
}, 120_000);

afterAll(async () => {
  await cleanup();
  await rm(outside, { recursive: true, force: true });
});

/** Data shown as it is in every locale: the home, paths, names, descriptions, stored summaries. */
function dataStrings(): string[] {
  return [
    ...data,
    home,
    outside,
    // The symlink member of the crafted snapshot archive.
    "escape",
    ...DAMAGED_SKILLS.flatMap((name) => [`${name} skill for tests`, name]),
    "tools",
    "notes",
    "linked",
    "Do the thing.",
    // Node's type names of tar members and the snapshot's own reasons are ids.
    "pre-curator-run",
  ].filter((item) => item !== "");
}

describe("a damaged home's warnings, refusals and failures in both locales", () => {
  it("the damage happened: each case shows the English it is about", () => {
    for (const item of cases) expect(shown(item.reply, "en"), item.label).toMatch(item.expectEnglish);
    expect(cases.length).toBeGreaterThanOrEqual(18);
  });

  itIsCompleteInBothLocales(cases, dataStrings, 800);
});
