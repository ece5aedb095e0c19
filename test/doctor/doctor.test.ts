/**
 * `skillgate doctor` against the emulators, healthy and broken: bad tokens, a Discord 4014, a Telegram
 * webhook pointing elsewhere, a refused Feishu secret; plus the home and config checks and the CLI.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import YAML from "yaml";
import { runDoctor } from "../../src/cli/doctor.js";
import { type Check, checkText } from "../../src/core/diagnostics.js";
import { resolveText } from "../../src/core/i18n/messages.js";
import { DiscordEmulator } from "../emulators/discord.js";
import { LarkEmulator } from "../emulators/lark.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { expectChinese } from "../i18n/complete-support.js";
import { runCliArgs } from "../support/cli-in-process.js";
import { writeTestSkill } from "../support/platform-home.js";

/** Every platform row reads as Chinese for a zh-CN reader (names, keys, URLs and portal labels kept). */
function expectChineseRows(checks: Check[], names: readonly string[] = []): void {
  for (const check of checks.filter((item) => ["telegram", "discord", "feishu"].includes(item.area))) {
    const { summary, fix } = checkText(check);
    const portal = [
      "Bot API",
      "BotFather",
      "API Token",
      "Unauthorized",
      "App ID",
      "App Secret",
      "Verification Token",
      "Encrypt Key",
      "open_id",
      "Telegram",
      "Discord",
      "https://api.telegram.org",
    ];
    expectChinese(resolveText(summary, "zh-CN"), [...names, ...portal]);
    if (fix) expectChinese(resolveText(fix, "zh-CN"), [...names, ...portal]);
  }
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function home(config: Record<string, unknown>, skills = true): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "skillgate-doctor-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, "config.yaml"), YAML.stringify(config));
  if (skills) await writeTestSkill(dir, "documents", "pdf-tools");
  return dir;
}

function gatewayConfig(platforms: Record<string, unknown>): Record<string, unknown> {
  const off = { telegram: { enabled: false }, feishu: { enabled: false }, discord: { enabled: false } };
  return { gateway: { admins: ["telegram:1"], health: { enabled: false }, ...off, ...platforms } };
}

function secrets(values: Record<string, string>): (name: string) => string | undefined {
  return (name) => values[name];
}

function of(checks: Check[], area: string, status?: Check["status"]): Check[] {
  return checks.filter((check) => check.area === area && (status === undefined || check.status === status));
}

/** What the checks of `area` (with `status`, when given) say. */
function summaries(checks: Check[], area: string, status?: Check["status"]): string[] {
  return of(checks, area, status).map((check) => check.summary);
}

/** `emulator` listening on loopback until the test ends. */
async function listening<E extends { listen(): Promise<unknown>; close(): Promise<unknown> }>(
  emulator: E,
): Promise<E> {
  await emulator.listen();
  cleanups.push(() => emulator.close());
  return emulator;
}

const telegram = () => listening(new TelegramEmulator());

describe("doctor: home and config", () => {
  it("fails a missing home and names the ways to get one", async () => {
    const checks = await runDoctor({
      home: path.join(os.tmpdir(), "skillgate-no-such-home-x9"),
      secret: () => undefined,
    });
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ area: "home", status: "fail" });
    expect(checks[0]?.fix).toMatch(/init --examples/);
  });

  it("warns about an empty library, no admins and no platform, and reports a bad config value", async () => {
    const empty = await home({ gateway: { health: { enabled: false } } }, false);
    const checks = await runDoctor({ home: empty, secret: () => undefined });
    expect(of(checks, "home", "warn")[0]?.fix).toMatch(/serve --demo/);
    expect(summaries(checks, "config", "warn").join(" ")).toMatch(/gateway\.admins is empty/);
    expect(summaries(checks, "config", "warn").join(" ")).toMatch(/No chat platform/);
    expect(checks.some((check) => check.status === "fail")).toBe(false);

    const bad = await home({ gateway: { home_channel: "nowhere" } });
    const badChecks = await runDoctor({ home: bad, secret: () => undefined });
    expect(of(badChecks, "config", "fail")[0]?.summary).toMatch(/home_channel/);
  });

  it("flags unknown keys in skillgate's sections with the key they meant, and leaves Hermes' sections alone", async () => {
    const dir = await home({
      model: { default: "some/model", provider: "openrouter" },
      toolsets: ["web"],
      skills: { hub_url: "a Hermes setting" },
      curator: { stale_after_dayz: 10, backup: { kepp: 3 } },
      gateway: {
        admins: ["telegram:1"],
        helth: { port: 9000 },
        health: { enabled: false },
        telegram: { enabled: false, mdoe: "webhook" },
        frobnicate: true,
      },
    });
    const checks = await runDoctor({ home: dir, secret: () => undefined });
    const found = summaries(checks, "config", "warn");
    expect(found).toContain(
      "config.yaml: `curator.stale_after_dayz` is not a setting skillgate knows; did you mean `curator.stale_after_days`? (config.yaml line 9, column 3)",
    );
    expect(found).toContain(
      "config.yaml: `curator.backup.kepp` is not a setting skillgate knows; did you mean `curator.backup.keep`? (config.yaml line 11, column 5)",
    );
    expect(found).toContain(
      "config.yaml: `gateway.helth` is not a setting skillgate knows; did you mean `gateway.health`? (config.yaml line 15, column 3)",
    );
    expect(found).toContain(
      "config.yaml: `gateway.telegram.mdoe` is not a setting skillgate knows; did you mean `gateway.telegram.mode`? (config.yaml line 21, column 5)",
    );
    expect(found).toContain(
      "config.yaml: `gateway.frobnicate` is not a setting skillgate knows. (config.yaml line 22, column 3)",
    );
    expect(found.join("\n")).not.toMatch(/model|toolsets|hub_url/);
    expect(checks.map((check) => check.summary).join("\n")).not.toMatch(/is valid/);
  });

  it("reports every wrong value, not only the first, and still checks the library", async () => {
    const dir = await home({
      curator: { enabled: "sometimes", backup: { keep: "many" } },
      gateway: { health: { port: 99999 }, home_channel: "nowhere", admins: ["telegram:1"] },
    });
    const checks = await runDoctor({ home: dir, secret: () => undefined });
    const failures = summaries(checks, "config", "fail");
    expect(failures).toHaveLength(4);
    expect(failures.join("\n")).toMatch(/curator\.enabled/);
    expect(failures.join("\n")).toMatch(/curator\.backup\.keep/);
    expect(failures.join("\n")).toMatch(/gateway\.health\.port/);
    expect(failures.join("\n")).toMatch(/gateway\.home_channel/);
    expect(summaries(checks, "home", "ok")).toContain("1 skill(s) in the library.");
  });
});

describe("doctor: telegram", () => {
  it("is healthy against a working bot", async () => {
    const emulator = await telegram();
    const dir = await home(gatewayConfig({ telegram: { enabled: true, api_root: emulator.apiRoot } }));
    const checks = await runDoctor({ home: dir, secret: secrets({ TELEGRAM_BOT_TOKEN: emulator.token }) });
    expect(of(checks, "telegram", "fail")).toEqual([]);
    expect(summaries(checks, "telegram", "ok").join("\n")).toMatch(/@SkillgateBot/);
    expect(summaries(checks, "telegram").join("\n")).toMatch(/Privacy mode is on/);
  });

  it("fails a token Telegram refuses", async () => {
    const emulator = await telegram();
    const dir = await home(gatewayConfig({ telegram: { enabled: true, api_root: emulator.apiRoot } }));
    const checks = await runDoctor({
      home: dir,
      secret: secrets({ TELEGRAM_BOT_TOKEN: "7000000001:AAWellFormedButNotThisBotsToken_01234" }),
    });
    expect(of(checks, "telegram", "fail")[0]?.summary).toMatch(/401/);
    expect(of(checks, "telegram", "fail")[0]?.fix).toMatch(/BotFather/);
  });

  it("says what is wrong with a malformed token without sending it to Telegram", async () => {
    const emulator = await telegram();
    const dir = await home(gatewayConfig({ telegram: { enabled: true, api_root: emulator.apiRoot } }));
    const cases: [string, RegExp][] = [
      ["7000000001:wrong", /5 characters long/],
      [`"${emulator.token}"`, /quotes/],
      [`bot${emulator.token}`, /starts with `bot`/],
      ["AAEmulatorTokenForTestsOnly_0123456789", /no `:`/],
      [`${emulator.token} `, /spaces/],
      [`${emulator.apiRoot}/bot${emulator.token}/getMe`, /URL/],
      ["me:AAEmulatorTokenForTestsOnly_0123456789", /numeric id/],
    ];
    for (const [token, problem] of cases) {
      const checks = await runDoctor({ home: dir, secret: secrets({ TELEGRAM_BOT_TOKEN: token }) });
      const failure = of(checks, "telegram", "fail")[0];
      expect(failure?.summary, token).toMatch(/does not look like a bot token/);
      expect(failure?.summary, token).toMatch(problem);
      expect(failure?.summary).not.toContain(emulator.token);
      expect(failure?.fix).toMatch(/BotFather/);
      expectChineseRows(checks, [token]);
    }
    expect(emulator.calls).toEqual([]);
  });

  it("fails a webhook that points elsewhere", async () => {
    const emulator = await telegram();
    await fetch(`${emulator.apiRoot}/bot${emulator.token}/setWebhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: "https://old-deployment.example.org/hook" }),
    });
    const dir = await home(
      gatewayConfig({
        telegram: {
          enabled: true,
          api_root: emulator.apiRoot,
          mode: "webhook",
          webhook: { url: "https://bot.example.com/telegram", secret: "abc" },
        },
      }),
    );
    const checks = await runDoctor({ home: dir, secret: secrets({ TELEGRAM_BOT_TOKEN: emulator.token }) });
    const problem = of(checks, "telegram", "fail")[0];
    expect(problem?.summary).toMatch(/points elsewhere.*old-deployment/);
    expect(problem?.fix).toMatch(/Another deployment/);
    expectChineseRows(checks, [
      "https://old-deployment.example.org/hook",
      "https://bot.example.com/telegram",
    ]);
  });
});

describe("doctor: discord", () => {
  const discord = () => listening(new DiscordEmulator());

  it("is healthy, and says when no commands are registered yet", async () => {
    const emulator = await discord();
    const dir = await home(gatewayConfig({ discord: { enabled: true, api: emulator.apiBase } }));
    const checks = await runDoctor({ home: dir, secret: secrets({ DISCORD_BOT_TOKEN: emulator.token }) });
    expect(of(checks, "discord", "fail")).toEqual([]);
    expect(of(checks, "discord", "ok")[0]?.summary).toMatch(/Gateway connection works/);
    expect(of(checks, "discord", "warn")[0]?.summary).toMatch(/No skillgate slash commands/);
    expectChineseRows(checks, [String(of(checks, "discord", "ok")[0]?.summary.match(/works: (.*)\.$/)?.[1])]);
  });

  it("explains close code 4014 with the portal switch", async () => {
    const emulator = await discord();
    emulator.closeNextIdentify(4014);
    const dir = await home(gatewayConfig({ discord: { enabled: true, api: emulator.apiBase } }));
    const checks = await runDoctor({ home: dir, secret: secrets({ DISCORD_BOT_TOKEN: emulator.token }) });
    const problem = of(checks, "discord", "fail")[0];
    expect(problem?.summary).toMatch(/4014/);
    expect(problem?.fix).toMatch(/Privileged Gateway Intents/);
  });

  it("fails a bad token", async () => {
    const emulator = await discord();
    const dir = await home(gatewayConfig({ discord: { enabled: true, api: emulator.apiBase } }));
    const checks = await runDoctor({ home: dir, secret: secrets({ DISCORD_BOT_TOKEN: "not-the-token" }) });
    const problem = of(checks, "discord", "fail")[0];
    expect(problem?.summary).toMatch(/DISCORD_BOT_TOKEN/);
    expect(problem?.fix).toMatch(/Reset Token/);
  });
});

describe("doctor: feishu", () => {
  const lark = () => listening(new LarkEmulator());

  it("is healthy over the long connection", async () => {
    const emulator = await lark();
    const dir = await home(gatewayConfig({ feishu: { enabled: true, domain: emulator.url } }));
    const checks = await runDoctor({
      home: dir,
      secret: secrets({ FEISHU_APP_ID: emulator.appId, FEISHU_APP_SECRET: emulator.appSecret }),
    });
    expect(of(checks, "feishu", "fail")).toEqual([]);
    expect(summaries(checks, "feishu").join("\n")).toMatch(/open_id ou_bot_0001/);
    expect(summaries(checks, "feishu").join("\n")).toMatch(/Long connection endpoint available/);
  });

  it("names exactly the credential that is missing", async () => {
    const dir = await home(gatewayConfig({ feishu: { enabled: true } }));
    const noSecret = await runDoctor({ home: dir, secret: secrets({ FEISHU_APP_ID: "cli_a1b2c3" }) });
    expect(of(noSecret, "feishu", "fail")[0]?.summary).toBe(
      "FEISHU_APP_SECRET is not set (FEISHU_APP_ID is).",
    );
    expect(of(noSecret, "feishu", "fail")[0]?.fix).toMatch(/the App Secret .* as FEISHU_APP_SECRET=…/);
    const noId = await runDoctor({ home: dir, secret: secrets({ FEISHU_APP_SECRET: "s3cr3t-value" }) });
    expect(of(noId, "feishu", "fail")[0]?.summary).toBe("FEISHU_APP_ID is not set (FEISHU_APP_SECRET is).");
  });

  it("fails a refused app secret and mentions the lark domain", async () => {
    const emulator = await lark();
    const dir = await home(gatewayConfig({ feishu: { enabled: true, domain: emulator.url } }));
    const checks = await runDoctor({
      home: dir,
      secret: secrets({ FEISHU_APP_ID: emulator.appId, FEISHU_APP_SECRET: "wrong" }),
    });
    const problem = of(checks, "feishu", "fail")[0];
    expect(problem?.summary).toMatch(/refused/);
    expect(problem?.fix).toMatch(/domain: lark/);
    expectChineseRows(checks, [emulator.url, "app secret invalid"]);
  });
});

describe("skillgate doctor on the command line", () => {
  it("prints the checks as JSON and exits 1 when one failed", async () => {
    const emulator = await telegram();
    const dir = await home(gatewayConfig({ telegram: { enabled: true, api_root: emulator.apiRoot } }));
    await writeFile(path.join(dir, ".env"), "TELEGRAM_BOT_TOKEN=7000000001:wrong\n");
    const { code, stdout } = await runCliArgs(["--home", dir, "doctor", "--json"], {
      env: { NO_COLOR: "1" },
    });
    expect(code).toBe(1);
    const doc = JSON.parse(stdout) as { ok: boolean; checks: Check[] };
    expect(doc.ok).toBe(false);
    expect(doc.checks.some((check) => check.area === "telegram" && check.status === "fail")).toBe(true);
  });

  it("prints its report on stdout, also when a check failed", async () => {
    const dir = await home({ gateway: { home_channel: "nowhere" } });
    const { code, stdout, stderr } = await runCliArgs(["--home", dir, "doctor"], { env: { NO_COLOR: "1" } });
    expect(code).toBe(1);
    expect(stdout).toMatch(/skillgate doctor/);
    expect(stdout).toMatch(/gateway\.home_channel/);
    expect(stderr).toBe("");
  });
});
