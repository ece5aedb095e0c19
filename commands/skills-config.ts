/**
 * `skills disable|enable <name> [--platform P]`, `skills config [<name>]` and `skills config set <key>
 * <value>`: the commands that change config.yaml. Each edit goes through `config/edit.ts` (only the
 * changed node's bytes, atomic, refused on a concurrent change), is confirmed first, and is recorded in
 * the ledger — a secret setting's value never is. In chat they are for admins; a secret setting cannot be
 * set from a chat message at all (it would sit in the chat history).
 */

import { edgeWhitespace } from "../src/config/dotenv-write.js";
import { type ConfigChange, editConfigFile } from "../src/config/edit.js";
import { yamlScalarText } from "../src/config/yaml11.js";
import { list, type Text, t } from "../src/core/i18n/messages.js";
import { referencePlatforms } from "../src/core/platforms.js";
import { errorReply, type Reply, type ReplyBlock, reply } from "../src/core/reply.js";
import { appendEntry } from "../src/curator/ledger.js";
import {
  resolveSettings,
  type SettingDeclaration,
  settingDeclarations,
  settingKeyProblem,
} from "../src/skills/settings.js";
import type { SkillEntry } from "../src/skills/types.js";
import { findSkillByChatName } from "./chat.js";
import { isSecretSettingKey, settingLines } from "./readiness-view.js";
import {
  type CommandContext,
  type CommandInput,
  type CommandSpec,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

const VISIBILITY_OPTIONS = [
  {
    name: "platform",
    kind: "string",
    description: t("cmd.option.visibility.platform"),
  },
] as const satisfies readonly OptionSpec[];

type VisibilityInput = CommandInput<OptionValues<typeof VISIBILITY_OPTIONS>>;

function targetPlatform(input: VisibilityInput): string | null {
  const value = input.options.platform?.trim();
  return value ? value.toLowerCase() : null;
}

function listPath(platform: string | null): string[] {
  return platform ? ["skills", "platform_disabled", platform] : ["skills", "disabled"];
}

function listLabel(platform: string | null): string {
  return platform ? `skills.platform_disabled.${platform}` : "skills.disabled";
}

/** `everywhere` or `on telegram`. */
function whereText(platform: string | null): Text {
  return platform ? t("cmd.config.onPlatform", { platform }) : t("cmd.config.everywhere");
}

/** The current config.yaml as the library reads it (it notices edits by mtime). */
function liveConfig(ctx: CommandContext) {
  const library = ctx.library as { currentConfig?: () => CommandContext["config"] };
  return library.currentConfig?.() ?? ctx.config;
}

async function skillNamed(ctx: CommandContext, typed: string): Promise<SkillEntry | undefined> {
  return findSkillByChatName(ctx, typed.trim());
}

function checkPlatform(platform: string | null): Reply | null {
  const known = referencePlatforms();
  // A platform not running here may still be configured later; any well-formed name is accepted.
  if (platform === null || known.includes(platform) || /^[a-z][a-z0-9_-]{0,31}$/.test(platform)) return null;
  return errorReply(t("cmd.config.badPlatform", { platform, known: list(known) }), 2);
}

async function record(
  ctx: CommandContext,
  action: string,
  skill: string,
  evidence: Record<string, unknown>,
): Promise<void> {
  const by = ctx.caller ? `${ctx.caller.platform}:${ctx.caller.id}` : "terminal";
  try {
    await appendEntry(ctx.home, liveConfig(ctx), {
      actor: "user",
      action,
      skill,
      evidence: { ...evidence, by, file: "config.yaml" },
      before: [],
      after: [],
    });
  } catch {
    // The ledger fails open: the change is made; a broken audit file must not undo it.
  }
}

async function changeVisibility(
  ctx: CommandContext,
  input: VisibilityInput,
  disable: boolean,
): Promise<Reply> {
  const typed = input.args[0] ?? "";
  const platform = targetPlatform(input);
  const bad = checkPlatform(platform);
  if (bad) return bad;
  const entry = await skillNamed(ctx, typed);
  const name = entry?.name ?? typed.trim();
  if (!entry && disable) {
    return errorReply(
      t("cmd.config.noSkillNames", { name: typed, command: ctx.commandPrefix(["skills", "list"]) }),
    );
  }
  const change: ConfigChange = {
    kind: disable ? "add-to-list" : "remove-from-list",
    path: listPath(platform),
    value: name,
  };
  const result = await editConfigFile(ctx.home, change);
  ctx.library.invalidate();
  const where = whereText(platform);
  const blocks: ReplyBlock[] = [];
  if (!result.changed) {
    blocks.push({
      kind: "paragraph",
      text: t(disable ? "cmd.config.alreadyIn" : "cmd.config.notIn", { name, list: listLabel(platform) }),
    });
  } else {
    await record(ctx, disable ? "skills-disable" : "skills-enable", name, {
      list: listLabel(platform),
      platform,
    });
    blocks.push({
      kind: "paragraph",
      text: disable
        ? t("cmd.config.disabled", { name, where, list: listLabel(platform) })
        : t("cmd.config.removed", { name, list: listLabel(platform) }),
    });
  }
  if (!disable) {
    const config = liveConfig(ctx);
    const still: Text[] = [];
    if (platform && config.skills.disabled.map((item) => item.trim()).includes(name))
      still.push(t("cmd.config.stillEverywhere"));
    if (!platform) {
      for (const [other, names] of Object.entries(config.skills.platformDisabled)) {
        if (names.map((item) => item.trim()).includes(name)) still.push(`skills.platform_disabled.${other}`);
      }
    }
    if (still.length > 0) {
      blocks.push({
        kind: "paragraph",
        text: t("cmd.config.stillDisabled", {
          lists: list(still),
          command: `${ctx.commandPrefix(["skills", "enable"])} ${name}${platform ? "" : " --platform <platform>"}`,
        }),
      });
    }
  }
  return reply(blocks, {
    json: {
      ok: true,
      changed: result.changed,
      skill: name,
      platform,
      list: listLabel(platform),
      disabled: disable,
    },
  });
}

/** Declared settings of every skill (first declaration of a key wins), with the skills declaring them. */
async function declaredSettings(
  ctx: CommandContext,
): Promise<{ declarations: Map<string, SettingDeclaration>; owners: Map<string, string[]> }> {
  const declarations = new Map<string, SettingDeclaration>();
  const owners = new Map<string, string[]>();
  for (const entry of await ctx.library.all()) {
    for (const declaration of settingDeclarations(entry.frontmatter)) {
      if (!declarations.has(declaration.key)) declarations.set(declaration.key, declaration);
      owners.set(declaration.key, [...(owners.get(declaration.key) ?? []), entry.name]);
    }
  }
  return { declarations, owners };
}

async function showConfig(ctx: CommandContext, input: CommandInput): Promise<Reply> {
  const [first, key, ...rest] = input.args;
  if (first === "set") return setConfig(ctx, key, rest.join(" "));
  const config = liveConfig(ctx);
  const skills: SkillEntry[] = [];
  if (first !== undefined) {
    const entry = await skillNamed(ctx, first);
    if (!entry)
      return errorReply(
        t("cmd.config.noSkill", { name: first, command: ctx.commandPrefix(["skills", "list"]) }),
      );
    skills.push(entry);
  } else {
    skills.push(
      ...(await ctx.library.all()).filter((entry) => settingDeclarations(entry.frontmatter).length > 0),
    );
  }
  const blocks: ReplyBlock[] = [
    { kind: "heading", text: first ? t("cmd.config.headingOf", { name: first }) : t("cmd.config.heading") },
  ];
  const json: Record<string, unknown>[] = [];
  for (const entry of skills) {
    const settings = resolveSettings(settingDeclarations(entry.frontmatter), config.skills.settings);
    if (first === undefined)
      blocks.push({ kind: "paragraph", text: t("cmd.config.skillLine", { name: entry.name }) });
    if (settings.length === 0) {
      blocks.push({
        kind: "paragraph",
        text: t("cmd.config.noSettings", { name: entry.name }),
      });
    } else {
      blocks.push({ kind: "list", items: settingLines(settings) });
    }
    json.push({
      skill: entry.name,
      settings: settings.map((setting) => ({
        ...setting,
        value: isSecretSettingKey(setting.key) && setting.source !== "unset" ? "(hidden)" : setting.value,
      })),
    });
  }
  if (skills.length === 0) blocks.push({ kind: "paragraph", text: t("cmd.config.noneDeclared") });
  blocks.push({
    kind: "paragraph",
    text: t("cmd.config.changeOne", {
      command: `${ctx.commandPrefix(["skills", "config"])} set <key> <value>`,
    }),
  });
  return reply(blocks, { json: { ok: true, skills: json } });
}

/** What `skills config set` stores for a typed value, or why it cannot store it as typed. */
export type SettingValue =
  | { ok: true; value: string | number | bigint | boolean }
  | { ok: false; reason: Text };

/** A decimal's value as `<sign><digits>e<exponent>` without redundant zeros, to compare two spellings. */
function decimalKey(text: string): string {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:e([-+]?\d+))?$/i.exec(text);
  if (!match) return text;
  const [, sign = "", whole = "", fraction = "", exponent = "0"] = match;
  const digits = `${whole}${fraction}`.replace(/^0+/, "");
  if (digits === "") return "0";
  const trimmed = digits.replace(/0+$/, "");
  return `${sign}${trimmed}e${Number(exponent) - fraction.length + (digits.length - trimmed.length)}`;
}

/**
 * Reads a typed value as config.yaml will hold it: `true`/`false` as booleans; whole numbers written the
 * way they print (`12`, `-7`, not `017` or `+3`) as integers of any size (PyYAML keeps them exact; beyond
 * ±2^53 they are a `bigint` here); a decimal such as `-0.5` as a number, refused when it has more digits
 * than a number keeps (it would be read back as another value); anything else — `yes`, `0x1f`, `1_000`,
 * `1e5`, `.inf`, `12:30` — as the text typed (written quoted, so YAML 1.1 does not read it as a number or
 * a boolean). A value typed in double quotes (`'"0017"'`) is the text inside them, whatever it looks like.
 */
export function settingValue(raw: string): SettingValue {
  if (/^".*"$/s.test(raw)) {
    try {
      const text: unknown = JSON.parse(raw);
      if (typeof text === "string") return { ok: true, value: text };
    } catch {
      // Not one JSON string: the text as typed, quotes included.
    }
  }
  if (raw === "true" || raw === "false") return { ok: true, value: raw === "true" };
  if (/^-?(?:0|[1-9]\d*)$/.test(raw) && raw !== "-0") {
    const number = Number(raw);
    return { ok: true, value: Number.isSafeInteger(number) ? number : BigInt(raw) };
  }
  if (/^-?(?:0|[1-9]\d*)\.\d*[1-9]$/.test(raw)) {
    const number = Number(raw);
    if (Number.isFinite(number) && decimalKey(String(number)) === decimalKey(raw))
      return { ok: true, value: number };
    return {
      ok: false,
      reason: t("cmd.config.inexact", {
        value: raw,
        stored: yamlScalarText(number),
        text: `'${JSON.stringify(raw)}'`,
      }),
    };
  }
  return { ok: true, value: raw };
}

/** A value for JSON: an integer beyond ±2^53 as its exact digits (a JSON number would be rounded). */
function jsonValue(value: string | number | bigint | boolean): string | number | boolean {
  return typeof value === "bigint" ? value.toString() : value;
}

async function setConfig(ctx: CommandContext, key: string | undefined, raw: string): Promise<Reply> {
  if (!key || raw.trim() === "") {
    return errorReply(
      t("cmd.config.usage", { command: `${ctx.commandPrefix(["skills", "config"])} set <key> <value>` }),
      2,
    );
  }
  const { declarations, owners } = await declaredSettings(ctx);
  const declaration = declarations.get(key);
  const problem = declaration ? null : settingKeyProblem(key);
  if (problem) return errorReply(t("setting.refused", { key, reason: problem }), 2);
  if (!declaration) {
    const known = [...declarations.keys()].sort();
    return errorReply(
      known.length > 0
        ? t("cmd.config.undeclared", { key, known: list(known.map((item) => `\`${item}\``)) })
        : t("cmd.config.undeclaredNone", { key }),
      2,
    );
  }
  const secret = isSecretSettingKey(key);
  if (secret && ctx.surface === "chat") {
    return errorReply(
      t("cmd.config.secretInChat", { key, command: `skillgate skills config set ${key} <value>` }),
    );
  }
  // Taken exactly or refused: whitespace at either end would be stored as part of the value.
  const edges = edgeWhitespace(raw);
  if (edges) return errorReply(t("value.edgeWhitespace", { chars: edges }), 2);
  const typed = settingValue(raw);
  if (!typed.ok) return errorReply(typed.reason, 2);
  const value = typed.value;
  const result = await editConfigFile(ctx.home, {
    kind: "set",
    path: ["skills", "config", ...key.split(".")],
    value,
  });
  const skills = owners.get(key) ?? [];
  if (result.changed) {
    await record(ctx, "skills-config-set", skills[0] ?? key, {
      key,
      ...(secret ? { value_hidden: true } : { value: jsonValue(value) }),
      skills,
    });
  }
  // Shown as config.yaml holds it: text PyYAML would read as something else appears in its quotes.
  const shown: Text = secret ? t("cmd.config.hiddenValue") : `\`${yamlScalarText(value)}\``;
  return reply(
    [
      {
        kind: "paragraph",
        text: result.changed
          ? t("cmd.config.set", { key, value: shown, skills: list(skills) })
          : t("cmd.config.unchanged", { key, value: shown }),
      },
    ],
    {
      json: {
        ok: true,
        changed: result.changed,
        key,
        value: secret ? "(hidden)" : jsonValue(value),
        ...(secret ? {} : { stored: yamlScalarText(value) }),
        skills,
      },
    },
  );
}

/** The config-changing commands of the `skills` group. */
export const skillsConfigCommands: CommandSpec[] = [
  defineCommand({
    path: ["skills", "disable"],
    summary: t("cmd.summary.skillsDisable"),
    args: [{ name: "name", description: t("cmd.arg.theSkill"), required: true }],
    options: VISIBILITY_OPTIONS,
    mutating: true,
    confirm: async (_ctx, input) => {
      const platform = targetPlatform(input);
      return t("cmd.config.confirmDisable", {
        name: String(input.args[0]),
        where: whereText(platform),
        list: listLabel(platform),
      });
    },
    run: (ctx, input) => changeVisibility(ctx, input, true),
  }),
  defineCommand({
    path: ["skills", "enable"],
    summary: t("cmd.summary.skillsEnable"),
    args: [{ name: "name", description: t("cmd.arg.theSkill"), required: true }],
    options: VISIBILITY_OPTIONS,
    mutating: true,
    confirm: async (_ctx, input) => {
      const platform = targetPlatform(input);
      return t("cmd.config.confirmEnable", {
        name: String(input.args[0]),
        where: whereText(platform),
        list: listLabel(platform),
      });
    },
    run: (ctx, input) => changeVisibility(ctx, input, false),
  }),
  defineCommand({
    path: ["skills", "config"],
    summary: t("cmd.summary.skillsConfig"),
    args: [
      { name: "name", description: t("cmd.arg.configName") },
      { name: "value", description: t("cmd.arg.configValue"), variadic: true },
    ],
    mutating: false,
    mutatesFor: (input) => input.args[0] === "set",
    confirm: async (ctx, input) => {
      if (input.args[0] !== "set" || input.args.length < 3) return null;
      const key = input.args[1] ?? "";
      // A secret key is refused in chat by `run`; asking first would only invite a confirmation.
      if (ctx.surface === "chat" && isSecretSettingKey(key)) return null;
      // A value with whitespace at either end is refused by `run`; nothing to confirm.
      if (edgeWhitespace(input.args.slice(2).join(" "))) return null;
      return isSecretSettingKey(key)
        ? t("cmd.config.confirmSetSecret", { key })
        : t("cmd.config.confirmSet", { key, value: input.args.slice(2).join(" ") });
    },
    run: showConfig,
  }),
];
