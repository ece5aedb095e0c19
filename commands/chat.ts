/**
 * The commands every surface has besides the curator and skills trees: `help`, `whoami` and
 * `skill <name> [file]`, plus skill loading by name (`/<skill_name> [instruction]`, stacked
 * `/a /b do X`). Loading asks the one visibility rule for the caller's platform, answers with a skill
 * card (description, linked files, readiness with the missing variables and the setup hint), bumps the
 * use counter and remembers the skill in the chat session.
 */

import { roleOf } from "../src/core/access.js";
import type { ReplyAction } from "../src/core/actions.js";
import { english, join, list, type Text, t } from "../src/core/i18n/messages.js";
import { compareNames } from "../src/core/name-order.js";
import { errorReply, type Reply, type ReplyBlock, reply } from "../src/core/reply.js";
import { searchSkills } from "../src/skills/search.js";
import type { SkillEntry, SkillViewResult } from "../src/skills/types.js";
import { UsageStore } from "../src/skills/usage.js";
import { viewTexts } from "../src/skills/view-texts.js";
import { isSkillVisible } from "../src/skills/visibility.js";
import { withButtons } from "./buttons.js";
import { effectiveOptions, normalizeName, optionsHelp, usageLine } from "./parse.js";
import {
  offeredKeys,
  secretButtons,
  settingLines,
  setupHint,
  setupTodo,
  viewSettings,
} from "./readiness-view.js";
import { recordLoadedVersions } from "./skill-versions.js";
import { hitButtons } from "./skills-search.js";
import type { CommandContext, CommandSpec } from "./types.js";

/** What /help says when the library has no skill at all: where to find some to try. */

/** Most skills a stacked invocation loads (`/a /b /c … text`). */
export const MAX_STACKED_SKILLS = 5;

/** Skills listed by `help` before "… and N more". */
const HELP_SKILL_LIMIT = 30;

function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Finds a skill by a chat-typed name: exact, case-folded, or with `_` read as `-` (`/claude_code`). */
export async function findSkillByChatName(
  ctx: CommandContext,
  typed: string,
): Promise<SkillEntry | undefined> {
  const exact = await ctx.library.find(typed);
  if (exact) return exact;
  const wanted = normalizeName(typed);
  return (await ctx.library.all()).find((entry) => normalizeName(entry.name) === wanted);
}

/** The refusal for a skill the visibility rule hides on this platform. */
export function disabledSkillReply(name: string, platform: string | null): Reply {
  const where = platform ?? t("skill.thisTerminal");
  return errorReply(t("skill.disabledFor", { name, where, platform: platform ?? "<platform>" }), 1, {
    ok: false,
    error: "disabled",
    skill: name,
    platform,
  });
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function linkedFileItems(view: SkillViewResult): Text[] {
  const linked = view.linked_files;
  if (!linked || typeof linked !== "object") return [];
  return Object.entries(linked as Record<string, unknown>)
    .map(([kind, files]) => [kind, asStrings(files)] as const)
    .filter(([, files]) => files.length > 0)
    .map(([kind, files]) => join([kind, list(files.map((file) => `\`${file}\``))], ": "));
}

function readinessBlocks(
  view: SkillViewResult,
  ctx: CommandContext,
  privateEntry: ReadonlySet<string>,
): ReplyBlock[] {
  const missing = asStrings(view.missing_required_environment_variables);
  const missingFiles = asStrings(view.missing_credential_files);
  const missingCommands = asStrings(view.missing_required_commands);
  const blocks: ReplyBlock[] = [];
  if (
    missing.length === 0 &&
    missingFiles.length === 0 &&
    missingCommands.length === 0 &&
    view.setup_needed !== true
  ) {
    blocks.push({ kind: "paragraph", text: t("skill.ready") });
  } else {
    const code = (names: string[]) => list(names.map((name) => `\`${name}\``));
    const parts: Text[] = [
      ...(missing.length > 0 ? [t("skill.missingEnv", { count: missing.length, names: code(missing) })] : []),
      ...(missingFiles.length > 0
        ? [t("skill.missingFile", { count: missingFiles.length, names: code(missingFiles) })]
        : []),
      ...(missingCommands.length > 0
        ? [t("skill.missingCommand", { count: missingCommands.length, names: code(missingCommands) })]
        : []),
    ];
    blocks.push({
      kind: "paragraph",
      text: t("skill.setupNeeded", { parts: parts.length > 0 ? join(parts, "; ") : t("skill.setupNotes") }),
    });
    // With a private input on offer the "not supported over messaging" hint would be wrong: the to-do
    // list below points at the Set KEY input instead.
    const hint = setupHint(view, ctx, String(view.name ?? ""), privateEntry);
    const note = typeof view.setup_note === "string" ? view.setup_note : undefined;
    const noteText = viewTexts(view).setupNote ?? note;
    if (ctx.surface === "chat" && hint) blocks.push({ kind: "paragraph", text: hint });
    else if (hint ?? noteText) blocks.push({ kind: "paragraph", text: (hint ?? noteText) as Text });
  }
  const todo = setupTodo(view, ctx, privateEntry);
  if (todo.length > 0) blocks.push({ kind: "list", items: todo });
  const settings = viewSettings(view);
  if (settings.length > 0) {
    blocks.push(
      { kind: "paragraph", text: t("skill.settings") },
      { kind: "list", items: settingLines(settings) },
    );
  }
  return blocks;
}

/** The skill card: description, category, linked files, readiness, security warnings. */
export function skillCard(
  entry: SkillEntry,
  view: SkillViewResult,
  ctx: CommandContext,
  privateEntry: ReadonlySet<string> = new Set(),
): ReplyBlock[] {
  const description = typeof view.description === "string" ? view.description : entry.description;
  const blocks: ReplyBlock[] = [{ kind: "heading", text: t("skill.loaded", { name: entry.name }) }];
  if (description) blocks.push({ kind: "paragraph", text: description });
  if (entry.category)
    blocks.push({ kind: "paragraph", text: t("skill.category", { category: entry.category }) });
  const files = linkedFileItems(view);
  if (files.length > 0) {
    blocks.push({ kind: "paragraph", text: t("skill.linkedFiles") }, { kind: "list", items: files });
    blocks.push({
      kind: "paragraph",
      text: t("skill.openOne", { command: ctx.commandPrefix(["skill", entry.name]) }),
    });
  }
  blocks.push(...readinessBlocks(view, ctx, privateEntry));
  const warnings: Text[] = viewTexts(view).securityWarnings ?? asStrings(view.security_warnings);
  if (warnings.length > 0) {
    blocks.push({ kind: "paragraph", text: t("skill.securityWarnings") }, { kind: "list", items: warnings });
  }
  return blocks;
}

function viewFailure(view: SkillViewResult, name: string): Reply {
  const message: Text =
    viewTexts(view).error ??
    (typeof view.error === "string" ? view.error : t("skill.couldNotLoad", { name }));
  return errorReply(message, 1, view);
}

/**
 * A name that is no skill here: the skills whose names or descriptions come close, for the person to
 * choose with "View"/"Load" buttons (each with its related skills), or the plain refusal when none does.
 */
async function unknownSkillReply(ctx: CommandContext, typed: string): Promise<Reply> {
  const refusal = errorReply(
    t("skill.noSuchSkill", { name: typed, list: ctx.commandPrefix(["skills", "list"]) }),
  );
  const hits = await searchSkills(ctx.library, typed.replace(/[-_]/g, " "), {
    platform: ctx.platform,
    limit: 4,
  }).catch(() => []);
  if (hits.length === 0) return refusal;
  const items = hits.map((hit) =>
    hit.related.length > 0
      ? t("search.describedRelated", {
          description: hit.name,
          related: t("search.related", { names: list(hit.related) }),
        })
      : hit.name,
  );
  const choice = errorReply(t("skill.ambiguous", { name: typed }));
  return withButtons(
    { ...choice, blocks: [...choice.blocks, { kind: "list", items }] },
    hitButtons(hits.map((hit) => hit.name)),
  );
}

/**
 * Loads skills by the names a chat typed (`/<skill>` or `/a /b …`): each must exist and be visible on
 * the caller's platform (the first refusal names the skill and the platform). Returns the cards, with
 * the instruction echoed; bumps the use counters and records the skills in the chat session.
 */
export async function loadSkills(
  ctx: CommandContext,
  typedNames: string[],
  instruction: string,
): Promise<{ reply: Reply; loaded: string[] }> {
  const entries: SkillEntry[] = [];
  for (const typed of typedNames.slice(0, MAX_STACKED_SKILLS)) {
    const entry = await findSkillByChatName(ctx, typed);
    if (!entry) return { reply: await unknownSkillReply(ctx, typed), loaded: [] };
    if (!isSkillVisible(entry.name, entry.frontmatter, ctx.platform, ctx.config)) {
      return { reply: disabledSkillReply(entry.name, ctx.platform), loaded: [] };
    }
    if (!entries.some((known) => known.name === entry.name)) entries.push(entry);
  }
  const blocks: ReplyBlock[] = [];
  const views: SkillViewResult[] = [];
  const offers: ReplyAction[] = [];
  for (const entry of entries) {
    const view = await ctx.library.view(entry.name, { platform: ctx.platform });
    if (!view.success) return { reply: viewFailure(view, entry.name), loaded: [] };
    views.push(view);
    const offered = secretButtons(view, ctx);
    offers.push(...offered);
    blocks.push(...skillCard(entry, view, ctx, offeredKeys(offered)));
  }
  const names = entries.map((entry) => entry.name);
  const usage = new UsageStore(ctx.paths.skills);
  for (const name of names) {
    const bump = () => usage.bump(name, "use", ctx.now());
    await (ctx.effects ? ctx.effects.once(`use:${name}`, bump) : bump());
  }
  if (ctx.sessionKey) await ctx.sessions?.addLoadedSkills(ctx.sessionKey, names);
  await recordLoadedVersions(ctx, entries);
  if (instruction.trim())
    blocks.push({ kind: "paragraph", text: t("skill.instruction", { instruction: instruction.trim() }) });
  const json = { ok: true, loaded: names, instruction: instruction.trim() || null, skills: views };
  return { reply: withButtons(reply(blocks, { json }), [offers.slice(0, 5)]), loaded: names };
}

async function showSkillFile(ctx: CommandContext, entry: SkillEntry, file: string): Promise<Reply> {
  const view = await ctx.library.view(entry.name, { platform: ctx.platform, filePath: file });
  if (!view.success) return viewFailure(view, entry.name);
  const bump = () => new UsageStore(ctx.paths.skills).bump(entry.name, "view", ctx.now());
  await (ctx.effects ? ctx.effects.once(`view:${entry.name}:${file}`, bump) : bump());
  const content = typeof view.content === "string" ? view.content : "";
  const lang = typeof view.file_type === "string" ? view.file_type.replace(/^\./, "") : undefined;
  return reply(
    [
      { kind: "heading", text: `${entry.name}: ${file}` },
      { kind: "code", text: content, lang },
    ],
    { json: view },
  );
}

function roleText(ctx: CommandContext): { role: string; text: Text } {
  const caller = ctx.caller;
  if (ctx.surface === "terminal" || !caller) return { role: "owner", text: t("whoami.role.owner") };
  if (caller.isAdmin) return { role: "admin", text: t("whoami.role.admin") };
  return roleOf(ctx.config, caller.platform, caller.id, ctx.chatId) === "stranger"
    ? { role: "stranger", text: t("whoami.role.stranger") }
    : { role: "user", text: t("whoami.role.user") };
}

function commandItems(ctx: CommandContext, specs: readonly CommandSpec[], withOptions: boolean): Text[] {
  const adminNote = ctx.surface === "chat" && !ctx.caller?.isAdmin;
  return specs
    .filter((spec) => !spec.hidden)
    .map((spec) => {
      const usage = usageLine(spec, ctx.commandPrefix);
      const line = t(adminNote && spec.mutating ? "help.item.admins" : "help.item", {
        usage,
        summary: spec.summary,
      });
      const options = effectiveOptions(spec).filter((option) => option.name !== "json" || withOptions);
      return withOptions && options.length > 0
        ? t("help.options", { line, options: optionsHelp(spec) })
        : line;
    });
}

/** A name that can be a slash command on every platform (ASCII letters, digits, `_` and `-`). */
const PORTABLE_COMMAND = /^[A-Za-z0-9_-]{1,32}$/;

async function skillItems(ctx: CommandContext): Promise<{ blocks: ReplyBlock[]; names: string[] }> {
  let skills: SkillEntry[];
  try {
    skills = await ctx.library.visible(ctx.platform);
  } catch (error) {
    return {
      blocks: [{ kind: "paragraph", text: t("help.skillsHidden", { detail: (error as Error).message }) }],
      names: [],
    };
  }
  if (skills.length === 0) {
    const installed = await ctx.library.all().catch(() => []);
    const text = installed.length === 0 ? t("help.emptyLibrary") : t("help.noSkillsHere");
    return { blocks: [{ kind: "paragraph", text }], names: [] };
  }
  const sorted = [...skills].sort((a, b) => compareNames(a.name, b.name));
  // A skill is its own command in chat only when its name can be one on every platform (Telegram
  // allows `[a-z0-9_]{1,32}`, a dash becoming `_`); `周报` is reached, and shown, as `/skill 周报`.
  const spell = (name: string) =>
    ctx.surface === "chat" && PORTABLE_COMMAND.test(name) ? `/${name}` : ctx.commandPrefix(["skill", name]);
  const items: Text[] = sorted
    .slice(0, HELP_SKILL_LIMIT)
    .map((entry) =>
      t("help.skillItem", { command: spell(entry.name), description: shorten(entry.description, 80) }),
    );
  if (sorted.length > HELP_SKILL_LIMIT) {
    items.push(
      t("help.moreSkills", {
        count: sorted.length - HELP_SKILL_LIMIT,
        command: ctx.commandPrefix(["skills", "list"]),
      }),
    );
  }
  return {
    blocks: [
      { kind: "heading", text: t("help.skillsHeading", { count: sorted.length }) },
      { kind: "list", items },
    ],
    names: sorted.map((entry) => entry.name),
  };
}

/** The chat commands, built over the registry they describe (help lists the registry). */
export function createChatCommands(getRegistry: () => readonly CommandSpec[]): CommandSpec[] {
  const help: CommandSpec = {
    path: ["help"],
    summary: t("help.summary"),
    args: [{ name: "command", description: t("help.arg.command"), variadic: true }],
    mutating: false,
    async run(ctx, input) {
      const registry = getRegistry();
      const wanted = input.args.map(normalizeName);
      if (wanted.length > 0) {
        const specs = registry.filter((spec) => wanted.every((word, index) => spec.path[index] === word));
        if (specs.length === 0) {
          return errorReply(
            t("help.noCommand", { command: ctx.commandPrefix(wanted), help: ctx.commandPrefix(["help"]) }),
            2,
          );
        }
        return reply(
          [
            { kind: "heading", text: `${ctx.commandPrefix(wanted)}` },
            { kind: "list", items: commandItems(ctx, specs, true) },
          ],
          {
            json: {
              commands: specs.map((spec) => ({
                path: spec.path,
                summary: english(spec.summary),
                mutating: spec.mutating,
              })),
            },
          },
        );
      }
      const skills = await skillItems(ctx);
      const blocks: ReplyBlock[] = [
        { kind: "heading", text: t("help.commands") },
        { kind: "list", items: commandItems(ctx, registry, false) },
        ...skills.blocks,
        { kind: "paragraph", text: t("help.details", { command: ctx.commandPrefix(["help", "<command>"]) }) },
      ];
      const json = {
        commands: registry
          .filter((spec) => !spec.hidden)
          .map((spec) => ({ path: spec.path, summary: english(spec.summary), mutating: spec.mutating })),
        skills: skills.names,
      };
      return reply(blocks, { json });
    },
  };
  const whoami: CommandSpec = {
    path: ["whoami"],
    summary: t("whoami.summary"),
    mutating: false,
    async run(ctx) {
      const { role, text } = roleText(ctx);
      const caller = ctx.caller;
      const id = caller ? `${caller.platform}:${caller.id}` : t("whoami.localTerminal");
      const you = caller?.name
        ? t("whoami.youNamed", { id, name: caller.name, role: text })
        : t("whoami.you", { id, role: text });
      const blocks: ReplyBlock[] = [{ kind: "paragraph", text: you }];
      // The chat's own id, for gateway.home_channel and gateway.allowed_chats (a group's id is not its
      // members' ids, and the platforms' apps hide it).
      const chat = caller && ctx.chatId ? `${caller.platform}:${ctx.chatId}` : undefined;
      if (chat)
        blocks.push({
          kind: "paragraph",
          text: t(
            ctx.chatKind === "dm"
              ? "whoami.dm"
              : ctx.chatKind === "thread"
                ? "whoami.thread"
                : "whoami.group",
            { chat },
          ),
        });
      return reply(blocks, {
        json: {
          id: caller ? id : null,
          platform: caller?.platform ?? ctx.platform,
          role,
          chat: chat ?? null,
          chat_kind: ctx.chatKind ?? null,
        },
      });
    },
  };
  const skill: CommandSpec = {
    path: ["skill"],
    summary: t("skill.summary"),
    args: [
      { name: "name", description: t("skill.arg.name"), required: true },
      { name: "file", description: t("skill.arg.file") },
    ],
    mutating: false,
    async run(ctx, input) {
      const name = input.args[0] ?? "";
      const file = input.args[1];
      if (!file) return (await loadSkills(ctx, [name], "")).reply;
      const entry = await findSkillByChatName(ctx, name);
      if (!entry)
        return errorReply(t("skill.noSuchSkill", { name, list: ctx.commandPrefix(["skills", "list"]) }));
      if (!isSkillVisible(entry.name, entry.frontmatter, ctx.platform, ctx.config))
        return disabledSkillReply(entry.name, ctx.platform);
      return showSkillFile(ctx, entry, file);
    },
  };
  return [help, whoami, skill];
}
