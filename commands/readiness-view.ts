/**
 * How readiness reads to a person, shared by `skills view`, `skills config` and the skill card: one line
 * per declared requirement that needs attention (missing variable, credential file, command, unset
 * setting), each saying what to do about it, plus the settings in force.
 */
import { refusedSecretReason, refusedSecretText } from "../src/config/secret-keys.js";
import { type ReplyAction, secretAction } from "../src/core/actions.js";
import { english, type Text, t } from "../src/core/i18n/messages.js";
import type { ReplyBlock } from "../src/core/reply.js";
import { gatewaySetupHintText } from "../src/skills/readiness.js";
import { type ResolvedSetting, settingKeyProblem } from "../src/skills/settings.js";
import type { SkillViewResult } from "../src/skills/types.js";
import type { CommandContext } from "./types.js";

/** Most "Set KEY" buttons on one reply (one row of Discord components). */
const MAX_SECRET_BUTTONS = 5;

const SECRET_KEY = /(secret|token|password|passwd|api[_-]?key|credential|private[_-]?key)/i;

/** True for a setting whose value must never be shown, logged or ledgered (its key names a secret). */
export function isSecretSettingKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** The declared settings of a view result. */
export function viewSettings(view: SkillViewResult): ResolvedSetting[] {
  return Array.isArray(view.settings) ? (view.settings as ResolvedSetting[]) : [];
}

/** A setting's value as shown to people: secrets masked, unset said so. */
export function shownValue(setting: ResolvedSetting): Text {
  if (setting.source === "unset") return t("cmd.setting.notSet");
  if (isSecretSettingKey(setting.key)) return t("cmd.setting.hidden");
  return typeof setting.value === "string" ? setting.value : JSON.stringify(setting.value);
}

/** One line per setting: `key = value (default)` with its description. */
export function settingLines(settings: ResolvedSetting[]): Text[] {
  return settings.map((setting) =>
    t(setting.source === "default" ? "cmd.setting.lineDefault" : "cmd.setting.line", {
      key: setting.key,
      value: shownValue(setting),
      description: setting.description,
    }),
  );
}

/**
 * The to-do list for a view: each missing variable, file and command and each unset setting, with what
 * to do. `privateEntry` names the variables a private input is offered for in this reply.
 */
export function setupTodo(
  view: SkillViewResult,
  ctx: CommandContext,
  privateEntry: ReadonlySet<string> = new Set(),
): Text[] {
  const items: Text[] = [];
  const chat = ctx.surface === "chat";
  const envFile: Text = chat ? t("cmd.todo.gatewayEnvFile") : ctx.paths.env;
  for (const name of asStrings(view.missing_required_environment_variables)) {
    const refused = refusedSecretText(name, ctx.config);
    items.push(
      refused
        ? t("cmd.todo.envRefused", { name, reason: refused })
        : privateEntry.has(name)
          ? t("cmd.todo.envPrivate", { name, button: t("button.setKey", { key: name }), envFile })
          : t("cmd.todo.env", { name, envFile }),
    );
  }
  for (const file of asStrings(view.missing_credential_files)) {
    items.push(t(chat ? "cmd.todo.fileGateway" : "cmd.todo.file", { file }));
  }
  for (const command of asStrings(view.missing_required_commands)) {
    items.push(t(chat ? "cmd.todo.commandGateway" : "cmd.todo.command", { command }));
  }
  for (const key of asStrings(view.unset_settings)) {
    const setting = viewSettings(view).find((item) => item.key === key);
    const command = `${ctx.commandPrefix(["skills", "config", "set"])} ${key} <value>`;
    items.push(
      setting
        ? t("cmd.todo.settingPrompt", { key, prompt: setting.prompt, command })
        : t("cmd.todo.setting", { key, command }),
    );
  }
  for (const key of refusedSettingKeys(view)) {
    const reason = settingKeyProblem(key);
    if (reason) items.push(t("setting.refused", { key, reason }));
  }
  return items;
}

/** Keys of the view's `refused_settings`. */
function refusedSettingKeys(view: SkillViewResult): string[] {
  const refused = view.refused_settings;
  if (!Array.isArray(refused)) return [];
  return refused
    .map((item) => (item as { key?: unknown }).key)
    .filter((key): key is string => typeof key === "string");
}

/** The chat platform that is the local terminal itself (`skillgate serve --terminal`). */
const TERMINAL_CHAT = "console";

/**
 * The hint shown beside a skill's missing secrets, or undefined when there is none to give (a private
 * input is offered instead). The view's `gateway_setup_hint` says secrets cannot be entered over a chat;
 * the local terminal chat runs on the host itself, so there it says how to set them right here.
 */
export function setupHint(
  view: SkillViewResult,
  ctx: CommandContext,
  skill: string,
  privateEntry: ReadonlySet<string>,
): Text | undefined {
  if (typeof view.gateway_setup_hint !== "string" || privateEntry.size > 0) return undefined;
  if (ctx.platform !== TERMINAL_CHAT) {
    const hint = gatewaySetupHintText(ctx.home);
    return english(hint) === view.gateway_setup_hint ? hint : view.gateway_setup_hint;
  }
  const missing = asStrings(view.missing_required_environment_variables);
  const command = `skillgate skills view ${skill}`;
  const envFile = ctx.paths.env;
  const first = missing[0];
  if (first === undefined) return t("cmd.hint.terminalChatNone", { envFile, command });
  return t(missing.length > 1 ? "cmd.hint.terminalChatMany" : "cmd.hint.terminalChatOne", {
    example: `${first}=…`,
    envFile,
    command,
  });
}

/** Blocks for a view's readiness: status line, to-do list, settings in force. */
export function readinessSummary(
  view: SkillViewResult,
  ctx: CommandContext,
  privateEntry: ReadonlySet<string> = new Set(),
): ReplyBlock[] {
  const todo = setupTodo(view, ctx, privateEntry);
  const blocks: ReplyBlock[] = [];
  if (view.setup_needed === true) {
    blocks.push({ kind: "paragraph", text: t("cmd.readiness.setupNeeded") });
  } else {
    blocks.push({
      kind: "paragraph",
      text: todo.length > 0 ? t("cmd.readiness.readySeeBelow") : t("skill.ready"),
    });
  }
  if (todo.length > 0) blocks.push({ kind: "list", items: todo });
  const settings = viewSettings(view);
  if (settings.length > 0) {
    blocks.push({ kind: "paragraph", text: t("skill.settings") });
    blocks.push({ kind: "list", items: settingLines(settings) });
  }
  return blocks;
}

/**
 * "Set KEY" buttons for a view's missing variables, when this surface opens a private input for this
 * caller (`ctx.secretInput`); empty otherwise. Each is a stored action like any other button.
 */
export function secretButtons(view: SkillViewResult, ctx: CommandContext): ReplyAction[] {
  const missing = asStrings(view.missing_required_environment_variables);
  if (!ctx.secretInput || !ctx.caller?.isAdmin || typeof view.name !== "string") return [];
  const skill = view.name;
  return missing
    .filter((key) => refusedSecretReason(key, ctx.config) === null)
    .slice(0, MAX_SECRET_BUTTONS)
    .map((key) => secretAction(skill, key));
}

/** The variable names a list of "Set KEY" buttons offers. */
export function offeredKeys(buttons: readonly ReplyAction[]): Set<string> {
  return new Set(buttons.flatMap((button) => (button.intent.kind === "secret" ? [button.intent.key] : [])));
}
