/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1 (ephemeral port). A test queues the
 * model's answers — assistant messages with tool calls, final text, HTTP errors, a hang that never
 * answers — and afterwards asserts on what the client sent (messages, tools, model, extra_body, headers).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A tool call the scripted model makes; `arguments` may be an object (serialized) or raw text. */
export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
}

/** One scripted answer. */
export type ScriptStep =
  | { kind: "message"; content?: string | null; toolCalls?: ScriptedToolCall[]; model?: string }
  | { kind: "error"; status: number; message?: string; headers?: Record<string, string> }
  | { kind: "raw"; status: number; body: string; contentType?: string }
  /** Never answers; the socket stays open until the client gives up or the server closes. */
  | { kind: "hang" }
  /** Computes the answer from the request (e.g. to echo a tool result). */
  | { kind: "dynamic"; respond: (request: RecordedRequest) => ScriptStep };

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (undefined when it was not JSON). */
  body: ChatBody;
  rawBody: string;
}

/** The parts of a chat-completions body tests look at. */
export interface ChatBody {
  model?: string;
  messages?: { role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  [key: string]: unknown;
}

/** A running emulator. */
export interface OpenAIEmulator {
  /** `http://127.0.0.1:<port>/v1`, to use as `base_url`. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Appends answers to the script. */
  push(...steps: ScriptStep[]): void;
  /** Answers not yet used. */
  remaining(): number;
  close(): Promise<void>;
}

/** Shorthand: an assistant turn that calls tools. */
export function toolCalls(...calls: ScriptedToolCall[]): ScriptStep {
  return { kind: "message", content: null, toolCalls: calls };
}

/** Shorthand: a final assistant answer. */
export function finalText(content: string): ScriptStep {
  return { kind: "message", content };
}

/** Starts the server. Requests beyond the script get HTTP 400 `emulator script exhausted`. */
export async function startOpenAIEmulator(steps: ScriptStep[] = []): Promise<OpenAIEmulator> {
  const script = [...steps];
  const requests: RecordedRequest[] = [];
  let callCounter = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: ChatBody = {};
      try {
        body = JSON.parse(rawBody) as ChatBody;
      } catch {
        // Recorded raw; tests may inspect it.
      }
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        rawBody,
      };
      requests.push(recorded);
      if (req.method !== "POST" || !(req.url ?? "").endsWith("/chat/completions")) {
        send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
        return;
      }
      let step = script.shift();
      while (step?.kind === "dynamic") step = step.respond(recorded);
      answer(res, step, body);
    });
  });

  function answer(res: http.ServerResponse, step: ScriptStep | undefined, body: ChatBody): void {
    if (!step) {
      send(res, 400, { error: { message: "emulator script exhausted" } });
      return;
    }
    switch (step.kind) {
      case "hang":
        return;
      case "error":
        send(
          res,
          step.status,
          { error: { message: step.message ?? `scripted HTTP ${step.status}` } },
          step.headers,
        );
        return;
      case "raw":
        res.writeHead(step.status, { "content-type": step.contentType ?? "text/plain" });
        res.end(step.body);
        return;
      case "message": {
        const calls = (step.toolCalls ?? []).map((call) => ({
          id: call.id ?? `call_${++callCounter}`,
          type: "function",
          function: {
            name: call.name,
            arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
          },
        }));
        send(res, 200, {
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: step.model ?? body.model ?? "scripted",
          choices: [
            {
              index: 0,
              finish_reason: calls.length > 0 ? "tool_calls" : "stop",
              message: {
                role: "assistant",
                content: step.content ?? null,
                ...(calls.length > 0 ? { tool_calls: calls } : {}),
              },
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
        return;
      }
      case "dynamic":
        return;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...more) => {
      script.push(...more);
    },
    remaining: () => script.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(
  res: http.ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(payload));
}
