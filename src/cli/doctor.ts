/**
 * `skillgate doctor`: checks the home, config.yaml and, for each enabled platform, what can be verified
 * against the platform from here (token, bot identity, how events arrive, command registration,
 * intents). Every problem comes with its fix; `--json` prints the checks as one document. The exit code
 * is 1 when a check failed.
 */
import { promises as fs } from "node:fs";
import { botsHeldByHermes, hermesHoldFix, hermesHoldSummary, PLATFORMS } from "../../adapters/index.js";
import type { SkillgateConfig } from "../config/config.js";
import { lookupSecret, readDotenv } from "../config/dotenv.js";
import { homePaths } from "../config/home.js";
import { fileMode, findingText, lintHome } from "../config/lint.js";
import { removeAbandonedWriteTemps } from "../config/write-temps.js";
import { type Check, checkText, failText, okText, warnText } from "../core/diagnostics.js";
import { errorCause } from "../core/errors.js";
import { list, type Text, t } from "../core/i18n/messages.js";
import { createLogger } from "../core/logger.js";
import { type AdapterOptions, type PlatformDefinition, preferOwnSecrets } from "../core/platforms.js";
import { type Reply, reply } from "../core/reply.js";
import { openLibrary } from "../skills/library.js";
import { type CliIo, printReply } from "./terminal-io.js";

/** What the doctor needs: the home, and how to look up secrets. */
export interface DoctorOptions {
  home: string;
  secret: (name: string) => string | undefined;
  /** The environment (Hermes' lock directory: `HERMES_GATEWAY_LOCK_DIR`, `XDG_STATE_HOME`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** Removes copies of `.env` / `config.yaml` that killed writes left behind (they may hold secrets). */
async function writeTempChecks(home: string): Promise<Check[]> {
  const removed = await removeAbandonedWriteTemps(home).catch(() => [] as string[]);
  if (removed.length === 0) return [];
  return [
    warnText(
      "home",
      t("doctor.tempsRemoved", { count: removed.length, files: list(removed) }),
      t("doctor.tempsRemoved.fix"),
    ),
  ];
}

/** Runs every check; never throws. */
export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  const checks: Check[] = [];
  const paths = homePaths(options.home);
  const homeStat = await fs.stat(options.home).catch(() => undefined);
  if (!homeStat?.isDirectory()) {
    checks.push(failText("home", t("doctor.noHome", { home: options.home }), t("doctor.noHome.fix")));
    return checks;
  }
  checks.push(okText("home", t("doctor.home", { home: options.home })));
  checks.push(...(await writeTempChecks(options.home)));
  const read = await readConfig(paths);
  checks.push(...read.checks);
  const config = read.config;
  if (!config) return checks;
  checks.push(...configChecks(config));
  checks.push(...(await libraryChecks(options.home, config)));
  if (config.gateway.coordination)
    checks.push(...(await coordinationChecks(config.gateway.coordination.redisUrl)));
  // A platform's secrets are read under skillgate's own names first, as `serve` reads them.
  const secret = preferOwnSecrets(options.secret);
  // A bot Hermes' running gateway holds is not started by `serve`, and not checked against the platform.
  const held = botsHeldByHermes({ config, home: options.home, secret: options.secret, env: options.env });
  for (const bot of held) checks.push(warnText(bot.platform, hermesHoldSummary(bot), hermesHoldFix(bot)));
  // A platform with some of its secrets set is checked too: the check names the missing one.
  const platforms = PLATFORMS.filter(
    (platform) =>
      config.gateway.platforms[platform.name]?.enabled === true &&
      platform.secrets.some((name) => secret(name) !== undefined) &&
      !held.some((bot) => bot.platform === platform.name),
  );
  if (platforms.length === 0 && held.length === 0)
    checks.push(warnText("config", t("doctor.noPlatform"), t("doctor.noPlatform.fix")));
  const adapterOptions: AdapterOptions = {
    config,
    home: options.home,
    secret,
    logger: createLogger({ level: "silent" }),
  };
  for (const platform of platforms) {
    try {
      checks.push(...(await diagnose(platform, adapterOptions)));
    } catch (error) {
      checks.push(
        failText(
          platform.name,
          t("doctor.checkFailed", { cause: errorCause(error) }),
          t("doctor.checkFailed.fix"),
        ),
      );
    }
  }
  return checks;
}

async function diagnose(platform: PlatformDefinition, options: AdapterOptions): Promise<Check[]> {
  if (!platform.diagnose) return [okText(platform.name, t("doctor.noPlatformChecks"))];
  return platform.diagnose(options);
}

const CONFIG_FIX = t("doctor.config.fix");

/**
 * Reads config.yaml and .env and reports every problem in them at once, each with its line and column:
 * a syntax error, each wrong value (the rest of the checks then run with those values at their
 * defaults), each key skillgate does not know in its own sections, and the mistakes `lintHome` looks for.
 */
async function readConfig(paths: {
  config: string;
  env: string;
}): Promise<{ checks: Check[]; config?: SkillgateConfig }> {
  const file = paths.config;
  let text: string | undefined;
  let mtimeMs = 0;
  try {
    text = await fs.readFile(file, "utf8");
    mtimeMs = (await fs.stat(file)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      return {
        checks: [
          failText(
            "config",
            t("doctor.config.unreadable", { file, cause: errorCause(error) }),
            t("doctor.config.unreadable.fix"),
          ),
        ],
      };
  }
  const envText = await fs.readFile(paths.env, "utf8").catch(() => undefined);
  const found = lintHome({ configText: text, envText, envMode: fileMode(paths.env) });
  const checks: Check[] = found.findings.map((finding) =>
    finding.level === "error"
      ? failText("config", findingText(finding), finding.fix ?? CONFIG_FIX)
      : warnText("config", findingText(finding), finding.fix ?? CONFIG_FIX),
  );
  if (checks.length === 0)
    checks.push(
      okText(
        "config",
        text === undefined ? t("doctor.config.none", { file }) : t("doctor.config.valid", { file }),
      ),
    );
  return { checks, config: found.config ? { ...found.config, mtimeMs } : undefined };
}

function configChecks(config: SkillgateConfig): Check[] {
  const checks: Check[] = [];
  for (const warning of config.warningTexts)
    checks.push(warnText("config", warning, t("doctor.config.warning.fix")));
  const remote = config.gateway.admins.filter((id) => !id.startsWith("console:"));
  if (remote.length === 0) checks.push(warnText("config", t("doctor.noAdmins"), t("doctor.noAdmins.fix")));
  return checks;
}

/**
 * `gateway.coordination`: the Redis URL answers, its server is recent enough, evicts nothing and lets
 * this user run what coordination needs (else a failure, as `serve` refuses it); what a restart would
 * lose is a warning.
 */
async function coordinationChecks(url: string): Promise<Check[]> {
  const { checkServer, connectRedis, serverVersion, redactUrl } = await import(
    "../gateway/coordination/redis.js"
  );
  try {
    const client = await connectRedis(url);
    try {
      const version = serverVersion(await client.info("server")) ?? "unknown";
      const warnings = await checkServer(client, url);
      return [
        okText("coordination", t("doctor.redis", { url: redactUrl(url), version })),
        ...warnings.map((warning) => warnText("coordination", warning.text, warning.fix)),
      ];
    } finally {
      client.destroy();
    }
  } catch (error) {
    const unsafe = (error as { code?: string }).code === "coordination.unsafe";
    return [
      failText(
        "coordination",
        errorCause(error),
        unsafe ? t("doctor.redis.unsafe.fix") : t("doctor.redis.fix"),
      ),
    ];
  }
}

async function libraryChecks(home: string, config: SkillgateConfig): Promise<Check[]> {
  const library = openLibrary(home, config);
  try {
    const skills = await library.all();
    if (skills.length === 0) return [warnText("home", t("doctor.noSkills"), t("doctor.noSkills.fix"))];
    return [okText("home", t("doctor.skills", { count: skills.length }))];
  } catch (error) {
    return [
      failText(
        "home",
        t("doctor.libraryUnreadable", { cause: errorCause(error) }),
        t("doctor.libraryUnreadable.fix"),
      ),
    ];
  } finally {
    library.close?.();
  }
}

/** An area's name as the reader sees it (the platforms' names stay as they are). */
const AREA_WORDS: Record<string, Text> = {
  home: t("doctor.area.home"),
  config: t("doctor.area.config"),
  coordination: t("doctor.area.coordination"),
};

/** The doctor's findings as a reply: a table, the fixes, and exit 1 when something failed. */
export function doctorReply(checks: Check[]): Reply {
  const failures = checks.filter((check) => check.status === "fail").length;
  const warnings = checks.filter((check) => check.status === "warn").length;
  const mark: Record<Check["status"], Text> = {
    ok: t("doctor.mark.ok"),
    warn: t("doctor.mark.warn"),
    fail: t("doctor.mark.fail"),
  };
  const area = (check: Check): Text => AREA_WORDS[check.area] ?? check.area;
  const fixes = checks.flatMap((check) => {
    const fix = checkText(check).fix;
    return fix ? [t("doctor.fixLine", { area: area(check), fix })] : [];
  });
  return reply(
    [
      { kind: "heading", text: "skillgate doctor" },
      {
        kind: "table",
        headers: ["", t("doctor.col.area"), t("doctor.col.finding")],
        rows: checks.map((check) => [mark[check.status], area(check), checkText(check).summary]),
      },
      ...(fixes.length > 0
        ? [
            { kind: "heading" as const, text: t("doctor.howToFix") },
            { kind: "list" as const, items: fixes },
          ]
        : []),
      {
        kind: "paragraph",
        text:
          failures > 0
            ? t("doctor.tally.problems", { problems: failures, warnings })
            : warnings > 0
              ? t("doctor.tally.warnings", { count: warnings })
              : t("doctor.tally.fine"),
      },
    ],
    { exitCode: failures > 0 ? 1 : 0, json: { ok: failures === 0, checks } },
  );
}

/** `skillgate doctor` on the terminal: every check, printed with its fix; exit 1 when one failed. */
export async function doctorOnTerminal(home: string, json: boolean, io: CliIo): Promise<number> {
  const dotenv = readDotenv(homePaths(home).env);
  const checks = await runDoctor({ home, secret: (name) => lookupSecret(name, dotenv, io.env), env: io.env });
  const answer = doctorReply(checks);
  printReply(answer, json, io, true);
  return answer.exitCode;
}
