/**
 * `skillgate doctor`: checks the home, config.yaml and, for each enabled platform, what can be verified
 * against the platform from here (token, bot identity, how events arrive, command registration,
 * intents). Every problem comes with its fix; `--json` prints the checks as one document. The exit code
 * is 1 when a check failed.
 */
import { promises as fs } from "node:fs";
import YAML from "yaml";
import { PLATFORMS } from "../../adapters/index.js";
import { checkConfigDocument } from "../config/check.js";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { removeAbandonedWriteTemps } from "../config/write-temps.js";
import { yamlErrorCause } from "../config/yaml11.js";
import { type Check, checkText, failText, okText, warnText } from "../core/diagnostics.js";
import { errorCause } from "../core/errors.js";
import { list, type Text, t } from "../core/i18n/messages.js";
import { createLogger } from "../core/logger.js";
import type { AdapterOptions, PlatformDefinition } from "../core/platforms.js";
import { type Reply, reply } from "../core/reply.js";
import { openLibrary } from "../skills/library.js";

/** What the doctor needs: the home, and how to look up secrets. */
export interface DoctorOptions {
  home: string;
  secret: (name: string) => string | undefined;
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
  const read = await readConfig(paths.config);
  checks.push(...read.checks);
  const config = read.config;
  if (!config) return checks;
  checks.push(...configChecks(config));
  checks.push(...(await libraryChecks(options.home, config)));
  if (config.gateway.coordination) checks.push(await coordinationCheck(config.gateway.coordination.redisUrl));
  // A platform with some of its secrets set is checked too: the check names the missing one.
  const platforms = PLATFORMS.filter(
    (platform) =>
      config.gateway.platforms[platform.name]?.enabled === true &&
      platform.secrets.some((name) => options.secret(name) !== undefined),
  );
  if (platforms.length === 0)
    checks.push(warnText("config", t("doctor.noPlatform"), t("doctor.noPlatform.fix")));
  const adapterOptions: AdapterOptions = {
    config,
    home: options.home,
    secret: options.secret,
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
 * Reads config.yaml and reports every problem in it: a syntax error, each wrong value (the rest of the
 * checks then run with those values at their defaults) and each key skillgate does not know in its own
 * sections, with the key it probably meant.
 */
async function readConfig(file: string): Promise<{ checks: Check[]; config?: SkillgateConfig }> {
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
  let document: unknown = {};
  if (text !== undefined) {
    try {
      document = YAML.parse(text.replace(/^\uFEFF/, ""));
    } catch (error) {
      return {
        checks: [
          failText(
            "config",
            t("doctor.config.yaml", { file, detail: yamlErrorCause(error) }),
            t("doctor.config.yaml.fix"),
          ),
        ],
      };
    }
  }
  const found = checkConfigDocument(document);
  const checks: Check[] = found.errors.map((error) => failText("config", error.text, CONFIG_FIX));
  for (const { key, suggestion } of found.unknown)
    checks.push(
      suggestion
        ? warnText(
            "config",
            t("doctor.config.unknownSuggest", { key, suggestion }),
            t("doctor.config.unknownSuggest.fix", { key, suggestion }),
          )
        : warnText("config", t("doctor.config.unknown", { key }), t("doctor.config.unknown.fix", { key })),
    );
  if (found.config?.skills.visibilityError)
    checks.push(failText("config", found.config.skills.visibilityError.text, CONFIG_FIX));
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

/** `gateway.coordination`: the Redis URL answers and its server is recent enough. */
async function coordinationCheck(url: string): Promise<Check> {
  const { connectRedis, serverVersion, redactUrl } = await import("../gateway/coordination/redis.js");
  try {
    const client = await connectRedis(url);
    try {
      const version = serverVersion(await client.info("server")) ?? "unknown";
      return okText("coordination", t("doctor.redis", { url: redactUrl(url), version }));
    } finally {
      client.destroy();
    }
  } catch (error) {
    return failText("coordination", errorCause(error), t("doctor.redis.fix"));
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
