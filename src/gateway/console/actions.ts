/**
 * Actions from the web console run through the one command registry, like chat: the same specs, the
 * same access check (`runCommand`), the same confirmation questions (a command's `confirm`), and the
 * ledger records `web` as the actor. The console asks before every action: the command's own question
 * when it has one, else one built from what the action does (a ledger rollback lists the files it puts
 * back and removes). Only the commands the pages offer are accepted, with the options their specs declare.
 */
import { terminalPrefix } from "../../../commands/context.js";
import { effectiveOptions } from "../../../commands/parse.js";
import { accessRefusal, runCommand } from "../../../commands/runner.js";
import type { CommandContext, CommandInput, CommandSpec } from "../../../commands/types.js";
import type { SkillgateConfig } from "../../config/config.js";
import { homePaths } from "../../config/home.js";
import { UsageError } from "../../core/errors.js";
import type { Locale } from "../../core/i18n/locale.js";
import { list, resolveText, type Text, t } from "../../core/i18n/messages.js";
import { scrubDeep, scrubText } from "../../core/logger.js";
import { type Reply, replyToPlainText } from "../../core/reply.js";
import { findEntry } from "../../curator/ledger.js";
import type { SkillLibrary } from "../../skills/types.js";
import type { ConsoleSession } from "./auth.js";
import { rollbackChanges } from "./curator-data.js";

/** The registry commands the console offers, as `group sub`. */
export const CONSOLE_COMMANDS = new Set([
  "curator pin",
  "curator unpin",
  "curator archive",
  "curator restore",
  "curator adopt",
  "curator run",
  "curator rollback",
  "curator pause",
  "curator resume",
  "curator backup",
]);

/** Options no console request may set (the console confirms itself; background runs detach). */
const REFUSED_OPTIONS = new Set(["yes", "json", "background", "platform"]);

/** A parsed action request. */
export interface ActionRequest {
  command: string;
  args: string[];
  options: Record<string, string | number | boolean>;
  /** The person confirmed the question shown for this action. */
  confirmed: boolean;
}

/** What an action answered. */
export type ActionResult =
  | { kind: "confirm"; question: string; details?: { restored: string[]; removed: string[] } }
  | { kind: "done"; ok: boolean; exitCode: number; text: string; json: unknown };

/** Everything actions need. */
export interface ActionEnv {
  home: string;
  config: () => SkillgateConfig;
  library: SkillLibrary;
  registry: readonly CommandSpec[];
  now: () => Date;
  /** Values scrubbed from every text shown (the `.env` secrets). */
  secrets: () => string[];
  /** A curator run's progress lines (texts; the console shows their English). */
  progress?: (line: Text) => void;
}

const MAX_ARG = 512;

/** Validates a request body into an `ActionRequest`; throws `UsageError` with what is wrong. */
export function parseActionRequest(body: unknown): ActionRequest {
  if (!body || typeof body !== "object") throw new UsageError("The request body must be a JSON object.");
  const raw = body as Record<string, unknown>;
  if (typeof raw.command !== "string" || !CONSOLE_COMMANDS.has(raw.command))
    throw new UsageError(`Unknown console action ${JSON.stringify(raw.command)}.`);
  const args = raw.args ?? [];
  if (
    !Array.isArray(args) ||
    args.length > 50 ||
    !args.every((arg) => typeof arg === "string" && arg.length <= MAX_ARG)
  )
    throw new UsageError("`args` must be a short list of strings.");
  const options: Record<string, string | number | boolean> = {};
  const given = raw.options ?? {};
  if (typeof given !== "object" || given === null || Array.isArray(given))
    throw new UsageError("`options` must be an object.");
  for (const [key, value] of Object.entries(given)) {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
      throw new UsageError(`Option ${key} has an unsupported value.`);
    options[key] = value;
  }
  return { command: raw.command, args: args as string[], options, confirmed: raw.confirmed === true };
}

function specFor(registry: readonly CommandSpec[], command: string): CommandSpec {
  const spec = registry.find((candidate) => candidate.path.join(" ") === command);
  if (!spec) throw new UsageError(`The command ${command} is not in the registry.`);
  return spec;
}

function inputFor(spec: CommandSpec, request: ActionRequest): CommandInput {
  const declared = new Map(effectiveOptions(spec).map((option) => [option.name, option]));
  const options: CommandInput["options"] = {};
  for (const [name, value] of Object.entries(request.options)) {
    const option = declared.get(name);
    if (!option || REFUSED_OPTIONS.has(name))
      throw new UsageError(`The console does not take --${name} here.`);
    const ok =
      option.kind === "boolean"
        ? typeof value === "boolean"
        : option.kind === "integer"
          ? Number.isInteger(value)
          : typeof value === "string" && (!option.choices || option.choices.includes(value));
    if (!ok) throw new UsageError(`--${name} has an invalid value.`);
    options[name] = value;
  }
  const required = (spec.args ?? []).filter((arg) => arg.required).length;
  const most = (spec.args ?? []).some((arg) => arg.variadic) ? 50 : (spec.args ?? []).length;
  if (request.args.length < required || request.args.length > most)
    throw new UsageError(
      `${request.command} takes ${required === most ? most : `${required} to ${most}`} argument(s).`,
    );
  return { args: [...request.args], options };
}

/** The command context of one console request: surface `web`, actor `web`, caller from the login. */
export function webContext(env: ActionEnv, session: ConsoleSession): CommandContext {
  const config = env.config();
  return {
    home: env.home,
    paths: homePaths(env.home),
    config,
    library: env.library,
    surface: "web",
    platform: null,
    json: true,
    interactive: false,
    progress: env.progress,
    actor: "web",
    caller: { platform: "web", id: session.role, name: "web console", isAdmin: session.role === "admin" },
    now: env.now,
    commandPrefix: terminalPrefix,
  };
}

/** The console's own question for actions whose command asks none. */
function defaultQuestion(spec: CommandSpec, input: CommandInput): Text {
  const command = spec.path.join(" ");
  return input.args.length > 0
    ? t("console.ask.withTarget", { command, target: list(input.args), summary: spec.summary })
    : t("console.ask", { command, summary: spec.summary });
}

/**
 * Handles one action request: without `confirmed`, the question to show (nothing runs); with it, the
 * command through the registry's runner. Read-only sessions are refused by the runner's access check.
 */
export async function handleAction(
  env: ActionEnv,
  session: ConsoleSession,
  request: ActionRequest,
  locale: Locale = "en",
): Promise<ActionResult> {
  const spec = specFor(env.registry, request.command);
  const input = inputFor(spec, request);
  const ctx = webContext(env, session);
  const secrets = env.secrets();
  // Refused before any question is computed: a read-only login never triggers a command's preview work.
  const refused = accessRefusal(spec, ctx, input);
  if (refused) return done(refused, secrets, locale);
  if (!request.confirmed) {
    let question = spec.confirm ? await spec.confirm(ctx, input) : null;
    question ??= defaultQuestion(spec, input);
    let details: { restored: string[]; removed: string[] } | undefined;
    if (request.command === "curator rollback" && input.args[0]) {
      const entry = await findEntry(env.home, input.args[0]);
      if (entry) details = rollbackChanges(entry);
    }
    return { kind: "confirm", question: scrubText(resolveText(question, locale), secrets), details };
  }
  if (spec.confirm) input.options.yes = true;
  const reply: Reply = await runCommand(spec, ctx, input);
  env.library.invalidate();
  return done(reply, secrets, locale);
}

function done(reply: Reply, secrets: string[], locale: Locale): ActionResult {
  return {
    kind: "done",
    ok: reply.exitCode === 0,
    exitCode: reply.exitCode,
    text: scrubText(replyToPlainText(reply, locale), secrets),
    json: scrubDeep(reply.json ?? null, secrets),
  };
}
