/** The safety-net commands through the shared runner: texts, confirmations, exit codes, JSON. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chatPrefix, terminalContext } from "../../commands/context.js";
import { safetyCommands } from "../../commands/curator-safety.js";
import { parseAndRun } from "../../commands/runner.js";
import type { CommandContext, CommandSpec } from "../../commands/types.js";
import type { SkillgateConfig } from "../../src/config/config.js";
import { english } from "../../src/core/i18n/messages.js";
import { replyToPlainText } from "../../src/core/reply.js";
import { listEntries, withLedger } from "../../src/curator/ledger.js";
import { listSnapshots } from "../../src/curator/snapshot.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { configWith, exists, freshHomeEachTest, writeFiles, writeSkill } from "./helpers.js";

let home: string;
freshHomeEachTest((made) => {
  home = made;
});

const library = { invalidate: () => undefined } as unknown as SkillLibrary;

function spec(sub: string): CommandSpec {
  const found = safetyCommands.find((s) => s.path[1] === sub);
  if (!found) throw new Error(`no command ${sub}`);
  return found;
}

function ctx(config: SkillgateConfig = configWith(), extra: Partial<CommandContext> = {}): CommandContext {
  return {
    ...terminalContext({ home, config, library, now: () => new Date("2026-03-01T12:00:00Z") }),
    ...extra,
  };
}

async function run(sub: string, words: string[], context = ctx()) {
  const reply = await parseAndRun(spec(sub), context, words);
  return { reply, text: replyToPlainText(reply) };
}

describe("curator backup", () => {
  it("creates a snapshot with the given reason", async () => {
    await writeSkill(home, "alpha");
    const { reply, text } = await run("backup", ["--reason", "before experiments"]);
    expect(reply.exitCode).toBe(0);
    expect(text).toMatch(/^curator: snapshot created at .*\.curator_backups\/2026-03-01T12-00-00Z$/);
    expect((await listSnapshots(home))[0]?.manifest?.reason).toBe("before experiments");
  });

  it("refuses when backups are disabled", async () => {
    const { reply, text } = await run(
      "backup",
      [],
      ctx(configWith({ curator: { backup: { enabled: false } } })),
    );
    expect(reply.exitCode).toBe(1);
    expect(text).toContain("curator.backup.enabled: false");
  });
});

describe("curator rollback", () => {
  it("lists snapshots, or says there are none", async () => {
    expect((await run("rollback", ["--list"])).text).toBe("No curator snapshots yet.");
    await writeSkill(home, "alpha");
    await run("backup", []);
    const { text, reply } = await run("rollback", ["--list"]);
    expect(text).toMatch(/2026-03-01T12-00-00Z\s+Mar 1,( 2026,)? 12:00 UTC\s+manual\s+1\s+\d+(\.\d)? (B|KB)/);
    expect(reply.exitCode).toBe(0);
  });

  it("refuses without a terminal and without -y, then restores with -y", async () => {
    await writeSkill(home, "alpha");
    await run("backup", []);
    await fs.rm(path.join(home, "skills", "alpha"), { recursive: true });
    const refused = await run("rollback", []);
    expect(refused.reply.exitCode).toBe(1);
    expect(refused.text).toContain("Rollback target: snapshot 2026-03-01T12-00-00Z");
    expect(refused.text).toMatch(/created_at: +Mar 1,( 2026,)? 12:00 UTC\n/);
    expect(refused.text).toContain("-y");
    expect(await exists(path.join(home, "skills", "alpha"))).toBe(false);
    const done = await run("rollback", ["-y"]);
    expect(done.reply.exitCode).toBe(0);
    expect(done.text).toBe("curator: restored from snapshot 2026-03-01T12-00-00Z");
    expect(await exists(path.join(home, "skills", "alpha", "SKILL.md"))).toBe(true);
  });

  it("asks at a terminal and cancels on no", async () => {
    await writeSkill(home, "alpha");
    await run("backup", []);
    const asked: string[] = [];
    const context = ctx(configWith(), {
      interactive: true,
      prompt: async (q) => {
        asked.push(english(q));
        return "n";
      },
    });
    const { reply } = await run("rollback", [], context);
    expect(asked[0]).toContain("Proceed?");
    expect(reply.exitCode).toBe(1);
  });

  it("explains a missing snapshot id and an empty backup dir", async () => {
    const none = await run("rollback", ["-y"]);
    expect(none.text).toContain("no snapshots exist yet");
    expect(none.text).toContain("skillgate curator backup");
    await writeSkill(home, "alpha");
    await run("backup", []);
    const bad = await run("rollback", ["--id", "2000-01-01T00-00-00Z", "-y"]);
    expect(bad.reply.exitCode).toBe(1);
    expect(bad.text).toContain("no snapshot matching id '2000-01-01T00-00-00Z'. Available:");
  });

  it("undoes one ledger entry after confirmation, and rejects an entry id with --id", async () => {
    const dir = await writeSkill(home, "alpha");
    await withLedger(
      { home, config: configWith(), actor: "user", action: "delete", skill: "alpha", paths: [dir] },
      () => fs.rm(dir, { recursive: true }),
    );
    const [entry] = await listEntries(home);
    const both = await run("rollback", [entry?.id ?? "", "--id", "x", "-y"]);
    expect(both.reply.exitCode).toBe(2);
    const refused = await run("rollback", [entry?.id ?? ""]);
    expect(refused.text).toContain(`Rollback target: ledger entry ${entry?.id}`);
    expect(refused.text).toMatch(/when: +[A-Z][a-z]{2} \d{1,2},( \d{4},)? \d{2}:\d{2} UTC\n/);
    expect(refused.text).toContain("Restore this mutation's before-state?");
    const done = await run("rollback", [entry?.id ?? "", "-y"]);
    expect(done.reply.exitCode).toBe(0);
    expect(done.text).toContain(
      `curator: rolled back entry ${entry?.id} (delete on 'alpha'): 1 file(s) restored, 0 removed.`,
    );
    const unknown = await run("rollback", ["ffffffffffff", "-y"]);
    expect(unknown.reply.exitCode).toBe(1);
    expect(unknown.text).toContain("no ledger entry 'ffffffffffff'");
  });
});

describe("curator ledger", () => {
  it("shows entries newest first with the rollback hint, filters, and prints JSON", async () => {
    expect((await run("ledger", [])).text).toBe("curator: ledger is empty (or skills.ledger is disabled).");
    const config = configWith();
    for (const skill of ["a", "b"]) {
      await withLedger(
        {
          home,
          config,
          actor: "curator",
          action: "delete",
          skill,
          evidence: { absorbed_into: "umbrella" },
          paths: [],
        },
        async () => undefined,
      );
    }
    const { text } = await run("ledger", []);
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^id\s+when\s+actor\s+action\s+skill$/);
    expect(lines[1]).toMatch(/curator\s+delete\s+b {2}→ absorbed into 'umbrella'$/);
    expect(text).toContain("skillgate curator rollback <id>");
    const filtered = await run("ledger", ["--skill", "a", "--limit", "5"]);
    expect(filtered.text.split("\n").filter((l) => /delete/.test(l))).toHaveLength(1);
    const json = await run("ledger", ["--json"], ctx(config, { json: true }));
    expect((json.reply.json as { entries: unknown[] }).entries).toHaveLength(2);
    const chat = await run("ledger", [], ctx(config, { commandPrefix: chatPrefix }));
    expect(chat.text).toContain("/curator rollback <id>");
  });
});

describe("curator purge", () => {
  async function archived(name: string, ageDays: number): Promise<void> {
    const dir = path.join(home, "skills", ".archive", name);
    await writeFiles(dir, { "SKILL.md": `---\nname: ${name}\n---\n`, "notes.md": "n\n" });
    const when = new Date(new Date("2026-03-01T12:00:00Z").getTime() - ageDays * 86_400_000);
    await fs.utimes(dir, when, when);
  }

  it("is disabled at TTL 0 unless --days is given", async () => {
    const { reply, text } = await run("purge", ["-y"]);
    expect(reply.exitCode).toBe(1);
    expect(text).toContain("purge disabled (curator.archive_ttl_days is 0)");
    expect((await run("purge", ["--days", "0"])).reply.exitCode).toBe(2);
  });

  it("reports a missing archive and nothing old enough", async () => {
    expect((await run("purge", ["--days", "5", "-y"])).text).toBe(
      "curator: no archive directory — nothing to purge.",
    );
    await archived("fresh", 1);
    expect((await run("purge", ["--days", "5", "-y"])).text).toBe(
      "curator: no archived skills older than 5d.",
    );
  });

  it("dry-runs, asks, then purges with ledger entries that can be rolled back", async () => {
    await archived("old", 40);
    await archived("fresh", 2);
    const config = configWith({ curator: { archive_ttl_days: 30 } });
    const dry = await run("purge", ["--dry-run"], ctx(config));
    expect(dry.text).toContain("Archived skills older than 30d:");
    expect(dry.text).toContain("(dry run — nothing deleted)");
    expect(await exists(path.join(home, "skills", ".archive", "old"))).toBe(true);
    const refused = await run("purge", [], ctx(config));
    expect(refused.text).toContain("Permanently delete 1 archived skill(s)?");
    expect(await exists(path.join(home, "skills", ".archive", "old"))).toBe(true);
    const done = await run("purge", ["-y"], ctx(config));
    expect(done.reply.exitCode).toBe(0);
    expect(done.text).toContain("curator: purged 1 archived skill(s). Ledger entries recorded");
    expect(await exists(path.join(home, "skills", ".archive", "old"))).toBe(false);
    expect(await exists(path.join(home, "skills", ".archive", "fresh"))).toBe(true);
    const [entry] = await listEntries(home);
    expect(entry?.action).toBe("purge");
    expect(entry?.actor).toBe("user");
    expect(entry?.evidence.ttl_days).toBe(30);
    expect(entry?.before).toHaveLength(2);
    await run("rollback", [entry?.id ?? "", "-y"], ctx(config));
    expect(await fs.readFile(path.join(home, "skills", ".archive", "old", "notes.md"), "utf8")).toBe("n\n");
  });

  it("ages by archived_at in usage before the folder time", async () => {
    await archived("recorded", 1);
    await writeFiles(path.join(home, "skills"), {
      ".usage.json": JSON.stringify({
        recorded: { state: "archived", archived_at: "2025-01-01T00:00:00+00:00" },
      }),
    });
    const { text } = await run("purge", ["--days", "30", "--dry-run"]);
    expect(text).toContain("recorded");
    expect(text).toContain("archived_at");
  });
});
