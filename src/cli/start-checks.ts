/**
 * What the CLI checks at start before a command runs: that the home is writable, every error of
 * config.yaml listed at once, `serve --set` values validated, and repairs of what a crash left behind.
 */
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { validateOverrides } from "../config/check.js";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { type ConfigFinding, type ConfigLint, fileMode, findingText, lintHome } from "../config/lint.js";
import { type ConfigOverride, parseOverride } from "../config/overrides.js";
import { parseYaml11 } from "../config/yaml11.js";
import { type ConfigError, errorCause } from "../core/errors.js";
import { localeFromEnv } from "../core/i18n/locale.js";
import { join, resolveText, type Text, t } from "../core/i18n/messages.js";
import { mayNeedRecovery, recoverHome } from "../curator/recovery.js";
import type { CliIo } from "./terminal-io.js";

/** Most recovery notes printed on the terminal; the rest are counted (the ledger has them all). */
export const RECOVERY_NOTES_SHOWN = 20;

/**
 * Repairs what a crash left in the home before any command touches it (see `curator/recovery.ts`; its
 * repair code is loaded only when the cheap look finds something).
 */
export async function recoverAtStart(home: string, config: SkillgateConfig, io: CliIo): Promise<void> {
  const say = (text: Text) => io.stderr.write(`${resolveText(text, localeFromEnv(io.env))}\n`);
  try {
    if (!mayNeedRecovery(home)) return;
    const notes = await recoverHome(home, config, { atStart: true });
    for (const note of notes.slice(0, RECOVERY_NOTES_SHOWN)) say(note);
    if (notes.length > RECOVERY_NOTES_SHOWN)
      say(t("cli.recovery.more", { count: notes.length - RECOVERY_NOTES_SHOWN }));
  } catch (error) {
    say(t("cli.recovery.failed", { cause: errorCause(error) }));
  }
}

/**
 * Why this process cannot write in `home` (an existing folder, or the nearest existing one above it),
 * naming its uid and the `chown` that fixes it — instead of an EACCES stack later (a bind mount owned by
 * another uid, a home created by root). Undefined when it can write there.
 */
export function unwritableHome(home: string): Text | undefined {
  let dir = path.resolve(home);
  while (!existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return undefined;
  } catch {
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    return t("cli.homeNotWritable", { dir, uid, chown: `chown -R ${uid}:${gid} ${dir}` });
  }
}

/** config.yaml and .env of `home` as `doctor` checks them. */
export function lintHomeFiles(home: string): ConfigLint {
  const paths = homePaths(home);
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
  };
  const envText = read(paths.env);
  return lintHome({ configText: read(paths.config), envText, envMode: fileMode(paths.env) });
}

/**
 * Every error of config.yaml, each with its line and column (as `doctor` lists them), for a start that
 * `error` stopped; `error` itself comes first when the file does not hold it (a `serve --set` value).
 */
export function everyConfigError(home: string, error: ConfigError): Text {
  let errors: ConfigFinding[];
  try {
    errors = lintHomeFiles(home).findings.filter((finding) => finding.level === "error");
  } catch {
    return error.text;
  }
  if (errors.length === 0) return error.text;
  const texts = errors.map(findingText);
  return join(errors.some((finding) => finding.key === error.key) ? texts : [error.text, ...texts], "\n");
}

/** Parses and validates `serve --set` values against the home's config.yaml (throws `ConfigError`). */
export function checkedOverrides(home: string, texts: readonly string[]): ConfigOverride[] {
  if (texts.length === 0) return [];
  const overrides = texts.map(parseOverride);
  let text = "";
  try {
    text = readFileSync(homePaths(home).config, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  let document: unknown;
  try {
    document = text.trim() === "" ? {} : parseYaml11(text);
  } catch {
    return overrides; // loading the file reports what is wrong with it
  }
  validateOverrides(overrides, document);
  return overrides;
}
