/**
 * What the completeness tests share: a chat context on a home, everything a person reads of a reply,
 * the allow-list of words that stay as they are in every language, the "English left" detector and the
 * pattern of a raw catalog key. Used by `commands-complete.test.ts` (a healthy generated home) and
 * `damaged-complete.test.ts` (a damaged one). Also the built CLI run under a `LANG`, for the tests of
 * the command line's own output.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";
import { terminalContext } from "../../commands/context.js";
import { registry } from "../../commands/index.js";
import type { CommandContext } from "../../commands/types.js";
import { loadConfig } from "../../src/config/config.js";
import type { Locale } from "../../src/core/i18n/locale.js";
import { messageKeys, resolveText } from "../../src/core/i18n/messages.js";
import { type Reply, replyToPlainText } from "../../src/core/reply.js";
import { openLibrary } from "../../src/skills/library.js";
import { type ChildOutput, outputOf } from "../support/child-output.js";

/** The command paths as they are typed (`/skills list`, `skillgate curator status`), longest first. */
const COMMAND_PATHS = new RegExp(
  `(?:/|\\bskillgate )(?:${registry
    .map((spec) => spec.path.join(" "))
    .sort((a, b) => b.length - a.length)
    .map((words) => words.replace(/[-]/g, "\\-"))
    .join("|")})(?![\\w-])`,
  "g",
);

/** Words that stay as they are in every language: names, commands, keys, paths, units, ids. */
export const ALLOWED: RegExp[] = [
  /`[^`]*`/g, // code spans: commands, keys, values
  COMMAND_PATHS, // commands as typed, in usage lines and hints
  /\bskillgate (?:serve|init|doctor|secrets set|secrets|console)\b/g, // the CLI's own commands
  /(?<=子命令：)[\w-]+(?:、[\w-]+)*/g, // the subcommands a usage error offers, as typed
  /"[^"\n]*"|'[^'\n]*'/g, // quoted values and names: data as it was written
  /\b(?:skills|gateway|curator|config|platform|metadata)[\w.<>:-]*\.[\w.<>{}-]+/g, // config keys
  /\b[a-z][a-z0-9]*:\/\/\S+/g, // URLs: https://…, redis://…
  /@\w+|\b[a-z][\w-]*\.(?:com|cn|org|net|io|local)\b/g, // bot handles (@SkillgateBot), domains (larksuite.com)
  /\b[\w<>-]+(?:\/[\w<>.-]*)+/g, // relative paths and hub sources: owner/repo/path/to/skill, references/
  /(?:~|\/)[\w./+-]+/g, // paths
  /\b[\w-]+\.(?:yaml|md|env|json|lock)\b|\.env\b|\.archive\/\S+|\.tar\.gz\b/g, // file names
  /(?<![\w.])\.[A-Za-z_][\w.-]*/g, // dot files: .bundled_manifest, .curator_state.corrupt-…
  /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, // identifiers: tool names (skill_view), keys (replica_id)
  /(?<![\w-])--?[a-z][\w-]*(?:\s+(?:N|VALUE|activity\|recent\|name))?/g, // flags and their value words
  /<[\w.]+(?:\.\.\.)?>|\[[\w.]+(?:\.\.\.)?\]/g, // placeholders in usage lines: <name>, <query...>, [file]
  /\$?\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g, // environment variable names
  /\b(?:UTC|GMT(?:[+-]\d{1,2}(?::\d{2})?)?)\b/g, // zone names in dates
  /（Curator）/g, // the curator's English name beside its Chinese one, as the seeds bridge it
  /\b\d{8}T\d{6}Z?[\w-]*\b|\b\d{4}-\d{2}-\d{2}[T\d:.Z-]*/g, // snapshot ids, timestamps
  /\b[0-9a-f]{12}\b/g, // ledger entry ids
  // Ledger actor and action ids (columns of the ledger table).
  /\b(?:curator|web)(?= {2,})/g,
  /\b(?:archive|restore|snapshot-rollback|rollback|skills-config-set|skills-enable|skills-disable|purge|pin|unpin|adopt|consolidate|pruned?|state)\b/g,
  /\b(?:skillgate|Hermes|LLM|JSON|PATH|Hub|GitHub|URL|https|CLI|API|clawhub|YAML|Redis|Valkey|[Ww]ebhook|lark|KB|MB|GB|B|MiB|KiB|UTF-8|NUL|tar|id|pid|cron|telegram|feishu|discord|console|created_by:\w+|true|false|metric|units|api_token|manual|test|user|agent|archived_at|hermes|ok)\b/g,
  /\b(?:ENOENT|EACCES|EPERM|EISDIR|ENOTDIR|EEXIST|ENOTEMPTY|ENOSPC|EROFS|ELOOP|EMFILE|EBUSY|EXDEV|EIO|ENAMETOOLONG|Z_BUF_ERROR|Z_DATA_ERROR|TAR_BAD_ARCHIVE|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EADDRINUSE|EADDRNOTAVAIL)\b/g, // system error codes
];

/** Every English word left in `text` once names and the allow-list are removed, "(s)" included. */
export function englishWords(text: string, names: readonly string[]): string[] {
  let rest = text;
  for (const name of [...names].sort((a, b) => b.length - a.length)) rest = rest.split(name).join(" ");
  for (const pattern of ALLOWED) rest = rest.replace(pattern, " ");
  return rest.match(/\(s\)|(?<![A-Za-z])[A-Za-z]{2,}(?:[\s,'’-]+[A-Za-z]{2,})*/g) ?? [];
}

/** The first English word (or run of words) left in `text`, or null: single words and "(s)" count. */
export function englishLeft(text: string, names: readonly string[]): string | null {
  return englishWords(text, names)[0] ?? null;
}

/** Everything a person reads of a reply: blocks, warnings, buttons, the question above buttons. */
export function shown(value: Reply, locale: Locale): string {
  const labels = (value.actions?.rows ?? []).flat().map((action) => resolveText(action.label, locale));
  const above = (value.actions?.blocksWithButtons ?? []).map((block) =>
    "text" in block && typeof block.text !== "undefined" ? resolveText(block.text, locale) : "",
  );
  return [replyToPlainText(value, locale), ...labels, ...above].join("\n");
}

/** A raw catalog key left in a text. */
export const KEY_PATTERN = new RegExp(
  `(?:^|[^\\w.])(?:${messageKeys()
    .map((key) => key.replace(/\./g, "\\."))
    .join("|")})(?![\\w.])`,
);

/** A chat context on `target` for `caller` (an admin unless told), answering buttons in one step. */
export function chatOn(target: string, admin: boolean, now: Date, stranger = false): CommandContext {
  const config = loadConfig(path.join(target, "config.yaml"));
  const base = terminalContext({
    home: target,
    config,
    library: openLibrary(target, config, { watch: false }),
    now: () => now,
  });
  return {
    ...base,
    surface: "chat",
    platform: "telegram",
    interactive: false,
    prompt: undefined,
    answersInOneStep: true,
    commandPrefix: (words) => `/${words.join(" ")}`,
    caller: { platform: "telegram", id: stranger ? "999" : admin ? "1" : "2", name: "x", isAdmin: admin },
    chatId: "1",
  };
}

/** A reply a completeness suite checks, labelled with what produced it. */
export interface LabelledReply {
  label: string;
  reply: Reply;
}

/**
 * The two tests every reply of a completeness suite passes: in zh-CN no English word is left outside
 * `dataStrings` (and Chinese is what is shown); in en no catalog key, placeholder or unresolved object.
 * A failure quotes the first `excerpt` characters of the reply.
 */
export function itIsCompleteInBothLocales(
  cases: readonly LabelledReply[],
  dataStrings: () => string[],
  excerpt: number,
): void {
  it("zh-CN: no English word is left outside names, commands, keys and paths", () => {
    const left = cases.flatMap((item) => {
      const text = shown(item.reply, "zh-CN");
      const found = englishWords(text, dataStrings());
      return found.length > 0
        ? [`${item.label}: «${found.join("», «")}» in ${JSON.stringify(text.slice(0, excerpt))}`]
        : [];
    });
    expect(left).toEqual([]);
    // Chinese is what is shown, not just an absence of English.
    for (const item of cases) expect(shown(item.reply, "zh-CN"), item.label).toMatch(/[\u4e00-\u9fff]/);
  });

  it("en: no catalog key, placeholder or unresolved object is left", () => {
    for (const item of cases) {
      let text = shown(item.reply, "en");
      for (const data of dataStrings()) text = text.split(data).join(" ");
      expect(text, item.label).not.toMatch(/\{[A-Za-z_]+\}/);
      expect(text, item.label).not.toContain("[object Object]");
      expect(text, item.label).not.toMatch(KEY_PATTERN);
      expect(text, item.label).not.toMatch(/[\u4e00-\u9fff]/);
    }
  });
}

/** The built CLI (`npm run build` first). */
export const CLI = path.resolve(import.meta.dirname, "../../dist/src/cli/main.js");

/** What a CLI child process printed, and how it ended. */
export type CliRun = ChildOutput;

/** `skillgate …args` as a child process under `lang` (stdin empty, logs silent, no color). */
export function runCli(args: string[], lang: string, timeoutMs = 60_000): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LANG: lang,
      NO_COLOR: "1",
      SKILLGATE_LOG_LEVEL: "silent",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return outputOf(child, { timeoutMs });
}

/** `text` is Chinese with no English sentence left outside `names` and the allow-list. */
export function expectChinese(text: string, names: readonly string[] = []): void {
  const left = englishLeft(text, names);
  expect(left, `«${left}» left in:\n${text}`).toBeNull();
  expect(text).toMatch(/[\u4e00-\u9fff]/);
}
