import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { english } from "../../src/core/i18n/messages.js";
import { createModelClient, ModelError, parseRetryAfter } from "../../src/llm/client.js";
import type { ResolvedModel } from "../../src/llm/config.js";
import { resolveChatModel, resolveCuratorModel } from "../../src/llm/config.js";
import { finalText, type OpenAIEmulator, startOpenAIEmulator, toolCalls } from "../emulators/openai.js";

const SECRET = "sk-test-SECRET-0123456789abcdef";

function model(emulator: OpenAIEmulator, overrides: Partial<ResolvedModel> = {}): ResolvedModel {
  return {
    provider: "custom",
    model: "test-model",
    baseUrl: emulator.baseUrl,
    apiKey: SECRET,
    apiKeyVar: "TEST_MODEL_KEY",
    timeoutSeconds: 5,
    extraBody: {},
    source: "auxiliary.curator",
    ...overrides,
  };
}

/** What `client` throws when asked one message (a test fails if it answers). */
async function failureOf(client: ReturnType<typeof createModelClient>): Promise<ModelError> {
  const error = await client.chat({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe("model client", () => {
  let emulator: OpenAIEmulator;
  beforeEach(async () => {
    emulator = await startOpenAIEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("sends model, messages, tools, extra_body and the bearer key; parses tool calls", async () => {
    emulator.push(toolCalls({ name: "skills_list", arguments: {} }));
    const client = createModelClient(
      model(emulator, { extraBody: { temperature: 0.1, provider: { order: ["x"] } } }),
    );
    const response = await client.chat({
      messages: [{ role: "user", content: "hi" }],
      tools: [
        {
          type: "function",
          function: { name: "skills_list", description: "list", parameters: { type: "object" } },
        },
      ],
    });
    expect(response.message.tool_calls?.[0]?.function.name).toBe("skills_list");
    expect(response.finishReason).toBe("tool_calls");
    const sent = emulator.requests[0];
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent?.body.model).toBe("test-model");
    expect(sent?.body.temperature).toBe(0.1);
    expect(sent?.body.provider).toEqual({ order: ["x"] });
    expect(sent?.body.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(sent?.body.tools?.[0]?.function.name).toBe("skills_list");
    expect(sent?.body.stream).toBe(false);
  });

  it("retries 429 and 500 with backoff, honouring Retry-After, then succeeds", async () => {
    emulator.push(
      { kind: "error", status: 429, headers: { "retry-after": "0" } },
      { kind: "error", status: 500 },
      { kind: "error", status: 503 },
      finalText("done"),
    );
    const waits: number[] = [];
    const client = createModelClient(model(emulator), {
      baseDelayMs: 5,
      onRetry: (info) => waits.push(info.delayMs),
    });
    const response = await client.chat({ messages: [{ role: "user", content: "x" }] });
    expect(response.message.content).toBe("done");
    expect(emulator.requests).toHaveLength(4);
    // Retry-After: 0 wins over backoff for the 429; then 5·2¹ and 5·2² for the 5xx answers.
    expect(waits).toEqual([0, 10, 20]);
  });

  it("gives up after maxRetries and says what happened", async () => {
    emulator.push(
      { kind: "error", status: 502 },
      { kind: "error", status: 502 },
      { kind: "error", status: 502 },
    );
    const client = createModelClient(model(emulator), { maxRetries: 2, baseDelayMs: 1 });
    const error = await client.chat({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).kind).toBe("server");
    expect((error as ModelError).message).toMatch(/HTTP 502/);
    expect(emulator.requests).toHaveLength(3);
  });

  it("401 names the env var to check and never shows the key, even when the server echoes it", async () => {
    emulator.push({ kind: "error", status: 401, message: `invalid key ${SECRET}` });
    const client = createModelClient(model(emulator));
    const error = await failureOf(client);
    expect(error.kind).toBe("unauthorized");
    expect(error.message).toContain("TEST_MODEL_KEY");
    expect(error.message).not.toContain(SECRET);
    expect(error.message).toContain("[redacted]");
    expect(emulator.requests).toHaveLength(1);
  });

  it("404 points at model and base_url", async () => {
    emulator.push({ kind: "error", status: 404, message: "model not found" });
    const client = createModelClient(model(emulator));
    const error = await failureOf(client);
    expect(error.kind).toBe("not_found");
    expect(error.message).toContain("auxiliary.curator.model");
    expect(error.message).toContain("auxiliary.curator.base_url");
  });

  it("a hanging server times out with a hint to raise the timeout, without retrying", async () => {
    emulator.push({ kind: "hang" });
    const client = createModelClient(model(emulator, { timeoutSeconds: 0.3 }), { baseDelayMs: 1 });
    const error = await failureOf(client);
    expect(error.kind).toBe("timeout");
    expect(error.message).toContain("auxiliary.curator.timeout");
    expect(emulator.requests).toHaveLength(1);
  });

  it("a non-JSON answer is a bad_response naming base_url", async () => {
    emulator.push({ kind: "raw", status: 200, body: "<html>hello</html>" });
    const client = createModelClient(model(emulator));
    const error = await failureOf(client);
    expect(error.kind).toBe("bad_response");
    expect(error.message).toContain("base_url");
  });

  it("an unreachable server is a network error after retries", async () => {
    const closed = await startOpenAIEmulator();
    const url = closed.baseUrl;
    await closed.close();
    const client = createModelClient(model(emulator, { baseUrl: url }), { maxRetries: 1, baseDelayMs: 1 });
    const error = await failureOf(client);
    expect(error.kind).toBe("network");
    expect(error.message).toContain("base_url");
  });

  it("an outer abort cancels a hanging call", async () => {
    emulator.push({ kind: "hang" });
    const client = createModelClient(model(emulator, { timeoutSeconds: 30 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = (await client
      .chat({ messages: [{ role: "user", content: "x" }], signal: controller.signal })
      .catch((e: unknown) => e)) as ModelError;
    expect(error.kind).toBe("aborted");
  });

  it("parses Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe("model resolution (reference B6, scenarios 24–25)", () => {
  let home: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-llm-"));
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  const mainModel = {
    provider: "custom",
    default: "main-m",
    base_url: "http://127.0.0.1:9/v1",
    api_key: "main-key",
  };

  it("an auto slot with no model falls back to the main model", () => {
    const config = parseConfig({ model: mainModel, auxiliary: { curator: { provider: "auto" } } });
    const result = resolveCuratorModel(config, home, {});
    expect(result.ok && result.model.model).toBe("main-m");
    expect(result.ok && result.model.source).toBe("model");
    expect(result.ok && result.model.apiKey).toBe("main-key");
  });

  it("a full slot is used with its own key and base_url; extra_body merges over the same provider's", () => {
    const config = parseConfig({
      model: { provider: "openrouter", default: "main-m", extra_body: { a: 1, b: 1 } },
      auxiliary: {
        curator: {
          provider: "openrouter",
          model: "cheap",
          base_url: "http://127.0.0.1:9/v1/",
          api_key: "slot-key",
          timeout: 600,
          extra_body: { b: 2 },
        },
      },
    });
    const result = resolveCuratorModel(config, home, {});
    if (!result.ok) throw new Error(result.reason);
    expect(result.model).toMatchObject({
      provider: "openrouter",
      model: "cheap",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "slot-key",
      timeoutSeconds: 600,
      extraBody: { a: 1, b: 2 },
      source: "auxiliary.curator",
    });
  });

  it("a partial slot (provider without model) falls back to the main model", () => {
    const config = parseConfig({ model: mainModel, auxiliary: { curator: { provider: "openrouter" } } });
    const result = resolveCuratorModel(config, home, {});
    expect(result.ok && result.model.source).toBe("model");
  });

  it("the legacy curator.auxiliary block works and carries the deprecation; the new slot beats it", () => {
    const legacy = { provider: "custom", model: "old-m", base_url: "http://127.0.0.1:9/v1" };
    const config = parseConfig({ model: mainModel, curator: { auxiliary: legacy } });
    const result = resolveCuratorModel(config, home, {});
    expect(result.ok && result.model.model).toBe("old-m");
    expect(result.ok && result.model.source).toBe("curator.auxiliary");
    expect(config.warnings.join("\n")).toMatch(/curator\.auxiliary.*deprecated/);
    expect(result.notes.map((note) => english(note)).join("\n")).toMatch(/deprecated/);

    const both = parseConfig({
      curator: { auxiliary: legacy },
      auxiliary: { curator: { provider: "custom", model: "new-m", base_url: "http://127.0.0.1:9/v1" } },
    });
    const winner = resolveCuratorModel(both, home, {});
    expect(winner.ok && winner.model.model).toBe("new-m");
  });

  it("missing sections resolve to the main model; nothing at all is a clear reason", () => {
    const result = resolveCuratorModel(parseConfig({ model: mainModel }), home, {});
    expect(result.ok && result.model.model).toBe("main-m");
    const none = resolveCuratorModel(parseConfig({}), home, {});
    expect(none.ok).toBe(false);
    expect(!none.ok && none.reason).toMatch(/auxiliary\.curator/);
  });

  it("api_key may name an env var (bare, $VAR or braced), looked up in <home>/.env and the environment", async () => {
    await fs.writeFile(path.join(home, ".env"), 'export MY_MODEL_KEY="from-dotenv"\n');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal `${VAR}` spelling is what is tested
    for (const spelling of ["MY_MODEL_KEY", "$MY_MODEL_KEY", "${MY_MODEL_KEY}"]) {
      const config = parseConfig({ model: { ...mainModel, api_key: spelling } });
      const result = resolveChatModel(config, home, {});
      expect(result.ok && result.model.apiKey).toBe("from-dotenv");
      expect(result.ok && result.model.apiKeyVar).toBe("MY_MODEL_KEY");
    }
    const fromEnv = resolveChatModel(
      parseConfig({ model: { ...mainModel, api_key: "MY_MODEL_KEY" } }),
      home,
      { MY_MODEL_KEY: "from-env" },
    );
    expect(fromEnv.ok && fromEnv.model.apiKey).toBe("from-env");
    const missing = resolveChatModel(
      parseConfig({ model: { ...mainModel, api_key: "NOT_SET_ANYWHERE" } }),
      home,
      {},
    );
    expect(!missing.ok && missing.reason).toMatch(/NOT_SET_ANYWHERE.*\.env/);
  });

  it("a known provider without base_url gets its public address and default key variable", () => {
    const config = parseConfig({ auxiliary: { curator: { provider: "openrouter", model: "m" } } });
    const result = resolveCuratorModel(config, home, { OPENROUTER_API_KEY: "k" });
    expect(result.ok && result.model.baseUrl).toBe("https://openrouter.ai/api/v1");
    expect(result.ok && result.model.apiKeyVar).toBe("OPENROUTER_API_KEY");
    const noKey = resolveCuratorModel(config, home, {});
    expect(!noKey.ok && noKey.reason).toMatch(/OPENROUTER_API_KEY/);
    const unknown = resolveCuratorModel(
      parseConfig({ auxiliary: { curator: { provider: "vllm", model: "m" } } }),
      home,
      {},
    );
    expect(!unknown.ok && unknown.reason).toMatch(/base_url/);
  });

  it("a resolved key from an env var is used on the wire but never appears in any error", async () => {
    const emulator = await startOpenAIEmulator([
      { kind: "error", status: 403, message: `bad token ${SECRET}` },
    ]);
    try {
      const config = parseConfig({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal `${VAR}` spelling is what is tested
        model: { provider: "custom", default: "m", base_url: emulator.baseUrl, api_key: "${LLM_KEY}" },
      });
      const result = resolveChatModel(config, home, { LLM_KEY: SECRET });
      if (!result.ok) throw new Error(result.reason);
      expect(JSON.stringify(result.notes)).not.toContain(SECRET);
      const error = await failureOf(createModelClient(result.model));
      expect(emulator.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(error.message).toContain("LLM_KEY");
      expect(`${error.message} ${error.stack ?? ""}`).not.toContain(SECRET);
    } finally {
      await emulator.close();
    }
  });
});
