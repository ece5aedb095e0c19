/**
 * `skills disable|enable <name> [--platform P]`, `skills config [<name>]` and `skills config set <key>
 * <value>`: the commands that change config.yaml. Each edit goes through `config/edit.ts` (only the
 * changed node's bytes, atomic, refused on a concurrent change), is confirmed first, and is recorded in
 * the ledger — a secret setting's value never is. In chat they are for admins; a secret setting cannot be
 * set from a chat message at all (it would sit in the chat history).
 */
import { type ConfigChange, editConfigFile } from "../src/config/edit.js";
import { referencePlatforms } from "../src/core/platforms.js";
import { errorReply, type Reply, type ReplyBlock, reply } from "../src/core/reply.js";
import { appendEntry } from "../src/curator/ledger.js";
import { resolveSettings, type SettingDeclaration, settingDeclarations } from "../src/skills/settings.js";
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
    description: "only on this chat platform (skills.platform_disabled.<platform>); without it, everywhere",
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
  return errorReply(`\`${platform}\` is not a platform name; use one of ${known.join(", ")}.`, 2);
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
      `No skill named \`${typed}\`. See \`${ctx.commandPrefix(["skills", "list"])}\` for the names.`,
    );
  }
  const change: ConfigChange = {
    kind: disable ? "add-to-list" : "remove-from-list",
    path: listPath(platform),
    value: name,
  };
  const result = await editConfigFile(ctx.home, change);
  ctx.library.invalidate();
  const where = platform ? `on ${platform}` : "everywhere";
  const blocks: ReplyBlock[] = [];
  if (!result.changed) {
    blocks.push({
      kind: "paragraph",
      text: disable
        ? `\`${name}\` was already in ${listLabel(platform)}; nothing changed.`
        : `\`${name}\` was not in ${listLabel(platform)}; nothing changed.`,
    });
  } else {
    await record(ctx, disable ? "skills-disable" : "skills-enable", name, {
      list: listLabel(platform),
      platform,
    });
    blocks.push({
      kind: "paragraph",
      text: disable
        ? `✓ \`${name}\` disabled ${where} (${listLabel(platform)} in config.yaml). Menus, autocomplete and /help no longer offer it ${where}.`
        : `✓ \`${name}\` removed from ${listLabel(platform)} in config.yaml.`,
    });
  }
  if (!disable) {
    const config = liveConfig(ctx);
    const still: string[] = [];
    if (platform && config.skills.disabled.map((item) => item.trim()).includes(name))
      still.push("skills.disabled (everywhere)");
    if (!platform) {
      for (const [other, names] of Object.entries(config.skills.platformDisabled)) {
        if (names.map((item) => item.trim()).includes(name)) still.push(`skills.platform_disabled.${other}`);
      }
    }
    if (still.length > 0) {
      blocks.push({
        kind: "paragraph",
        text: `It is still disabled by ${still.join(", ")}; enable it there too with \`${ctx.commandPrefix(["skills", "enable"])} ${name}${platform ? "" : " --platform <platform>"}\`.`,
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
      return errorReply(`No skill named \`${first}\`. See \`${ctx.commandPrefix(["skills", "list"])}\`.`);
    skills.push(entry);
  } else {
    skills.push(
      ...(await ctx.library.all()).filter((entry) => settingDeclarations(entry.frontmatter).length > 0),
    );
  }
  const blocks: ReplyBlock[] = [{ kind: "heading", text: first ? `Settings of ${first}` : "Skill settings" }];
  const json: Record<string, unknown>[] = [];
  for (const entry of skills) {
    const settings = resolveSettings(settingDeclarations(entry.frontmatter), config.skills.settings);
    if (first === undefined) blocks.push({ kind: "paragraph", text: `${entry.name}:` });
    if (settings.length === 0) {
      blocks.push({
        kind: "paragraph",
        text: `\`${entry.name}\` declares no settings (metadata.hermes.config).`,
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
  if (skills.length === 0) blocks.push({ kind: "paragraph", text: "No skill declares settings." });
  blocks.push({
    kind: "paragraph",
    text: `Change one with \`${ctx.commandPrefix(["skills", "config"])} set <key> <value>\` (stored under skills.config in config.yaml).`,
  });
  return reply(blocks, { json: { ok: true, skills: json } });
}

/**
 * Reads a typed value: true/false and numbers written the way they print (`12`, `-0.5`, not `017`) as
 * such, anything else as text.
 */
function typedValue(raw: string): string | number | boolean {
  if (raw === "true" || raw === "false") return raw === "true";
  if (/^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/.test(raw) && Number.isFinite(Number(raw))) return Number(raw);
  return raw;
}

async function setConfig(ctx: CommandContext, key: string | undefined, raw: string): Promise<Reply> {
  if (!key || raw.trim() === "") {
    return errorReply(`Usage: \`${ctx.commandPrefix(["skills", "config"])} set <key> <value>\`.`, 2);
  }
  const { declarations, owners } = await declaredSettings(ctx);
  const declaration = declarations.get(key);
  if (!declaration) {
    const known = [...declarations.keys()].sort();
    return errorReply(
      `No skill declares the setting \`${key}\`.${known.length > 0 ? ` Declared settings: ${known.map((item) => `\`${item}\``).join(", ")}.` : " No skill declares any settings."}`,
      2,
    );
  }
  const secret = isSecretSettingKey(key);
  if (secret && ctx.surface === "chat") {
    return errorReply(
      `\`${key}\` looks like a secret, and chat messages stay in the chat's history, so it was not stored. Set it on the gateway host with \`skillgate skills config set ${key} <value>\`.`,
    );
  }
  const value = typedValue(raw.trim());
  const result = await editConfigFile(ctx.home, {
    kind: "set",
    path: ["skills", "config", ...key.split(".")],
    value,
  });
  const skills = owners.get(key) ?? [];
  if (result.changed) {
    await record(ctx, "skills-config-set", skills[0] ?? key, {
      key,
      ...(secret ? { value_hidden: true } : { value }),
      skills,
    });
  }
  const shown = secret ? "(hidden)" : `\`${String(value)}\``;
  return reply(
    [
      {
        kind: "paragraph",
        text: result.changed
          ? `✓ \`${key}\` = ${shown} (skills.config in config.yaml), used by ${skills.join(", ")}.`
          : `\`${key}\` already is ${shown}; nothing changed.`,
      },
    ],
    { json: { ok: true, changed: result.changed, key, value: secret ? "(hidden)" : value, skills } },
  );
}

/** The config-changing commands of the `skills` group. */
export const skillsConfigCommands: CommandSpec[] = [
  defineCommand({
    path: ["skills", "disable"],
    summary: "hide a skill everywhere, or on one platform with --platform",
    args: [{ name: "name", description: "the skill's name", required: true }],
    options: VISIBILITY_OPTIONS,
    mutating: true,
    confirm: async (_ctx, input) => {
      const platform = targetPlatform(input);
      return `Disable \`${input.args[0]}\` ${platform ? `on ${platform}` : "everywhere"} (${listLabel(platform)} in config.yaml)?`;
    },
    run: (ctx, input) => changeVisibility(ctx, input, true),
  }),
  defineCommand({
    path: ["skills", "enable"],
    summary: "show a disabled skill again (everywhere, or on one platform with --platform)",
    args: [{ name: "name", description: "the skill's name", required: true }],
    options: VISIBILITY_OPTIONS,
    mutating: true,
    confirm: async (_ctx, input) => {
      const platform = targetPlatform(input);
      return `Enable \`${input.args[0]}\` ${platform ? `on ${platform}` : "everywhere"} (remove it from ${listLabel(platform)} in config.yaml)?`;
    },
    run: (ctx, input) => changeVisibility(ctx, input, false),
  }),
  defineCommand({
    path: ["skills", "config"],
    summary: "show skills' declared settings; `set <key> <value>` changes one (admins)",
    args: [
      { name: "name", description: "a skill, or `set` followed by <key> <value>" },
      { name: "value", description: "with `set`: the key and its value", variadic: true },
    ],
    mutating: false,
    mutatesFor: (input) => input.args[0] === "set",
    confirm: async (ctx, input) => {
      if (input.args[0] !== "set" || input.args.length < 3) return null;
      const key = input.args[1] ?? "";
      // A secret key is refused in chat by `run`; asking first would only invite a confirmation.
      if (ctx.surface === "chat" && isSecretSettingKey(key)) return null;
      return `Set \`${key}\` in skills.config of config.yaml${isSecretSettingKey(key) ? "" : ` to \`${input.args.slice(2).join(" ")}\``}?`;
    },
    run: showConfig,
  }),
];
