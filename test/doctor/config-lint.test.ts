/**
 * Every config mistake named at once, with its line and column, by `doctor` and by `serve` alike: a
 * section a typo away from one skillgate reads, two listeners on one port, a token in config.yaml, a
 * `.env` name a typo away from a credential, ids of the wrong shape, curator thresholds out of order, and
 * a `.env` with credentials others may read.
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import "../../adapters/index.js";
import { runDoctor } from "../../src/cli/doctor.js";
import type { Check } from "../../src/core/diagnostics.js";
import { runCli } from "../support/cli-in-process.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function home(config: string, env?: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillgate-lint-"));
  dirs.push(dir);
  await writeFile(path.join(dir, "config.yaml"), config);
  if (env !== undefined) {
    await writeFile(path.join(dir, ".env"), env);
    await chmod(path.join(dir, ".env"), 0o644);
  }
  return dir;
}

const MANY_MISTAKES = [
  "curater:", // 1
  "  stale_after_days: 5",
  "curator:", // 3
  "  stale_after_days: 120", // 4
  "  enabled: sometimes", // 5
  "model: {default: some/model}", // 6: Hermes' own section, left alone
  "gateway:", // 7
  "  admins: ['telegram:@alice', 'discord:123', 'telegram:42']", // 8
  "  health:",
  "    port: 18800", // 10
  "  console:",
  "    port: 18800", // 12
  "  telegram:",
  '    bot_token: "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"', // 14
  "  home_channel: nowhere", // 15
  "",
].join("\n");

const ENV = "# shared with Hermes\nTELEGRAM_TOKEN=123456789:abc\nOPENROUTER_API_KEY=sk-or-1\n";

function summaries(checks: Check[], status: Check["status"]): string[] {
  return checks.filter((check) => check.area === "config" && check.status === status).map((c) => c.summary);
}

describe("doctor names every config mistake at once, with where it is", () => {
  it("lists each error and warning with its line and column", async () => {
    const dir = await home(MANY_MISTAKES, ENV);
    const checks = await runDoctor({ home: dir, secret: () => undefined });
    const errors = summaries(checks, "fail");
    expect(errors).toHaveLength(3);
    expect(errors).toContainEqual(
      expect.stringMatching(/`curator\.enabled`.*\(config\.yaml line 5, column 3\)$/),
    );
    expect(errors).toContainEqual(
      expect.stringMatching(/`gateway\.home_channel`.*\(config\.yaml line 15, column 3\)$/),
    );
    expect(errors).toContainEqual(
      "config.yaml: `gateway.console.port` and `gateway.health.port` both listen on port 18800; the second cannot start. (config.yaml line 12, column 5)",
    );
    const warnings = summaries(checks, "warn").join("\n");
    expect(warnings).toContain(
      "the section `curater` is not one skillgate reads, and is one typo away from `curator`",
    );
    expect(warnings).toMatch(/`curater`.*\(config\.yaml line 1, column 1\)/);
    expect(warnings).not.toMatch(/`model`/);
    expect(warnings).toMatch(
      /`curator\.stale_after_days` \(120\) is not below `curator\.archive_after_days` \(90\).*line 4,/,
    );
    expect(warnings).toMatch(/holds telegram:@alice, which is not a telegram id.*line 8, column 3/);
    expect(warnings).toMatch(/holds discord:123, which is not a discord id/);
    expect(warnings).not.toMatch(/telegram:42/);
    expect(warnings).toMatch(/`gateway\.telegram\.bot_token` looks like a bot token.*line 14, column 5/);
    expect(warnings).toMatch(
      /\.env: `TELEGRAM_TOKEN` is not a name skillgate reads; did you mean `TELEGRAM_BOT_TOKEN`\? \(\.env line 2, column 1\)/,
    );
    expect(warnings).not.toMatch(/OPENROUTER_API_KEY` is not/);
    expect(warnings).toContain(
      ".env holds credentials and its mode 644 lets other users of this machine read it.",
    );
    const fixes = checks.map((check) => check.fix ?? "").join("\n");
    expect(fixes).toContain("chmod 600");
    expect(fixes).toContain("Rename `curater:` to `curator:`");
  });

  it("says nothing of a private .env, ids of the right shape and thresholds in order", async () => {
    const dir = await home(
      "curator:\n  stale_after_days: 10\n  archive_after_days: 20\ngateway:\n  admins: ['telegram:-100123', 'discord:222333444555666777', 'feishu:ou_abc123']\n  health: {enabled: false}\n",
      "TELEGRAM_BOT_TOKEN=123:abc\n",
    );
    await chmod(path.join(dir, ".env"), 0o600);
    const checks = await runDoctor({ home: dir, secret: () => undefined });
    expect(summaries(checks, "fail")).toEqual([]);
    expect(summaries(checks, "warn").join("\n")).not.toMatch(/line \d|\.env/);
  });
});

describe("serve names the same mistakes and exits 78", () => {
  it("prints every error with its line, not only the first", async () => {
    const dir = await home(MANY_MISTAKES, ENV);
    const run = await runCli(dir, ["serve"]);
    expect(run.code).toBe(78);
    expect(run.stderr).toMatch(/`curator\.enabled`.*\(config\.yaml line 5, column 3\)/);
    expect(run.stderr).toMatch(/`gateway\.home_channel`.*\(config\.yaml line 15, column 3\)/);
    expect(run.stderr).toContain(
      "both listen on port 18800; the second cannot start. (config.yaml line 12, column 5)",
    );
  });

  it("stops on a port collision the values alone do not show, and warns of the rest", async () => {
    const dir = await home(
      "gatway:\n  admins: []\ngateway:\n  health: {port: 18801}\n  console: {port: 18801}\n",
    );
    const run = await runCli(dir, ["serve"]);
    expect(run.code).toBe(78);
    expect(run.stderr).toContain(
      "`gateway.console.port` and `gateway.health.port` both listen on port 18801; the second cannot start. (config.yaml line 5, column 13)",
    );
  });

  it("in Chinese too", async () => {
    const dir = await home("gateway:\n  health: {port: 18802}\n  console: {port: 18802}\n");
    const run = await runCli(dir, ["serve"], {
      env: { NO_COLOR: "1", SKILLGATE_LOG_LEVEL: "silent", PATH: process.env.PATH, LANG: "zh_CN.UTF-8" },
    });
    expect(run.code).toBe(78);
    expect(run.stderr).toContain("都在端口 18802 上监听");
    expect(run.stderr).toContain("第 3 行，第 13 列");
  });
});
