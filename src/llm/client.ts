/**
 * A small OpenAI-compatible chat-completions client with tool calls (no streaming). Each request has a
 * timeout (AbortController); 429 and 5xx answers and dropped connections are retried with exponential
 * backoff, honouring `Retry-After`. Failures become `ModelError`s whose messages say what to fix, with
 * the API key redacted from anything that could echo it.
 */
import { SkillgateError } from "../core/errors.js";
import type { ResolvedModel } from "./config.js";

/** A tool call the model asked for. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One chat message in OpenAI's wire shape. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** The assistant's answer. */
export type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;

/** A function tool offered to the model; `parameters` is a JSON schema. */
export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** One chat-completions call. */
export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** Cancels the call (and any retry wait) from outside, e.g. a pass-wide time cap. */
  signal?: AbortSignal;
}

/** What came back. */
export interface ChatResponse {
  message: AssistantMessage;
  finishReason: string | null;
  /** The model name the server reports (falls back to the requested one). */
  model: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
}

/** A chat-completions client bound to one model. */
export interface ModelClient {
  readonly model: string;
  readonly provider: string;
  readonly baseUrl: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
}

/** Why a model call failed; `kind` is stable for callers, the message tells a person what to fix. */
export type ModelErrorKind =
  | "unauthorized"
  | "not_found"
  | "bad_request"
  | "rate_limited"
  | "server"
  | "timeout"
  | "network"
  | "bad_response"
  | "aborted"
  | "not_configured";

/** A failed model call. */
export class ModelError extends SkillgateError {
  readonly kind: ModelErrorKind;
  readonly status: number | undefined;
  /** The server's `Retry-After`, in ms, when it sent one. */
  readonly retryAfterMs: number | undefined;
  constructor(
    kind: ModelErrorKind,
    message: string,
    options: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(`model.${kind}`, message, 1, { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Tuning knobs (tests shorten the waits). */
export interface ClientOptions {
  /** Retries after the first attempt for 429/5xx/connection errors. Default 3. */
  maxRetries?: number;
  /** First backoff wait (ms), doubled per retry. Default 1000. */
  baseDelayMs?: number;
  /** Longest single wait, including a server's Retry-After (ms). Default 60 000. */
  maxDelayMs?: number;
  /** Replaces global fetch. */
  fetch?: typeof fetch;
  /** Notified before each retry wait (never given the key). */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

/** Replaces every occurrence of `secret` (and its Bearer form) in `text`. */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join("[redacted]");
}

/** Builds a client for a resolved model. */
export function createModelClient(resolved: ResolvedModel, options: ClientOptions = {}): ModelClient {
  const doFetch = options.fetch ?? fetch;
  const maxRetries = options.maxRetries ?? 3;
  const baseDelay = options.baseDelayMs ?? 1000;
  const maxDelay = options.maxDelayMs ?? 60_000;
  const url = `${resolved.baseUrl}/chat/completions`;
  const keyHint = resolved.apiKeyVar
    ? `check ${resolved.apiKeyVar} (named by \`${resolved.source}.api_key\` or the provider default)`
    : `check \`${resolved.source}.api_key\``;
  const redact = (text: string) => redactSecret(text, resolved.apiKey);

  async function attempt(body: string, signal: AbortSignal | undefined): Promise<ChatResponse> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutSignal()), resolved.timeoutSeconds * 1000);
    const onOuterAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onOuterAbort, { once: true });
    try {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json",
      };
      if (resolved.apiKey) headers.authorization = `Bearer ${resolved.apiKey}`;
      let response: Response;
      let text: string;
      try {
        response = await doFetch(url, { method: "POST", headers, body, signal: controller.signal });
        text = await response.text();
      } catch (error) {
        throw transportError(error, controller.signal);
      }
      if (!response.ok) throw statusError(response, text);
      return parseResponse(text);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onOuterAbort);
    }
  }

  function transportError(error: unknown, signal: AbortSignal): ModelError {
    if (signal.aborted && signal.reason instanceof TimeoutSignal) {
      return new ModelError(
        "timeout",
        `The model ${resolved.model} at ${url} did not answer within ${resolved.timeoutSeconds}s; raise \`${resolved.source}.timeout\` (seconds) or check that the server is responsive.`,
      );
    }
    if (signal.aborted)
      return new ModelError("aborted", "The model call was cancelled (the run's time cap was reached).");
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (error as Error).message;
    return new ModelError(
      "network",
      redact(
        `Could not reach ${url} (${detail}); check \`${resolved.source}.base_url\` and that the server is running.`,
      ),
    );
  }

  function statusError(response: Response, text: string): ModelError {
    const status = response.status;
    const detail = redact(serverMessage(text)).slice(0, 300);
    const suffix = detail ? ` Server said: ${detail}` : "";
    if (status === 401 || status === 403) {
      return new ModelError(
        "unauthorized",
        `The model server at ${url} refused the API key (HTTP ${status}); ${keyHint}.${suffix}`,
        { status },
      );
    }
    if (status === 404) {
      return new ModelError(
        "not_found",
        `The model server answered 404 for model ${JSON.stringify(resolved.model)} at ${url}; check \`${resolved.source}.model\` and \`${resolved.source}.base_url\` (it usually ends in /v1).${suffix}`,
        { status },
      );
    }
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
    if (status === 429) {
      return new ModelError(
        "rate_limited",
        `The model server is rate-limiting requests (HTTP 429); wait and retry, or use another model.${suffix}`,
        { status, retryAfterMs },
      );
    }
    if (status >= 500) {
      return new ModelError(
        "server",
        `The model server failed (HTTP ${status}); retry later or check the server's logs.${suffix}`,
        { status, retryAfterMs },
      );
    }
    return new ModelError(
      "bad_request",
      `The model server rejected the request (HTTP ${status}); check \`${resolved.source}.model\` and \`${resolved.source}.extra_body\`.${suffix}`,
      { status },
    );
  }

  function parseResponse(text: string): ChatResponse {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new ModelError(
        "bad_response",
        `The model server at ${url} did not answer with JSON; check \`${resolved.source}.base_url\` points at an OpenAI-compatible API.`,
      );
    }
    const root = data as { choices?: unknown; model?: unknown; usage?: ChatResponse["usage"] };
    const choice = Array.isArray(root.choices)
      ? (root.choices[0] as Record<string, unknown> | undefined)
      : undefined;
    const message = choice?.message as Record<string, unknown> | undefined;
    if (!message || typeof message !== "object") {
      throw new ModelError(
        "bad_response",
        `The model server at ${url} answered without choices[0].message; check that it speaks OpenAI chat completions.`,
      );
    }
    return {
      message: {
        role: "assistant",
        content: typeof message.content === "string" ? message.content : null,
        ...(normalizeToolCalls(message.tool_calls) ?? {}),
      },
      finishReason: typeof choice?.finish_reason === "string" ? choice.finish_reason : null,
      model: typeof root.model === "string" && root.model !== "" ? root.model : resolved.model,
      usage: root.usage,
    };
  }

  return {
    model: resolved.model,
    provider: resolved.provider,
    baseUrl: resolved.baseUrl,
    async chat(request) {
      const body = JSON.stringify({
        ...resolved.extraBody,
        model: resolved.model,
        messages: request.messages,
        ...(request.tools && request.tools.length > 0 ? { tools: request.tools, tool_choice: "auto" } : {}),
        stream: false,
      });
      for (let retry = 0; ; retry += 1) {
        try {
          return await attempt(body, request.signal);
        } catch (error) {
          if (
            !(error instanceof ModelError) ||
            !isRetryable(error) ||
            retry >= maxRetries ||
            request.signal?.aborted
          )
            throw error;
          const wait = Math.min(maxDelay, error.retryAfterMs ?? baseDelay * 2 ** retry);
          options.onRetry?.({ attempt: retry + 1, delayMs: wait, reason: error.message });
          await sleep(wait, request.signal);
        }
      }
    },
  };
}

class TimeoutSignal extends Error {
  constructor() {
    super("timeout");
  }
}

function isRetryable(error: ModelError): boolean {
  return error.kind === "rate_limited" || error.kind === "server" || error.kind === "network";
}

/** Parses `Retry-After` (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function serverMessage(text: string): string {
  try {
    const data = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof data.error === "string") return data.error;
    if (data.error && typeof data.error.message === "string") return data.error.message;
    if (typeof data.message === "string") return data.message;
  } catch {
    // Not JSON: show a trimmed excerpt.
  }
  return text.replace(/\s+/g, " ").trim();
}

function normalizeToolCalls(raw: unknown): { tool_calls: ToolCall[] } | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const calls: ToolCall[] = [];
  raw.forEach((item, index) => {
    const fn = (item as { function?: { name?: unknown; arguments?: unknown } })?.function;
    if (!fn || typeof fn.name !== "string") return;
    const args = typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    const id = (item as { id?: unknown }).id;
    calls.push({
      id: typeof id === "string" && id !== "" ? id : `call_${index}`,
      type: "function",
      function: { name: fn.name, arguments: args },
    });
  });
  return calls.length > 0 ? { tool_calls: calls } : undefined;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ModelError("aborted", "The model call was cancelled (the run's time cap was reached)."));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ModelError("aborted", "The model call was cancelled (the run's time cap was reached)."));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
