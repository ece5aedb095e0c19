import { promises as fs } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { registry } from "../../commands/index.js";
import type { CommandSpec } from "../../commands/types.js";
import { english } from "../../src/core/i18n/messages.js";
import { textReply } from "../../src/core/reply.js";
import { type ChatAgent, createGateway, NO_AGENT_REPLY } from "../../src/gateway/gateway.js";
import { SessionStore } from "../../src/gateway/sessions.js";
import { UsageStore } from "../../src/skills/usage.js";
import { gatewayDoc, makeHome, removeHome, startGateway, writeConfig, writeSkill } from "./helpers.js";

let home: string;
beforeEach(async () => {
  home = await makeHome();
  await writeSkill(home, {
    name: "pdf-tools",
    category: "docs",
    files: { "references/api.md": "# The API\n" },
  });
  await writeSkill(home, { name: "arxiv", description: "search papers" });
});
afterEach(async () => {
  await removeHome(home);
});

describe("router", () => {
  it("answers registry commands; bare /curator is status; /skills lists skills", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home, config });
    const status = await mock.shouldReply("/curator status", "curator: ENABLED", { user: "reader" });
    expect(await mock.shouldReply("/curator", "curator: ENABLED", { user: "reader" })).toBe(status);
    await mock.shouldReply("/skills", ["pdf-tools", "arxiv"], { user: "reader" });
    await gateway.stop();
  });

  it("points unknown commands to /help and treats paths as text", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home, config });
    await mock.shouldReply("/nosuchcmd", ["Unknown command `/nosuchcmd`", "/help"], { user: "reader" });
    await mock.shouldReply("/etc/hosts is broken", english(NO_AGENT_REPLY), { user: "reader" });
    await mock.shouldReply("/curator frobnicate", ["Unknown subcommand", "status"], { user: "reader" });
    // A typo of a top-level command is answered with the command it resembles.
    await mock.shouldReply("/curatr status", ["Unknown command `/curatr`", "Did you mean `/curator`?"], {
      user: "reader",
    });
    await mock.shouldReply("/skil", ["Did you mean `/skill`?"], { user: "reader" });
    const far = await mock.shouldReply("/nosuchcmd", "/help", { user: "reader" });
    expect(far).not.toContain("Did you mean");
    await gateway.stop();
  });

  it("sends non-command text to the agent, with the chat context", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const respond = vi.fn<ChatAgent["respond"]>(async (message) => textReply(`agent heard: ${message.text}`));
    const { gateway, mock } = await startGateway({ home, config, agent: { respond } });
    await mock.shouldReply("hello there", "agent heard: hello there", { user: "reader", chat: "c1" });
    expect(respond.mock.calls[0]?.[1]).toMatchObject({
      surface: "chat",
      platform: "mock",
      sessionKey: "mock:c1",
    });
    await mock.shouldReply("/curator status", "curator: ENABLED", { user: "reader" });
    expect(respond).toHaveBeenCalledTimes(1);
    await gateway.stop();
  });

  it("answers with a short error when the agent fails", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const agent: ChatAgent = { respond: async () => Promise.reject(new Error("model timed out")) };
    const { gateway, mock } = await startGateway({ home, config, agent });
    await mock.shouldReply("hi", ["could not answer", "model timed out"], { user: "reader" });
    await gateway.stop();
  });

  it("keeps the argument of a pre-parsed /cmd@bot command from the adapter", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home, config, mock: { platform: "telegram" } });
    await mock.shouldReply("/skill@SkillBot pdf-tools", "Skill loaded: pdf-tools", {
      user: "reader",
      command: { name: "skill", args: ["pdf-tools"], rawArgs: "pdf-tools" },
    });
    await gateway.stop();
  });
});

describe("access", () => {
  it("refuses /curator pin to a non-admin and pins for an admin (checked at execution)", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home, config });
    await mock.shouldReply("/curator pin pdf-tools", ["⛔", "admins only", "mock:reader"], {
      user: "reader",
    });
    expect((await new UsageStore(path.join(home, "skills")).read())["pdf-tools"]?.pinned ?? false).toBe(
      false,
    );
    await mock.shouldReply("/curator pin pdf-tools", "pinned 'pdf-tools'", { user: "admin" });
    expect((await new UsageStore(path.join(home, "skills")).read())["pdf-tools"]?.pinned).toBe(true);
    await gateway.stop();
  });

  it("tells a stranger in a DM their platform:id once; groups stay silent", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home, config });
    await mock.shouldReply("/curator status", ["mock:stranger", "gateway.allowed_users"], {
      user: "stranger",
    });
    await mock.shouldNotReply("/curator status", { user: "stranger" });
    await mock.shouldNotReply("/curator status", { user: "other", chat: "group-1", kind: "group" });
    await mock.shouldNotReply("/help", { user: "admin", isBot: true });
    await gateway.stop();
  });

  it("admits members of an allowed chat for read-only commands only", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc({ allowed_chats: ["mock:team"] }) });
    const { gateway, mock } = await startGateway({ home, config });
    await mock.shouldReply("/whoami", ["mock:someone", "allowed user"], {
      user: "someone",
      chat: "team",
      kind: "group",
    });
    await mock.shouldReply("/curator pause", "admins only", { user: "someone", chat: "team", kind: "group" });
    await gateway.stop();
  });

  it("whoami shows platform:id and role", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home, config });
    await mock.shouldReply("/whoami", ["`mock:admin`", "admin"], { user: "admin" });
    await mock.shouldReply("/whoami", ["`mock:reader`", "read-only"], { user: "reader" });
    // In a group it also names the group, the id gateway.home_channel and allowed_chats take.
    const inGroup = await mock.shouldReply(
      "/whoami",
      ["`mock:admin`", "This group is `mock:oc_team42`", "gateway.home_channel", "gateway.allowed_chats"],
      { user: "admin", chat: "oc_team42", kind: "group" },
    );
    expect(inGroup).not.toContain("direct chat");
    await mock.shouldReply("/whoami", ["This direct chat is `mock:admin`"], { user: "admin" });
    await gateway.stop();
  });
});

describe("dedupe and ordering", () => {
  it("handles a redelivered event once, also after a restart", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const first = await startGateway({ home, config });
    await first.mock.shouldReply("/whoami", "mock:reader", { user: "reader", eventId: "evt-7" });
    await first.mock.shouldNotReply("/whoami", { user: "reader", eventId: "evt-7" });
    await first.gateway.stop();
    const second = await startGateway({ home, config });
    await second.mock.shouldNotReply("/whoami", { user: "reader", eventId: "evt-7" });
    await second.mock.shouldReply("/whoami", "mock:reader", { user: "reader", eventId: "evt-8" });
    await second.gateway.stop();
  });

  it("answers one chat's commands in the order they arrived", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const delays: Record<string, number> = { a: 40, b: 1, c: 10 };
    const echo: CommandSpec = {
      path: ["echo"],
      summary: "echo",
      args: [{ name: "word", description: "w", required: true }],
      mutating: false,
      run: async (_ctx, input) => {
        await new Promise((resolve) => setTimeout(resolve, delays[input.args[0] ?? ""] ?? 0));
        return textReply(input.args[0] ?? "");
      },
    };
    const { gateway, mock } = await startGateway({ home, config, registry: [...registry, echo] });
    for (const word of ["a", "b", "c"]) await mock.inject(`/echo ${word}`, { user: "reader" });
    await gateway.whenIdle();
    expect(mock.sent.map((sent) => sent.text)).toEqual(["a", "b", "c"]);
    await gateway.stop();
  });
});

describe("skills from chat", () => {
  it("loads a skill as a card, bumps its use counter and remembers it in the session", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home, config });
    await mock.shouldReply(
      "/skill pdf-tools",
      ["Skill loaded: pdf-tools", "pdf-tools does things", "references/api.md", "Readiness: ready"],
      { user: "reader", chat: "c9" },
    );
    await mock.shouldReply(
      "/pdf_tools extract the tables",
      ["Skill loaded: pdf-tools", "Instruction: extract the tables"],
      { user: "reader", chat: "c9" },
    );
    expect((await new UsageStore(path.join(home, "skills")).read())["pdf-tools"]?.use_count).toBe(2);
    await gateway.stop();
    expect(
      await new SessionStore(path.join(home, "gateway", "sessions.json")).loadedSkills("mock:c9"),
    ).toEqual(["pdf-tools"]);
  });

  it("shows a file of a skill", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home, config });
    await mock.shouldReply("/skill pdf-tools references/api.md", "# The API", { user: "reader" });
    await mock.shouldReply("/skill pdf-tools ../../config.yaml", /not allowed|not found|outside/i, {
      user: "reader",
    });
    await gateway.stop();
  });

  it("passes the instruction to the agent after loading", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const respond = vi.fn<ChatAgent["respond"]>(async (message, ctx) =>
      textReply(
        `working on "${message.text}" with ${(
          await SessionStore.for(ctx.home).loadedSkills(ctx.sessionKey ?? "")
        ).join("+")}`,
      ),
    );
    const { gateway, mock } = await startGateway({ home, config, agent: { respond } });
    await mock.shouldReply(
      "/pdf-tools summarize it",
      ["Skill loaded: pdf-tools", 'working on "summarize it" with pdf-tools'],
      { user: "reader", chat: "z" },
    );
    await gateway.stop();
  });

  it("suggests only visible skills, and nothing to strangers", async () => {
    const config = await writeConfig(home, {
      gateway: gatewayDoc(),
      skills: { platform_disabled: { mock: ["arxiv"] } },
    });
    const { gateway, mock } = await startGateway({ home, config });
    expect(await mock.hooks?.suggestSkills("reader", "")).toEqual(["pdf-tools"]);
    expect(await mock.hooks?.suggestSkills("reader", "ar")).toEqual([]);
    expect(await mock.hooks?.suggestSkills("stranger", "")).toEqual([]);
    await gateway.stop();
  });
});

describe("command catalog", () => {
  it("syncs the registry and visible skills at start and again when skills change", async () => {
    const config = await writeConfig(home, {
      gateway: gatewayDoc(),
      skills: { platform_disabled: { mock: ["arxiv"] } },
    });
    const { gateway, mock } = await startGateway({ home, config });
    expect(mock.catalogs).toHaveLength(1);
    const names = mock.catalogs[0]?.map((entry) => entry.name) ?? [];
    expect(names).toEqual(
      expect.arrayContaining(["curator", "skills", "help", "whoami", "skill", "pdf-tools"]),
    );
    expect(names).not.toContain("arxiv");
    const curator = mock.catalogs[0]?.find((entry) => entry.name === "curator");
    expect(curator?.subcommands?.map((sub) => sub.name)).toEqual(
      expect.arrayContaining(["status", "pin", "run"]),
    );
    await mock.shouldReply("/curator archive pdf-tools", "archived", { user: "admin" });
    await gateway.whenIdle();
    expect(mock.catalogs).toHaveLength(2);
    expect(mock.catalogs[1]?.some((entry) => entry.name === "pdf-tools")).toBe(false);
    await gateway.syncCommandCatalogs();
    expect(mock.catalogs).toHaveLength(2);
    await gateway.stop();
  });
});

describe("service", () => {
  it("reports each adapter on /healthz: 200 when all connected, 503 otherwise", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc({ health: { port: 0 } }) });
    const one = createMockAdapter({ platform: "telegram" });
    const two = createMockAdapter({ platform: "discord" });
    const { gateway } = await startGateway({ home, config, adapters: [one, two] });
    const url = gateway.healthUrl ?? "";
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/healthz$/);
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      status: "ok",
      adapters: { telegram: { state: "connected" }, discord: { state: "connected" } },
    });
    two.setHealth("degraded");
    const bad = await fetch(url);
    expect(bad.status).toBe(503);
    expect((await bad.json()).adapters.discord.state).toBe("degraded");
    expect((await fetch(url.replace("/healthz", "/other"))).status).toBe(404);
    await gateway.stop();
    await expect(fetch(url)).rejects.toThrow();
  });

  it("keeps chatting when the health port is taken", async () => {
    const blocker = http.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const config = await writeConfig(home, { gateway: gatewayDoc({ health: { port } }) });
      const { gateway, mock } = await startGateway({ home, config });
      expect(gateway.healthUrl).toBeUndefined();
      await mock.shouldReply("/whoami", "mock:reader", { user: "reader" });
      await gateway.stop();
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("drains an in-flight command before stopping the adapters", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const events: string[] = [];
    const slow: CommandSpec = {
      path: ["slow"],
      summary: "slow",
      mutating: false,
      run: async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        events.push("command finished");
        return textReply("done");
      },
    };
    const mock = createMockAdapter();
    const stop = mock.stop.bind(mock);
    mock.stop = async () => {
      events.push("adapter stopped");
      await stop();
    };
    const { gateway } = await startGateway({ home, config, adapters: [mock], registry: [...registry, slow] });
    await mock.inject("/slow", { user: "reader" });
    await gateway.stop();
    expect(events).toEqual(["command finished", "adapter stopped"]);
    expect(mock.sent.map((sent) => sent.text)).toEqual(["done"]);
  });

  it("keeps serving when one adapter fails to start, and fails when all do", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const good = createMockAdapter();
    const broken = createMockAdapter({ platform: "telegram", failStart: true });
    const { gateway } = await startGateway({ home, config, adapters: [broken, good] });
    await good.shouldReply("/whoami", "mock:reader", { user: "reader" });
    await gateway.stop();
    const lonely = createGateway({ home, config, adapters: [createMockAdapter({ failStart: true })] });
    await expect(lonely.start()).rejects.toThrow(/No chat adapter could start/);
    await lonely.stop();
  });

  it("does not write outside <home>/gateway for its own state", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    const { gateway, mock } = await startGateway({ home, config });
    await mock.shouldReply("/whoami", "mock:reader", { user: "reader" });
    await gateway.stop();
    expect((await fs.readdir(path.join(home, "gateway"))).sort()).toEqual(
      expect.arrayContaining(["activity.json", "dedupe.json"]),
    );
  });
});
