import { promises as fs } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMockAdapter, type MockAdapter } from "../../adapters/mock/index.js";
import type { SkillgateConfig } from "../../src/config/config.js";
import { homePaths } from "../../src/config/home.js";
import { createChatAgent } from "../../src/gateway/agent.js";
import { createGateway, type Gateway } from "../../src/gateway/gateway.js";
import { createModelClient } from "../../src/llm/client.js";
import { finalText, type OpenAIEmulator, startOpenAIEmulator, toolCalls } from "../emulators/openai.js";
import { config, library, makeHome, readUsage, removeHome, writeSkill } from "./helpers.js";

const KEY = "sk-chat-VERYSECRET-777";

let home: string;
let emulator: OpenAIEmulator;
let cfg: SkillgateConfig;
let adapter: MockAdapter;
let gateway: Gateway | undefined;

function makeConfig(agent: Record<string, unknown> = { enabled: true }): SkillgateConfig {
  return config({
    model: { provider: "custom", default: "chat-model", base_url: emulator.baseUrl, api_key: "CHAT_LLM_KEY" },
    skills: { platform_disabled: { mock: ["secret-ops"] } },
    gateway: { admins: ["mock:u1"], health: { enabled: false }, maintenance: { check_minutes: 600 }, agent },
  });
}

async function startGateway(): Promise<void> {
  const agent = createChatAgent({
    home,
    config: cfg,
    library: library(home, cfg),
    env: { CHAT_LLM_KEY: KEY },
    createClient: (model) => createModelClient(model, { maxRetries: 0 }),
  });
  if (!agent) throw new Error("agent did not resolve");
  adapter = createMockAdapter();
  gateway = createGateway({ home, config: cfg, adapters: [adapter], agent });
  await gateway.start();
}

function systemPrompt(index: number): string {
  return String(emulator.requests[index]?.body.messages?.[0]?.content);
}

function toolResults(index: number): string[] {
  return (emulator.requests[index]?.body.messages ?? [])
    .filter((message) => message.role === "tool")
    .map((message) => String(message.content));
}

beforeEach(async () => {
  home = await makeHome();
  emulator = await startOpenAIEmulator();
  cfg = makeConfig();
  await writeSkill(home, "devops/cloud-deploy", {
    description: "Deploy a web app to the cloud dev environment.",
    extra: "required_environment_variables:\n  - name: DEPLOY_TOKEN\n    prompt: Deploy token\n",
    body: "# Cloud deploy\n\nNever change the nginx listen line. Details in references/nginx.md.\n",
    files: { "references/nginx.md": "Bind nginx to 10.0.0.1:443 only." },
  });
  await writeSkill(home, "secret-ops", { description: "Internal operations that must not reach chat." });
});

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await emulator.close();
  await removeHome(home);
});

describe("chat agent", () => {
  it("answers by listing, viewing a skill and a linked file; shows the missing-secret hint; never offers a disabled skill", async () => {
    await startGateway();
    emulator.push(
      toolCalls({ name: "skills_list", arguments: {} }),
      toolCalls({ name: "skill_view", arguments: { name: "cloud-deploy" } }),
      toolCalls(
        { name: "skill_view", arguments: { name: "cloud-deploy", file_path: "references/nginx.md" } },
        { name: "skill_view", arguments: { name: "secret-ops" } },
      ),
      finalText("Bind nginx to 10.0.0.1:443 and leave the listen line alone."),
    );
    const text = await adapter.shouldReply("How do I deploy my app?", "Bind nginx to 10.0.0.1:443");
    expect(text).toContain("DEPLOY_TOKEN");
    expect(text).toMatch(/not supported over messaging|\.env/);
    expect(text).not.toContain(KEY);

    const first = emulator.requests[0]?.body;
    expect(emulator.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(first?.model).toBe("chat-model");
    expect(first?.tools?.map((tool) => tool.function.name)).toEqual(["skills_list", "skill_view"]);
    expect(systemPrompt(0)).toContain("- cloud-deploy: Deploy a web app to the cloud dev environment.");
    expect(first?.messages?.at(-1)).toEqual({ role: "user", content: "How do I deploy my app?" });
    const results = toolResults(3);
    expect(results[0]).toContain("cloud-deploy");
    expect(results[1]).toContain("Never change the nginx listen line");
    expect(results[1]).toContain("references/nginx.md");
    expect(results[2]).toContain("Bind nginx to 10.0.0.1:443 only.");
    expect(results[3]).toMatch(/"success":false/);
    // The disabled skill never reaches the model: not in the index, not in the list, not viewable.
    for (const request of emulator.requests)
      expect(request.rawBody).not.toContain("Internal operations that must not reach chat");
    const usage = await readUsage(home);
    expect(usage["cloud-deploy"]).toMatchObject({ view_count: 2, use_count: 2 });
    expect(usage["secret-ops"]?.view_count ?? 0).toBe(0);
  });

  it("puts skills loaded with /<skill> into the system prompt and keeps a bounded history", async () => {
    cfg = makeConfig({ enabled: true, history_messages: 2 });
    await startGateway();
    await adapter.shouldReply("/cloud-deploy", "cloud-deploy");
    emulator.push(finalText("first answer"), finalText("second answer"), finalText("third answer"));
    await adapter.shouldReply("question one", "first answer");
    await adapter.shouldReply("question two", "second answer");
    await adapter.shouldReply("question three", "third answer");
    expect(systemPrompt(0)).toContain("Skills loaded in this chat");
    expect(systemPrompt(0)).toContain("Never change the nginx listen line");
    const roles = (index: number) =>
      emulator.requests[index]?.body.messages?.map((message) => `${message.role}:${message.content ?? ""}`);
    expect(roles(0)?.slice(1)).toEqual(["user:question one"]);
    expect(roles(1)?.slice(1)).toEqual(["user:question one", "assistant:first answer", "user:question two"]);
    // Only the last two history entries survive.
    expect(roles(2)?.slice(1)).toEqual([
      "user:question two",
      "assistant:second answer",
      "user:question three",
    ]);
  });

  it("offers only skills its own tools can use: requires_tools/toolsets and fallbacks are applied; loaded skills carry their settings", async () => {
    await writeSkill(home, "shell-runner", {
      description: "Runs shell recipes in a terminal.",
      extra: "metadata:\n  hermes:\n    requires_tools: [terminal]\n",
    });
    await writeSkill(home, "web-lite", {
      description: "Reads pages when no web toolset exists.",
      extra: "metadata:\n  hermes:\n    fallback_for_toolsets: [web]\n",
    });
    await writeSkill(home, "list-fallback", {
      description: "Only when skills tools are missing.",
      extra: "metadata:\n  hermes:\n    fallback_for_toolsets: [skills]\n",
    });
    await writeSkill(home, "wiki", {
      description: "Wiki notes.",
      extra:
        "metadata:\n  hermes:\n    config:\n      - key: wiki.path\n        description: Wiki path\n        default: /srv/wiki\n",
    });
    await startGateway();
    await adapter.shouldReply("/wiki", "wiki");
    emulator.push(toolCalls({ name: "skills_list", arguments: {} }), finalText("done"));
    await adapter.shouldReply("what can you do?", "done");
    const prompt = systemPrompt(0);
    expect(prompt).toContain("- web-lite:");
    expect(prompt).not.toContain("shell-runner");
    expect(prompt).not.toContain("list-fallback");
    expect(prompt).toContain("[Skill config (from ");
    expect(prompt).toContain("  wiki.path = /srv/wiki");
    const listed = toolResults(1)[0] ?? "";
    expect(listed).toContain("web-lite");
    expect(listed).not.toContain("shell-runner");
    expect(listed).not.toContain("list-fallback");
  });

  it("a model failure becomes a reply that says what to fix, without the key", async () => {
    await startGateway();
    emulator.push({ kind: "error", status: 401, message: `bad key ${KEY}` });
    const text = await adapter.shouldReply("hello", "The model could not answer");
    expect(text).toContain("CHAT_LLM_KEY");
    expect(text).not.toContain(KEY);
  });

  it("is null when gateway.agent.enabled is off or no model resolves; the gateway then answers with the hint", async () => {
    const lib = library(home, cfg);
    expect(
      createChatAgent({
        home,
        config: makeConfig({ enabled: false }),
        library: lib,
        env: { CHAT_LLM_KEY: KEY },
      }),
    ).toBeNull();
    const noModel = config({
      gateway: { admins: ["mock:u1"], health: { enabled: false }, agent: { enabled: true } },
    });
    const warnings: string[] = [];
    const logger = { warn: (_: object, msg: string) => warnings.push(msg), info: () => undefined };
    expect(createChatAgent({ home, config: noModel, library: lib, logger })).toBeNull();
    expect(warnings.join("\n")).toMatch(/no model resolves/);
    const missingKey = createChatAgent({ home, config: cfg, library: lib, env: {} });
    expect(missingKey).toBeNull();

    adapter = createMockAdapter();
    gateway = createGateway({ home, config: noModel, adapters: [adapter] });
    await gateway.start();
    await adapter.shouldReply("hello there", "no language model is configured");
    expect(emulator.requests).toHaveLength(0);
  });

  it("with a broken visibility config no skill is offered (fail closed)", async () => {
    const broken = config({
      model: { provider: "custom", default: "chat-model", base_url: emulator.baseUrl },
      skills: { platform_disabled: { mock: { not: "a list" } } },
      gateway: { admins: ["mock:u1"], health: { enabled: false }, agent: { enabled: true } },
    });
    const lib = library(home, broken);
    const agent = createChatAgent({ home, config: broken, library: lib, env: {} });
    expect(agent).not.toBeNull();
    adapter = createMockAdapter();
    gateway = createGateway({ home, config: broken, adapters: [adapter], agent: agent ?? undefined });
    await gateway.start();
    await adapter.shouldReply("hi", "Skills are unavailable here");
    expect(emulator.requests).toHaveLength(0);
    expect(await fs.stat(homePaths(home).usage).catch(() => null)).toBeNull();
  });
  it("above skills.search.agent_list_limit the prompt carries the conversation's best matches and skills_search finds the rest", async () => {
    cfg = config({
      model: {
        provider: "custom",
        default: "chat-model",
        base_url: emulator.baseUrl,
        api_key: "CHAT_LLM_KEY",
      },
      skills: { platform_disabled: { mock: ["secret-ops"] }, search: { agent_list_limit: 2 } },
      gateway: {
        admins: ["mock:u1"],
        health: { enabled: false },
        maintenance: { check_minutes: 600 },
        agent: { enabled: true },
      },
    });
    await writeSkill(home, "data/postgres-backup", {
      description: "Dump a PostgreSQL database and verify the restore.",
    });
    await writeSkill(home, "media/video-transcode", { description: "用 ffmpeg 转码视频并生成字幕。" });
    await startGateway();
    emulator.push(
      toolCalls({ name: "skills_search", arguments: { query: "视频 字幕" } }),
      finalText("Use video-transcode."),
    );
    await adapter.shouldReply("How do I back up my postgres database?", "Use video-transcode.");
    const first = emulator.requests[0]?.body;
    expect(first?.tools?.map((tool) => tool.function.name)).toEqual([
      "skills_list",
      "skills_search",
      "skill_view",
    ]);
    expect(systemPrompt(0)).toContain(
      "- postgres-backup: Dump a PostgreSQL database and verify the restore.",
    );
    expect(systemPrompt(0)).not.toContain("video-transcode");
    expect(systemPrompt(0)).not.toContain("secret-ops");
    expect(systemPrompt(0)).toContain("skills_search(query)");
    expect(toolResults(1)[0]).toContain("video-transcode");
  });
});
