/**
 * The chat agent: ordinary (non-command) chat text goes to a model that can use the skill library the
 * way the seed document describes — progressive disclosure. The system prompt carries the tier-1 index
 * (name and description of every skill visible on this platform) and the full text of skills loaded in
 * this chat with `/<skill>`; the tools `skills_list` and `skill_view` (with `file_path` for linked files)
 * fetch more on demand. Each view counts as a view and a use. History is per chat and bounded.
 */
import path from "node:path";
import { sessionKeyOf } from "../../commands/context.js";
import type { CommandContext } from "../../commands/types.js";
import type { SkillgateConfig } from "../config/config.js";
import { english, list, type Text, t } from "../core/i18n/messages.js";
import type { InboundMessage } from "../core/message.js";
import { compareNames } from "../core/name-order.js";
import { errorReply, type Reply, type ReplyBlock, reply } from "../core/reply.js";
import {
  runToolCall,
  type SkillToolName,
  type ToolRuntime,
  toolDefinitions,
  toolSetOf,
} from "../curator/tools.js";
import {
  type ChatMessage,
  type ClientOptions,
  createModelClient,
  type ModelClient,
  ModelError,
} from "../llm/client.js";
import { describeModel, type ResolvedModel, resolveChatModel } from "../llm/config.js";
import { gatewaySetupHintText } from "../skills/readiness.js";
import { searchSkills } from "../skills/search.js";
import { activationBlocker, type ResolvedSetting, settingsBlock } from "../skills/settings.js";
import type { SkillEntry, SkillLibrary } from "../skills/types.js";
import type { ChatAgent } from "./gateway.js";
import { SessionStore } from "./sessions.js";

/** Most model turns per message (each turn may call several tools). */
export const MAX_AGENT_TURNS = 8;
/** Skills listed by name in the system prompt before pointing at `skills_list`. */
export const INDEX_LIMIT = 200;
/** Longest loaded-skill text put into the system prompt, per skill (characters). */
const LOADED_SKILL_CHARS = 20_000;
/** Longest tool result handed back to the model (characters). */
const MAX_TOOL_OUTPUT = 40_000;

/** What the agent logs through (a pino logger fits). */
export interface AgentLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Options of `createChatAgent`. */
export interface ChatAgentOptions {
  home: string;
  config: SkillgateConfig;
  /** The library to serve from; default the one each message's context carries (the gateway's). */
  library?: SkillLibrary;
  logger?: AgentLogger;
  /** Environment for secret lookups (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  clientOptions?: ClientOptions;
  /** Replaces the client factory (tests). */
  createClient?: (model: ResolvedModel) => ModelClient;
}

/**
 * Builds the agent, or returns null when `gateway.agent.enabled` is off or no model resolves (the reason
 * is logged; the gateway then answers chat text with a one-line configuration hint).
 */
export function createChatAgent(options: ChatAgentOptions): ChatAgent | null {
  if (!options.config.gateway.agent.enabled) return null;
  const resolution = resolveChatModel(options.config, options.home, options.env ?? process.env);
  if (!resolution.ok) {
    options.logger?.warn(
      { reason: resolution.reason },
      "agent: gateway.agent.enabled is true but no model resolves; chat text gets the configuration hint",
    );
    return null;
  }
  const model = resolution.model;
  const client = options.createClient?.(model) ?? createModelClient(model, options.clientOptions);
  options.logger?.info({ model: describeModel(model) }, "agent: ready");
  return { respond: (message, ctx) => respond(options, client, message, ctx) };
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function skillIndex(skills: SkillEntry[]): string {
  if (skills.length === 0) return "No skills are available in this chat.";
  const sorted = [...skills].sort((a, b) => compareNames(a.name, b.name));
  const lines = sorted
    .slice(0, INDEX_LIMIT)
    .map((entry) => `- ${entry.name}: ${oneLine(entry.description, 200)}`);
  if (sorted.length > INDEX_LIMIT)
    lines.push(`- … and ${sorted.length - INDEX_LIMIT} more (call skills_list)`);
  return lines.join("\n");
}

async function loadedSkillsText(
  library: SkillLibrary,
  names: string[],
  platform: string | null,
  configFile: string,
): Promise<string> {
  const parts: string[] = [];
  for (const name of names) {
    // Visibility is re-checked here: a skill disabled since it was loaded is not handed to the model.
    const view = await library.view(name, { platform }).catch(() => undefined);
    if (!view?.success || typeof view.content !== "string") continue;
    // The resolved settings travel with the loaded skill, after its text.
    const settings = Array.isArray(view.settings) ? (view.settings as ResolvedSetting[]) : [];
    const block = settingsBlock(settings, configFile);
    parts.push(`### ${name}\n${view.content.slice(0, LOADED_SKILL_CHARS)}${block ? `\n\n${block}` : ""}`);
  }
  return parts.join("\n\n");
}

/** Skills the prompt of a large library carries: the best matches for the conversation. */
export const MATCHES_IN_PROMPT = 15;

/**
 * The skill index of one agent turn. Up to `limit` visible skills it is the whole list (as Hermes
 * gives it); above, the skills best matching `conversation` and a line pointing at `skills_search`.
 */
export async function agentSkillIndex(
  library: SkillLibrary,
  platform: string | null,
  visible: SkillEntry[],
  conversation: string,
  limit: number,
): Promise<{ text: string; searched: boolean }> {
  if (visible.length <= limit) return { text: skillIndex(visible), searched: false };
  const usable = new Set(visible.map((entry) => entry.name));
  const byName = new Map(visible.map((entry) => [entry.name, entry]));
  const hits = (await searchSkills(library, conversation, { platform, limit: MATCHES_IN_PROMPT * 2 }))
    .filter((hit) => usable.has(hit.name))
    .slice(0, MATCHES_IN_PROMPT);
  const lines = hits.map(
    (hit) => `- ${hit.name}: ${oneLine(byName.get(hit.name)?.description ?? hit.description, 200)}`,
  );
  lines.push(
    `- … ${visible.length - hits.length} more skills: call skills_search(query) with words for the task to find others`,
  );
  return { text: lines.join("\n"), searched: true };
}

function systemPrompt(platform: string | null, index: string, loaded: string, searched = false): string {
  return [
    `You are the assistant in a ${platform ?? "terminal"} chat. You can draw on a library of skills: instruction documents for specific kinds of task.`,
    searched
      ? "Work with them step by step: the library is large, so the index below gives only the skills best matching this conversation; skills_search(query) finds others by what they do. When a request matches one, call skill_view(name) to read it and follow it; open a linked file with skill_view(name, file_path) only when you need it."
      : "Work with them step by step: the index below gives each skill's name and description; when a request matches one, call skill_view(name) to read it and follow it; open a linked file with skill_view(name, file_path) only when you need it. skills_list returns the full list.",
    "Answer concisely. Never ask anyone to paste a password, token or API key into the chat; when a skill needs a missing environment variable, say which one and that it goes into the .env file on the gateway host.",
    "",
    "Skills available here:",
    index,
    ...(loaded ? ["", "Skills loaded in this chat (follow them when they apply):", loaded] : []),
  ].join("\n");
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** Notices for the person: missing secrets (with the setup hint) and security warnings of viewed skills. */
class Notices {
  private readonly lines = new Map<string, Text>();

  constructor(private readonly home: string) {}

  add(name: string, view: Record<string, unknown>): void {
    const missing = asStrings(view.missing_required_environment_variables);
    if (missing.length > 0 && !this.lines.has(`secret:${name}`)) {
      // The view's hint is English for the model; the person reads the catalog's.
      const hint = typeof view.gateway_setup_hint === "string" ? gatewaySetupHintText(this.home) : "";
      const names = list(missing.map((variable) => `\`${variable}\``));
      this.lines.set(`secret:${name}`, t("agent.needsSecret", { name, names, hint, count: missing.length }));
    }
    for (const warning of asStrings(view.security_warnings))
      this.lines.set(`security:${name}:${warning}`, t("agent.securityWarning", { name, warning }));
  }

  blocks(): ReplyBlock[] {
    return [...this.lines.values()].map((text) => ({ kind: "paragraph", text }));
  }
}

function replyBlocks(text: string): ReplyBlock[] {
  return text
    .trim()
    .split(/\n{2,}/)
    .filter((part) => part.trim() !== "")
    .map((part) => ({ kind: "paragraph", text: part }));
}

async function respond(
  options: ChatAgentOptions,
  client: ModelClient,
  message: InboundMessage,
  ctx: CommandContext,
): Promise<Reply> {
  const platform = ctx.platform ?? message.platform;
  const sessionKey = ctx.sessionKey ?? sessionKeyOf(message);
  const sessions = ctx.sessions ?? SessionStore.for(options.home);
  const library = options.library ?? ctx.library;
  const allowed: SkillToolName[] = ["skills_list", "skill_view"];
  let toolSet = toolSetOf(allowed);
  let visible: SkillEntry[];
  try {
    // Conditional activation: skills needing tools this agent lacks, and fallbacks for tools it has,
    // are not offered.
    visible = (await library.visible(platform)).filter(
      (entry) => activationBlocker(entry.frontmatter, toolSet) === null,
    );
  } catch (error) {
    // The visibility rule fails closed: no skill is offered while the config is broken.
    return errorReply(t("agent.skillsUnavailable", { detail: (error as Error).message }));
  }
  const loaded = await loadedSkillsText(
    library,
    await sessions.loadedSkills(sessionKey),
    platform,
    path.join(options.home, "config.yaml"),
  );
  const historyLimit = options.config.gateway.agent.historyMessages;
  const history = historyLimit > 0 ? (await sessions.history(sessionKey)).slice(-historyLimit) : [];
  // The conversation the top matches are chosen for: this message and the person's last two before it.
  const asked = [
    ...history
      .filter((entry) => entry.role === "user")
      .slice(-2)
      .map((entry) => entry.text),
    message.text,
  ];
  const index = await agentSkillIndex(
    library,
    platform,
    visible,
    asked.join("\n"),
    options.config.skills.agentListLimit,
  );
  if (index.searched) {
    allowed.splice(1, 0, "skills_search");
    toolSet = toolSetOf(allowed);
  }
  const messages: ChatMessage[] = [
    { role: "system", content: systemPrompt(platform, index.text, loaded, index.searched) },
    ...history.map((entry): ChatMessage => ({ role: entry.role, content: entry.text })),
    { role: "user", content: message.text },
  ];
  const notices = new Notices(options.home);
  const runtime: ToolRuntime = {
    library,
    home: options.home,
    platform,
    allowed,
    activation: toolSet,
    countUsage: true,
    onView: (name, view) => notices.add(name, view),
  };
  const tools = toolDefinitions(runtime.allowed);
  let answer = "";
  try {
    for (let turn = 1; turn <= MAX_AGENT_TURNS; turn += 1) {
      const response = await client.chat({ messages, tools: turn < MAX_AGENT_TURNS ? tools : undefined });
      messages.push(response.message);
      const calls = response.message.tool_calls ?? [];
      if (calls.length === 0) {
        answer = response.message.content ?? "";
        break;
      }
      for (const call of calls) {
        const ran = await runToolCall(runtime, call);
        let content = JSON.stringify(ran.output);
        if (content.length > MAX_TOOL_OUTPUT) content = `${content.slice(0, MAX_TOOL_OUTPUT)}… (truncated)`;
        messages.push({ role: "tool", tool_call_id: call.id, content });
      }
    }
  } catch (error) {
    if (error instanceof ModelError) {
      options.logger?.warn({ kind: error.kind, status: error.status }, "agent: model call failed");
      return errorReply(t("agent.modelFailed", { detail: error.message }));
    }
    throw error;
  }
  // No answer: the person reads the catalog's note; the history and --json keep its English.
  const unanswered = answer.trim() === "";
  if (unanswered) answer = english(t("agent.noAnswer"));
  if (historyLimit > 0) {
    const at = ctx.now().toISOString();
    await sessions.appendHistory(sessionKey, { role: "user", text: message.text, at }, historyLimit);
    await sessions.appendHistory(sessionKey, { role: "assistant", text: answer, at }, historyLimit);
  }
  const answerBlocks: ReplyBlock[] = unanswered
    ? [{ kind: "paragraph", text: t("agent.noAnswer") }]
    : replyBlocks(answer);
  return reply([...answerBlocks, ...notices.blocks()], { json: { ok: true, answer } });
}
