/** The `curator …` commands through the shared runner: reference scenarios 23, 54–59 and the texts of (c). */
import { promises as fs } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { curatorCommands } from "../../commands/curator.js";
import { backgroundArgv } from "../../commands/curator-run.js";
import { CHAT_PINNED_CHARS } from "../../commands/curator-status.js";
import { isoTimestamp } from "../../src/core/fsutil.js";
import { english } from "../../src/core/i18n/messages.js";
import { acquireRunLock } from "../../src/curator/lock.js";
import { readState } from "../../src/curator/state.js";
import { runCli } from "./harness.js";
import {
  configWith,
  DAY,
  freshHomeEachTest,
  readUsage,
  record,
  skillsTreeHash,
  writeSkill,
  writeUsage,
} from "./helpers.js";

const NOW = new Date("2026-06-01T12:00:00Z");
let home: string;
freshHomeEachTest((made) => {
  home = made;
});

const cli = (words: string[], options: Parameters<typeof runCli>[3] = {}, config = configWith()) =>
  runCli(home, config, words, { now: NOW, ...options });

describe("command specs", () => {
  it("covers every lifecycle subcommand and marks the ones that change things as mutating", () => {
    const byName = Object.fromEntries(curatorCommands.map((spec) => [spec.path[1], spec.mutating]));
    expect(byName).toEqual({
      status: false,
      run: true,
      pause: true,
      resume: true,
      pin: true,
      unpin: true,
      adopt: true,
      "list-pinned": false,
      "list-unmanaged": false,
      archive: true,
      restore: true,
      "list-archived": false,
      prune: true,
    });
  });
});

describe("status (scenarios 57, 58)", () => {
  it("shows the header, counts, pins and rankings with activity from views and patches", async () => {
    await writeSkill(home, "top-dog");
    await writeSkill(home, "never-used");
    await writeSkill(home, "viewer");
    await writeSkill(home, "napper");
    await writeUsage(home, {
      "top-dog": record(NOW, { use_count: 10, last_used_at: isoTimestamp(new Date(NOW.getTime() - DAY)) }),
      "never-used": record(NOW, { created_at: isoTimestamp(new Date(NOW.getTime() - 5 * DAY)) }),
      viewer: record(NOW, {
        view_count: 3,
        patch_count: 1,
        last_viewed_at: isoTimestamp(new Date(NOW.getTime() - 2 * 3600_000)),
      }),
      napper: record(NOW, { idleDays: 40, state: "stale", pinned: true }),
    });
    const { reply, text } = await cli(["status"]);
    expect(reply.exitCode).toBe(0);
    expect(text).toContain("curator: ENABLED\n  runs:           0\n  last run:       never");
    expect(text).toContain("  interval:       every 7d");
    expect(text).toContain("  stale after:    30d unused");
    expect(text).toContain("  consolidate:    off (prune-only; LLM merge pass opt-in)");
    expect(text).toContain(
      "curator-managed skills: 4 total  (agent-created=4  bundled=0)\n  active     3\n  stale      1\n  archived   0",
    );
    expect(text).toContain("pinned (1): napper");
    expect(text).toMatch(
      /viewer\s+activity=\s+4 {2}use=\s+0 {2}view=\s+3 {2}patches=\s+1 {2}last_activity=2h ago/,
    );
    const most = text.slice(text.indexOf("most active (top 5):"));
    expect(most.split("\n")[2]).toMatch(/^ {2}top-dog\s+activity= 10/);
    const least = text.slice(text.indexOf("least active (top 5):"));
    expect(least.split("\n")[2]).toMatch(/^ {2}never-used\s+activity=\s+0/);
    expect(text).not.toContain("unmanaged (no provenance marker)");
    const json = (await cli(["status", "--json"])).reply.json as Record<string, unknown>;
    expect(json).toMatchObject({
      state: "enabled",
      run_count: 0,
      last_run_at: null,
      managed: { total: 4, agent_created: 4, bundled: 0, active: 3, stale: 1, archived: 0 },
      pinned: ["napper"],
      unmanaged: { total: 0, pre_dates_marker: 0, foreground_created: 0 },
    });
    expect((json.least_recently_active as string[])[0]).toBe("never-used");
  });

  it("hides most-active when nobody has activity; empty library says so; a missing report is flagged", async () => {
    const empty = await cli(["status"]);
    expect(empty.text).toContain("no curator-managed skills");
    expect(empty.text).not.toContain("least recently active");
    await writeSkill(home, "idle");
    await writeUsage(home, { idle: record(NOW) });
    await fs.writeFile(
      path.join(home, "skills/.curator_state"),
      JSON.stringify({ last_report_path: "/nope/REPORT.md", paused: true }),
    );
    const { text } = await cli(["status"]);
    expect(text).toContain("curator: PAUSED");
    expect(text).toContain("last report:    /nope/REPORT.md (missing)");
    expect(text).not.toContain("most active");
    expect(text).toContain("least active (top 5):");
  });

  it("shows the unmanaged block even with nothing managed, with both reasons, and chat spells /curator", async () => {
    await writeSkill(home, "old-manual");
    await writeSkill(home, "fg-made");
    await writeUsage(home, { "fg-made": { use_count: 1, created_by: null } });
    const { text } = await cli(["status"], { chat: true });
    expect(text).toContain("no curator-managed skills");
    expect(text).toContain(
      "unmanaged (no provenance marker): 2 total\n  pre-dates marker    1\n  foreground-created  1",
    );
    expect(text).toContain("`/curator adopt <name>` hands one over");
  });
});

describe("pinned lists in chat", () => {
  /** 60 pinned skills with 30-character names: about 1,900 characters listed whole. */
  async function pinMany(): Promise<string[]> {
    const names = Array.from(
      { length: 60 },
      (_, index) => `pinned-skill-${String(index).padStart(2, "0")}-with-long-name`,
    );
    for (const name of names) await writeSkill(home, name);
    await writeSkill(home, "free");
    await writeUsage(home, {
      ...Object.fromEntries(names.map((name) => [name, record(NOW, { pinned: true })])),
      free: record(NOW),
    });
    return names;
  }

  it("chat status keeps a long pinned list to one line and points at list-pinned; terminal and JSON keep all", async () => {
    const names = await pinMany();
    const chat = await cli(["status"], { chat: true, surface: "chat" });
    const line = chat.text.split("\n").find((text) => text.startsWith("pinned (60): ")) ?? "";
    expect(line).toMatch(/ … and \d+ more \(`\/curator list-pinned` lists them all\)$/);
    const shown = line.slice("pinned (60): ".length, line.indexOf(" … and")).split(", ");
    expect(shown).toEqual(names.slice(0, shown.length));
    expect(line).toContain(`and ${60 - shown.length} more`);
    expect(shown.join(", ").length).toBeLessThanOrEqual(CHAT_PINNED_CHARS);
    expect(shown.length).toBeGreaterThan(5);
    const buttons = chat.reply.actions?.rows.flat() ?? [];
    const pinnedButton = buttons.find((button) => english(button.label) === "Pinned skills");
    expect(pinnedButton?.intent).toMatchObject({
      kind: "run",
      invocation: { path: ["curator", "list-pinned"] },
    });

    const terminal = await cli(["status"]);
    expect(terminal.text).toContain(`pinned (60): ${names.join(", ")}`);
    expect(terminal.text).not.toContain("list-pinned");
    const json = (await cli(["status", "--json"], { chat: true, surface: "chat" })).reply.json as {
      pinned: string[];
    };
    expect(json.pinned).toEqual(names);
  });

  it("chat status lists a short pinned list whole", async () => {
    await writeSkill(home, "one");
    await writeSkill(home, "two");
    await writeUsage(home, { one: record(NOW, { pinned: true }), two: record(NOW, { pinned: true }) });
    const { text, reply } = await cli(["status"], { chat: true, surface: "chat" });
    expect(text).toContain("pinned (2): one, two\n");
    expect(text).not.toContain("more (`/curator list-pinned`");
    expect(reply.actions?.rows.flat().some((button) => english(button.label) === "Pinned skills")).toBe(true);
  });

  it("list-pinned lists every pinned name as a paged block, with JSON; says so when none are pinned", async () => {
    const none = await cli(["list-pinned"]);
    expect(none.text).toBe("curator: no pinned skills");
    expect(none.reply.json).toEqual({ pinned: [] });
    const names = await pinMany();
    const { text, reply } = await cli(["list-pinned"], { chat: true, surface: "chat" });
    expect(text).toContain("pinned skills (60):");
    for (const name of names) expect(text).toContain(`  ${name}\n`);
    expect(text).not.toContain("  free\n");
    expect(text).toContain("unpin one with `/curator unpin <name>`");
    expect(reply.json).toEqual({ pinned: names });
    expect(reply.paging).toMatchObject({ block: 1, invocation: { path: ["curator", "list-pinned"] } });
  });
});

describe("run (scenario 59)", () => {
  it("runs in the foreground by default and prints the summary, the auto line and the report", async () => {
    await writeSkill(home, "ops/ancient");
    await writeUsage(home, { ancient: record(NOW, { idleDays: 120 }) });
    const { reply, text } = await cli(["run"]);
    expect(reply.exitCode).toBe(0);
    expect(text).toContain("prune-only pass");
    expect(text).toContain("curator: auto: 1 archived; llm: skipped (consolidation off)");
    expect(text).toContain("archived 1 skill(s):");
    expect(text).toContain("ancient — pruned (stale)");
    expect(text).toContain("auto: checked=1 stale=0 archived=1 reactivated=0");
    const json = (await cli(["run", "--json", "--dry-run"])).reply.json as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining([
        "started_at",
        "dry_run",
        "auto_transitions",
        "summary",
        "report_path",
        "snapshot_id",
      ]),
    );
    expect(json.dry_run).toBe(true);
  });

  it("shows a multi-line last summary in status with continuation lines indented", async () => {
    await writeSkill(home, "ops/ancient");
    await writeUsage(home, { ancient: record(NOW, { idleDays: 120 }) });
    await cli(["run"]);
    const { text } = await cli(["status"]);
    expect(text).toContain(
      "  last summary:   auto: 1 archived; llm: skipped (consolidation off)\n                  archived 1 skill(s):",
    );
    // The run folder, as Hermes stores it.
    expect(text).toMatch(/last report: {4}\S+\/logs\/curator\/\d{8}-\d{6}\n/);
    expect(text).toContain("  runs:           1");
    expect(text).not.toContain("full report");
  });

  it("keeps the last real run in status after a dry run, whose own output never says archived", async () => {
    await writeSkill(home, "ops/ancient");
    await writeSkill(home, "ops/old");
    await writeUsage(home, {
      ancient: record(NOW, { idleDays: 120 }),
      old: record(NOW, { idleDays: 120 }),
    });
    const first = (await cli(["run", "--dry-run"])).text;
    expect(first).toContain("curator: dry-run auto: would archive 2; llm: skipped (consolidation off)");
    expect(first).toContain("would archive 2 skill(s):");
    expect(first).not.toMatch(/\barchived \d/);
    const untouched = await cli(["status"]);
    expect(untouched.text).toContain("  last summary:   none");
    expect(untouched.text).toContain("  last report:    none");
    await fs.rm(path.join(home, "skills", "ops", "old"), { recursive: true });
    await cli(["run"]);
    const real = (await cli(["status"])).text;
    expect(real).toContain("  last summary:   auto: 1 archived");
    const lastRun = (text: string) => text.split("  interval:")[0];
    await cli(["run", "--dry-run"]);
    expect(lastRun((await cli(["status"])).text)).toBe(lastRun(real));
  });

  it("previews with --dry-run and changes nothing", async () => {
    await writeSkill(home, "tired");
    await writeUsage(home, { tired: record(NOW, { idleDays: 45 }) });
    const before = await skillsTreeHash(home);
    const { text } = await cli(["run", "--dry-run"]);
    expect(text).toContain("auto (preview): 1 candidate skill(s) — no transitions applied in dry-run");
    expect(text).toContain("tired: active → stale");
    expect(text).toContain("dry-run: no changes applied");
    expect(await skillsTreeHash(home)).toBe(before);
  });

  it("says when another run holds the lock, exit 1", async () => {
    const lock = await acquireRunLock(home);
    try {
      const { reply, text } = await cli(["run"]);
      expect(reply.exitCode).toBe(1);
      expect(text).toContain("another curator run is in progress");
    } finally {
      await lock.release();
    }
  });

  it("refuses when disabled via config", async () => {
    const { reply, text } = await cli(["run"], {}, configWith({ curator: { enabled: false } }));
    expect(reply.exitCode).toBe(1);
    expect(text).toContain("`curator.enabled: true`");
  });

  it("builds a detached child command line for --background", () => {
    const argv = backgroundArgv("/h", { args: [], options: { background: true, "dry-run": true } });
    expect(argv).toEqual([
      ...process.execArgv,
      process.argv[1],
      "--home",
      "/h",
      "curator",
      "run",
      "--dry-run",
    ]);
  });
});

describe("pause, resume, pin, unpin (scenarios 3, 23, 54)", () => {
  it("persists pause and resume", async () => {
    expect((await cli(["pause"])).text).toContain("curator: paused");
    expect((await readState(home)).state.paused).toBe(true);
    expect((await cli(["resume"])).text).toBe("curator: resumed");
    expect((await readState(home)).state.paused).toBe(false);
  });

  it("pins managed and unmanaged skills with the right message; refuses bundled, hub and missing ones", async () => {
    await writeSkill(home, "mine");
    await writeSkill(home, "loose");
    await writeSkill(home, "builtin");
    await fs.writeFile(path.join(home, "skills/.bundled_manifest"), "builtin\n");
    await writeUsage(home, { mine: record(NOW), builtin: record(NOW, { created_by: null, use_count: 4 }) });
    expect((await cli(["pin", "mine"])).text).toBe(
      "curator: pinned 'mine' (auto-transitions will leave it alone)",
    );
    const loose = await cli(["pin", "loose"]);
    expect(loose.reply.exitCode).toBe(0);
    expect(loose.text).toContain("this skill is unmanaged");
    expect(loose.text).toContain("`skillgate curator adopt loose`");
    for (const verb of ["pin", "unpin"]) {
      const bundled = await cli([verb, "builtin"]);
      expect(bundled.reply.exitCode).toBe(1);
      expect(bundled.text).toContain("is bundled or hub-installed");
    }
    expect((await cli(["pin", "ghost"])).reply.exitCode).toBe(1);
    const usage = await readUsage(home);
    expect([usage.mine?.pinned, usage.loose?.pinned, usage.builtin?.pinned]).toEqual([true, true, false]);
    expect(usage.builtin?.use_count).toBe(4);
    expect((await cli(["unpin", "mine"])).text).toContain("unpinned 'mine'");
    expect((await readUsage(home)).mine?.pinned).toBe(false);
  });
});

describe("adopt and list-unmanaged (scenario 58)", () => {
  beforeEach(async () => {
    await writeSkill(home, "alpha");
    await writeSkill(home, "beta");
    await writeSkill(home, "managed");
    await writeUsage(home, {
      alpha: { use_count: 2, last_used_at: "2026-01-01T00:00:00+00:00" },
      beta: { created_by: null },
      managed: record(NOW),
    });
  });

  it("lists unmanaged skills with their reasons and omits managed ones", async () => {
    const { text, reply } = await cli(["list-unmanaged"]);
    expect(text).toContain("unmanaged skills (2):");
    expect(text).toMatch(/ {2}alpha\s+activity= {3}2 last_activity=\d+d ago\s+\(no marker\)/);
    expect(text).toMatch(/ {2}beta\s+activity= {3}0 last_activity=never\s+\(created_by:null\)/);
    expect(text).not.toMatch(/^ {2}managed\s/m);
    expect(
      (reply.json as { unmanaged: { name: string; reason: string }[] }).unmanaged.map((u) => [
        u.name,
        u.reason,
      ]),
    ).toEqual([
      ["alpha", "pre-dates marker"],
      ["beta", "foreground-created"],
    ]);
  });

  it("adopts by name without resetting the clock", async () => {
    const { reply, text } = await cli(["adopt", "alpha"]);
    expect(reply.exitCode).toBe(0);
    expect(text).toBe("curator: adopted 'alpha' into curator management");
    const alpha = (await readUsage(home)).alpha;
    expect(alpha?.created_by).toBe("agent");
    expect(alpha?.last_used_at).toBe("2026-01-01T00:00:00+00:00");
    expect((await cli(["adopt", "alpha"])).text).toContain("already curator-managed");
  });

  it("dry-run writes nothing; names with --all-unmanaged is refused; 'n' aborts; -y adopts all", async () => {
    const before = await skillsTreeHash(home);
    const dry = await cli(["adopt", "--all-unmanaged", "--dry-run"]);
    expect(dry.text).toContain("would adopt 2 skill(s) (dry run):\n\n  + alpha\n  + beta");
    expect(await skillsTreeHash(home)).toBe(before);
    expect((await cli(["adopt", "alpha", "--all-unmanaged"])).reply.exitCode).toBe(1);
    expect((await cli(["adopt"])).reply.exitCode).toBe(1);
    const declined = await cli(["adopt", "--all-unmanaged"], { answer: "n" });
    expect(declined.reply.exitCode).toBe(1);
    expect(await skillsTreeHash(home)).toBe(before);
    const noTty = await cli(["adopt", "--all-unmanaged"]);
    expect(noTty.reply.exitCode).toBe(1);
    expect(noTty.text).toContain("-y");
    const yes = await cli(["adopt", "--all-unmanaged", "-y"]);
    expect(yes.reply.exitCode).toBe(0);
    expect(yes.text).toContain("adopted 2/2");
    expect((await cli(["adopt", "--all-unmanaged"])).text).toBe("curator: no unmanaged skills to adopt");
  });

  it("refuses bundled, hub and missing skills, exit 1 when any fails", async () => {
    await fs.writeFile(path.join(home, "skills/.bundled_manifest"), "alpha:1\n");
    const { reply, text } = await cli(["adopt", "alpha", "beta", "ghost"]);
    expect(reply.exitCode).toBe(1);
    expect(text).toContain("'alpha' is a bundled built-in");
    expect(text).toContain("adopted 'beta'");
    expect(text).toContain("skill 'ghost' not found");
    expect(text).toContain("adopted 1/3");
  });
});

describe("archive, restore, list-archived (scenario 55)", () => {
  it("asks before archiving on a terminal, honours -y, and archives at once for a script", async () => {
    await writeSkill(home, "cat/thing");
    await writeSkill(home, "other");
    await writeSkill(home, "third");
    await writeUsage(home, { thing: record(NOW), other: record(NOW), third: record(NOW) });
    const before = await skillsTreeHash(home);
    const declined = await cli(["archive", "thing"], { answer: "n" });
    expect(declined.reply.exitCode).toBe(1);
    expect(declined.text).toContain("Cancelled; nothing was changed.");
    expect(await skillsTreeHash(home)).toBe(before);
    const accepted = await cli(["archive", "thing"], { answer: "y" });
    expect(accepted.reply.exitCode).toBe(0);
    expect(accepted.text).toContain("curator: archived 'thing'");
    const yes = await cli(["archive", "other", "-y"], { answer: "n" });
    expect(yes.reply.exitCode).toBe(0);
    expect(yes.text).toContain("curator: archived 'other'");
    // No terminal (a script, a pipe): nothing to ask on, and restore undoes it.
    const script = await cli(["archive", "third"]);
    expect(script.reply.exitCode).toBe(0);
    expect(script.text).toContain("curator: archived 'third'");
  });

  it("archives, lists and restores through the commands", async () => {
    await writeSkill(home, "cat/thing");
    await writeSkill(home, "held");
    await writeUsage(home, { thing: record(NOW), held: record(NOW, { pinned: true }) });
    const pinned = await cli(["archive", "held"]);
    expect(pinned.reply.exitCode).toBe(1);
    expect(pinned.text).toContain("skillgate curator unpin held");
    const ok = await cli(["archive", "thing"]);
    expect(ok.reply.exitCode).toBe(0);
    expect(ok.text).toContain("archived 'thing' to .archive/thing");
    expect((await cli(["archive", "ghost"])).reply.exitCode).toBe(1);
    const listed = await cli(["list-archived", "--json"]);
    expect((listed.reply.json as { archived: unknown[] }).archived).toEqual([
      { name: "thing", skill: "thing", restore_to: "cat/thing", category: "cat" },
    ]);
    expect((await cli(["list-archived"])).text).toContain("thing  → skills/cat/thing");
    const back = await cli(["restore", "thing"]);
    expect(back.text).toContain("curator: restored 'thing' to skills/cat/thing");
    expect(back.text).toContain("`skillgate curator pin thing` keeps it");
    expect((await cli(["list-archived"])).text).toBe("curator: no archived skills");
    expect((await cli(["restore", "thing"])).reply.exitCode).toBe(1);
  });
});

describe("prune (scenario 56)", () => {
  beforeEach(async () => {
    await writeSkill(home, "old-active");
    await writeSkill(home, "old-pinned");
    await writeSkill(home, "created-long-ago");
    await writeSkill(home, "cron-linked");
    await writeSkill(home, "young-unused");
    await writeSkill(home, "recent");
    await writeUsage(home, {
      "old-active": record(NOW, { idleDays: 100 }),
      "old-pinned": record(NOW, { idleDays: 100, pinned: true }),
      "created-long-ago": record(NOW, {
        use_count: 2,
        created_at: isoTimestamp(new Date(NOW.getTime() - 95 * DAY)),
      }),
      "cron-linked": record(NOW, { idleDays: 100 }),
      "young-unused": record(NOW, { created_at: isoTimestamp(new Date(NOW.getTime() - 20 * DAY)) }),
      recent: record(NOW, { idleDays: 2 }),
      "gone-archived": record(NOW, { idleDays: 300, state: "archived" }),
    });
    await fs.mkdir(path.join(home, "cron"), { recursive: true });
    await fs.writeFile(
      path.join(home, "cron/jobs.json"),
      JSON.stringify({ jobs: [{ id: "1", skill: "cron-linked", paused: true }] }),
    );
  });

  it("rejects --days below 1 with exit 2", async () => {
    const { reply, text } = await cli(["prune", "--days", "0"]);
    expect(reply.exitCode).toBe(2);
    expect(text).toContain("--days must be >= 1 (got 0)");
  });

  it("lists candidates most idle first, honouring pins, cron and the never-used grace; dry-run changes nothing", async () => {
    const before = await skillsTreeHash(home);
    const { text, reply } = await cli(["prune", "--days", "15", "--dry-run"]);
    expect(reply.exitCode).toBe(0);
    expect(text).toContain("2 skill(s) idle >= 15d:");
    expect(text).toMatch(/ {2}old-active\s+idle 100d\n {2}created-long-ago\s+idle 95d/);
    expect(text).not.toContain("cron-linked");
    expect(text).not.toContain("young-unused");
    expect(text).toContain("(dry run — no changes made)");
    expect(await skillsTreeHash(home)).toBe(before);
    expect((await cli(["prune", "--days", "500"])).text).toBe(
      "curator: nothing to prune (no unpinned skills idle >= 500d)",
    );
  });

  it("archives after confirmation; 'n' aborts; a partial failure exits 1", async () => {
    const before = await skillsTreeHash(home);
    const declined = await cli(["prune", "--days", "90"], { answer: "n" });
    expect(declined.reply.exitCode).toBe(1);
    expect(await skillsTreeHash(home)).toBe(before);
    const done = await cli(["prune", "--days", "90"], { answer: "y" });
    expect(done.reply.exitCode).toBe(0);
    expect(done.text).toContain("archived 2/2");
    expect((await readUsage(home))["old-active"]?.state).toBe("archived");
    // A folder name at the file-name limit whose archive place is taken: the suffixed name is too long.
    const longFolder = "v".repeat(250);
    await writeSkill(home, `blocked/${longFolder}`, {}, "victim");
    await writeSkill(home, "fine");
    await writeUsage(home, { victim: record(NOW, { idleDays: 200 }), fine: record(NOW, { idleDays: 200 }) });
    await fs.writeFile(path.join(home, "skills/.archive", longFolder), "a file where a folder should be");
    const partial = await cli(["prune", "--days", "90", "-y"]);
    expect(partial.reply.exitCode).toBe(1);
    expect(partial.text).toContain("archived 1/2");
    expect(partial.text).toContain("failures:");
    expect(partial.text).toContain("victim");
    await fs.stat(path.join(home, "skills/blocked", longFolder, "SKILL.md"));
  });
});
