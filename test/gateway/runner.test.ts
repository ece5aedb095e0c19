import { describe, expect, it, vi } from "vitest";
import { parseAndRun, runCommand } from "../../commands/runner.js";
import type { CommandContext, CommandSpec } from "../../commands/types.js";
import { parseConfig } from "../../src/config/config.js";
import { homePaths } from "../../src/config/home.js";
import { CuratorError } from "../../src/core/errors.js";
import { english, type Text } from "../../src/core/i18n/messages.js";
import { replyToPlainText, textReply } from "../../src/core/reply.js";
import type { SkillLibrary } from "../../src/skills/types.js";

const config = parseConfig({
  gateway: { admins: ["telegram:1"], allowed_users: ["telegram:2"], allowed_chats: ["telegram:-100"] },
});

function ctx(overrides: Partial<CommandContext> = {}): CommandContext {
  return {
    home: "/nonexistent",
    paths: homePaths("/nonexistent"),
    config,
    library: {} as SkillLibrary,
    surface: "terminal",
    platform: null,
    json: false,
    interactive: false,
    actor: "user",
    now: () => new Date(0),
    commandPrefix: (path) => `skillgate ${path.join(" ")}`,
    ...overrides,
  };
}

function chat(id: string, isAdmin: boolean, chatId = id): CommandContext {
  return ctx({
    surface: "chat",
    platform: "telegram",
    caller: { platform: "telegram", id, isAdmin },
    sessionKey: `telegram:${chatId}`,
    chatId,
    commandPrefix: (path) => `/${path.join(" ")}`,
  });
}

function spec(overrides: Partial<CommandSpec> = {}): CommandSpec & { calls: number } {
  const made = {
    calls: 0,
    path: ["curator", "rollback"],
    summary: "roll back",
    args: [{ name: "entry", description: "ledger entry" }],
    options: [{ name: "id", kind: "string" as const, description: "snapshot" }],
    mutating: true,
    confirm: () => "Roll the library back to snapshot X?",
    async run() {
      made.calls++;
      return textReply("rolled back");
    },
    ...overrides,
  };
  return made;
}

describe("runCommand access control in chat", () => {
  it("refuses a mutating command to a non-admin without running it", async () => {
    const command = spec();
    const reply = await runCommand(command, chat("2", false), { args: [], options: { yes: true } });
    expect(reply.exitCode).toBe(1);
    expect(replyToPlainText(reply)).toContain("admins only");
    expect(replyToPlainText(reply)).toContain("telegram:2");
    expect(command.calls).toBe(0);
  });
  it("lets allowed users and members of allowed chats run read-only commands", async () => {
    const command = spec({ mutating: false, confirm: undefined });
    expect((await runCommand(command, chat("2", false), { args: [], options: {} })).exitCode).toBe(0);
    expect((await runCommand(command, chat("77", false, "-100"), { args: [], options: {} })).exitCode).toBe(
      0,
    );
    expect(command.calls).toBe(2);
  });
  it("refuses read-only commands to strangers but always allows help and whoami", async () => {
    const command = spec({ mutating: false, confirm: undefined });
    const refused = await runCommand(command, chat("99", false), { args: [], options: {} });
    expect(refused.exitCode).toBe(1);
    expect(replyToPlainText(refused)).toContain("telegram:99");
    const whoami = spec({ path: ["whoami"], mutating: false, confirm: undefined });
    expect((await runCommand(whoami, chat("99", false), { args: [], options: {} })).exitCode).toBe(0);
  });
  it("lets admins run mutating commands", async () => {
    const command = spec();
    expect((await runCommand(command, chat("1", true), { args: [], options: { yes: true } })).exitCode).toBe(
      0,
    );
  });
});

describe("runCommand confirmation", () => {
  it("asks a chat to repeat the rebuilt command with -y", async () => {
    const command = spec();
    const reply = await runCommand(command, chat("1", true), { args: [], options: { id: "X" } });
    expect(command.calls).toBe(0);
    expect(replyToPlainText(reply)).toContain("Reply `/curator rollback --id X -y` to confirm.");
    expect(reply.json).toMatchObject({ confirmation_required: true, command: "/curator rollback --id X -y" });
  });
  it("refuses without a terminal and without -y instead of waiting", async () => {
    const command = spec();
    const reply = await runCommand(command, ctx(), { args: ["abc"], options: {} });
    expect(reply.exitCode).toBe(1);
    expect(command.calls).toBe(0);
    expect(replyToPlainText(reply)).toContain("no terminal");
    expect(replyToPlainText(reply)).toContain("skillgate curator rollback abc -y");
  });
  it("prompts on a terminal and runs on yes, cancels on anything else", async () => {
    const command = spec();
    const yes = vi.fn(async (_question: Text) => "y");
    expect(
      (await runCommand(command, ctx({ interactive: true, prompt: yes }), { args: [], options: {} }))
        .exitCode,
    ).toBe(0);
    expect(yes).toHaveBeenCalledTimes(1);
    expect(english(yes.mock.calls[0]?.[0] ?? "")).toBe("Roll the library back to snapshot X? [y/N] ");
    const no = vi.fn(async () => "");
    const cancelled = await runCommand(command, ctx({ interactive: true, prompt: no }), {
      args: [],
      options: {},
    });
    expect(cancelled.exitCode).toBe(1);
    expect(replyToPlainText(cancelled)).toContain("Cancelled");
    expect(command.calls).toBe(1);
  });
  it("skips the question with -y, or when confirm returns null", async () => {
    const command = spec();
    expect((await runCommand(command, ctx(), { args: [], options: { yes: true } })).exitCode).toBe(0);
    const quiet = spec({ confirm: () => null });
    expect((await runCommand(quiet, ctx(), { args: [], options: {} })).exitCode).toBe(0);
    expect(command.calls + quiet.calls).toBe(2);
  });
});

describe("runCommand errors", () => {
  it("turns a skillgate error into its message and exit code", async () => {
    const command = spec({
      confirm: undefined,
      run: async () => {
        throw new CuratorError("pin", "'x' is bundled — cannot pin");
      },
    });
    const reply = await runCommand(command, ctx(), { args: [], options: {} });
    expect(reply.exitCode).toBe(1);
    expect(replyToPlainText(reply)).toBe("'x' is bundled — cannot pin");
    expect(reply.json).toMatchObject({ ok: false, code: "curator.pin" });
  });
  it("turns an unexpected error into a short exit-1 reply and reports it with the stack", async () => {
    const boom = new TypeError("cannot read properties of undefined");
    const command = spec({
      confirm: undefined,
      run: async () => {
        throw boom;
      },
    });
    const onUnexpected = vi.fn();
    const reply = await runCommand(command, ctx(), { args: [], options: {} }, { onUnexpected });
    expect(reply.exitCode).toBe(1);
    expect(replyToPlainText(reply)).toContain("failed unexpectedly: cannot read properties of undefined");
    expect(onUnexpected).toHaveBeenCalledWith(boom, command);
  });
  it("answers bad usage with exit 2 and the usage line (parseAndRun)", async () => {
    const command = spec({ confirm: undefined, mutating: false });
    const reply = await parseAndRun(command, ctx(), ["--nope"]);
    expect(reply.exitCode).toBe(2);
    expect(replyToPlainText(reply)).toContain("usage: skillgate curator rollback [entry]");
    expect(command.calls).toBe(0);
  });
  it("checks access before usage in chat", async () => {
    const command = spec();
    const reply = await parseAndRun(command, chat("2", false), ["--nope"]);
    expect(replyToPlainText(reply)).toContain("admins only");
  });
});
