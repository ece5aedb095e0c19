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
import { type Check, failed, messageOf, ok, warn } from "../core/diagnostics.js";
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
    warn(
      "home",
      `Removed ${removed.length} leftover cop${removed.length === 1 ? "y" : "ies"} of .env or config.yaml from interrupted writes: ${removed.join(", ")}.`,
      "Nothing to do; an interrupted write never changes the file itself.",
    ),
  ];
}

/** Runs every check; never throws. */
export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  const checks: Check[] = [];
  const paths = homePaths(options.home);
  const homeStat = await fs.stat(options.home).catch(() => undefined);
  if (!homeStat?.isDirectory()) {
    checks.push(
      failed(
        "home",
        `The home ${options.home} does not exist.`,
        "Run `skillgate init --examples` to create it with example skills, point --home or HERMES_HOME at your Hermes home, or try `skillgate serve --demo`.",
      ),
    );
    return checks;
  }
  checks.push(ok("home", `Home: ${options.home}.`));
  checks.push(...(await writeTempChecks(options.home)));
  const read = await readConfig(paths.config);
  checks.push(...read.checks);
  const config = read.config;
  if (!config) return checks;
  checks.push(...configChecks(config));
  checks.push(...(await libraryChecks(options.home, config)));
  // A platform with some of its secrets set is checked too: the check names the missing one.
  const platforms = PLATFORMS.filter(
    (platform) =>
      config.gateway.platforms[platform.name]?.enabled === true &&
      platform.secrets.some((name) => options.secret(name) !== undefined),
  );
  if (platforms.length === 0)
    checks.push(
      warn(
        "config",
        "No chat platform has its token set: `skillgate serve` runs the terminal chat only.",
        "Follow docs/platforms/telegram.md, feishu.md or discord.md and put the tokens in <home>/.env.",
      ),
    );
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
        failed(
          platform.name,
          `The check itself failed: ${messageOf(error)}.`,
          "Report this as a skillgate bug.",
        ),
      );
    }
  }
  return checks;
}

async function diagnose(platform: PlatformDefinition, options: AdapterOptions): Promise<Check[]> {
  if (!platform.diagnose) return [ok(platform.name, "No checks against the platform are available.")];
  return platform.diagnose(options);
}

const CONFIG_FIX = "Fix it in config.yaml (deploy/config.example.yaml shows every setting).";

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
          failed("config", `${file} cannot be read: ${messageOf(error)}.`, "Check the file's permissions."),
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
          failed(
            "config",
            `${file} is not valid YAML: ${messageOf(error).split("\n")[0]}.`,
            "Fix the syntax at the line named (indentation, a missing `:` or quote).",
          ),
        ],
      };
    }
  }
  const found = checkConfigDocument(document);
  const checks: Check[] = found.errors.map((error) => failed("config", error.message, CONFIG_FIX));
  for (const unknown of found.unknown)
    checks.push(
      warn(
        "config",
        `config.yaml: \`${unknown.key}\` is not a setting skillgate knows${unknown.suggestion ? `; did you mean \`${unknown.suggestion}\`?` : "."}`,
        unknown.suggestion
          ? `Rename \`${unknown.key}\` to \`${unknown.suggestion}\` in config.yaml; as written it is ignored.`
          : `Remove \`${unknown.key}\` from config.yaml or check its spelling in deploy/config.example.yaml; as written it is ignored.`,
      ),
    );
  if (found.config?.skills.visibilityError)
    checks.push(failed("config", found.config.skills.visibilityError.message, CONFIG_FIX));
  if (checks.length === 0)
    checks.push(ok("config", text === undefined ? `No ${file}: defaults apply.` : `${file} is valid.`));
  return { checks, config: found.config ? { ...found.config, mtimeMs } : undefined };
}

function configChecks(config: SkillgateConfig): Check[] {
  const checks: Check[] = [];
  for (const warning of config.warnings)
    checks.push(warn("config", warning, "See deploy/config.example.yaml."));
  const remote = config.gateway.admins.filter((id) => !id.startsWith("console:"));
  if (remote.length === 0)
    checks.push(
      warn(
        "config",
        "gateway.admins is empty: nobody can change the library from chat.",
        "Message the bot once: it answers with your platform:id. Add it to gateway.admins in config.yaml.",
      ),
    );
  return checks;
}

async function libraryChecks(home: string, config: SkillgateConfig): Promise<Check[]> {
  const library = openLibrary(home, config);
  try {
    const skills = await library.all();
    if (skills.length === 0)
      return [
        warn(
          "home",
          "No skills in the library.",
          "`skillgate init --examples` installs example skills here; `skillgate serve --demo` tries them without touching this home.",
        ),
      ];
    return [ok("home", `${skills.length} skill(s) in the library.`)];
  } catch (error) {
    return [
      failed(
        "home",
        `The skill library could not be read: ${messageOf(error)}.`,
        "Check the permissions of <home>/skills.",
      ),
    ];
  } finally {
    library.close?.();
  }
}

/** The doctor's findings as a reply: a table, the fixes, and exit 1 when something failed. */
export function doctorReply(checks: Check[]): Reply {
  const failures = checks.filter((check) => check.status === "fail").length;
  const warnings = checks.filter((check) => check.status === "warn").length;
  const mark: Record<Check["status"], string> = { ok: "ok", warn: "WARN", fail: "FAIL" };
  const fixes = checks.filter((check) => check.fix).map((check) => `${check.area}: ${check.fix}`);
  return reply(
    [
      { kind: "heading", text: "skillgate doctor" },
      {
        kind: "table",
        headers: ["", "area", "finding"],
        rows: checks.map((check) => [mark[check.status], check.area, check.summary]),
      },
      ...(fixes.length > 0
        ? [
            { kind: "heading" as const, text: "How to fix" },
            { kind: "list" as const, items: fixes },
          ]
        : []),
      {
        kind: "paragraph",
        text:
          failures > 0
            ? `${failures} problem(s), ${warnings} warning(s).`
            : warnings > 0
              ? `No problems; ${warnings} warning(s).`
              : "Everything checked is fine.",
      },
    ],
    { exitCode: failures > 0 ? 1 : 0, json: { ok: failures === 0, checks } },
  );
}
