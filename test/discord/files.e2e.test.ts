import { describe, expect, it } from "vitest";
import type { EmulatorUser } from "../emulators/discord.js";
import { DISCORD_CHANNEL, DISCORD_DMS, DISCORD_GUILD, DISCORD_USERS } from "../support/harness/discord.js";
import { usePlatform } from "../support/harness/index.js";
import { BIG_FILE, writeBigdoc } from "../support/platform-home.js";

const GUILD = DISCORD_GUILD;
const CHANNEL = DISCORD_CHANNEL;
const DM_CHANNEL = DISCORD_DMS.member;
const reader: EmulatorUser = DISCORD_USERS.member;
const SECRET = "sk-live-5e1f0c9a7b3d4e21";
const CLI = "skillgate skills view bigdoc references/big.md";

const BIG = BIG_FILE;

const start = usePlatform("discord");

/** A home whose `bigdoc` skill links `content` (and a .env holding a secret the scrubber knows). */
async function boot(options: { content?: string; attachmentSizeLimit?: number } = {}) {
  const run = await start({
    ...(options.attachmentSizeLimit
      ? { emulator: { attachmentSizeLimit: options.attachmentSizeLimit } }
      : {}),
    prepare: (home) => writeBigdoc(home, SECRET, options.content),
  });
  return { emulator: run.emulator, gateway: run.gateway, lines: run.logs };
}

/** Runs `/skills view bigdoc references/big.md` as a slash command and waits for the answer. */
async function viewBySlash(run: Awaited<ReturnType<typeof boot>>) {
  const sent = run.emulator.interaction({
    user: reader,
    channelId: CHANNEL,
    guildId: GUILD,
    name: "skills",
    subcommand: "view",
    options: { name: "bigdoc", file: "references/big.md" },
  });
  await run.emulator.waitForMessage(
    (message) => message.interactionId === sent.id && message.kind === "original" && !message.deferred,
    10_000,
  );
  await run.gateway.whenIdle();
  return run.emulator.interactionMessages(sent.id);
}

describe("discord: long replies as attachments", () => {
  it("a 1 MB linked file arrives as one attachment on the slash command's answer", async () => {
    expect(BIG.length).toBeGreaterThan(1_000_000);
    const run = await boot();
    const messages = await viewBySlash(run);
    // One message: the edited deferred reply, carrying the lead line and the file.
    expect(messages).toHaveLength(1);
    expect(run.emulator.attachments).toHaveLength(1);
    const [file] = run.emulator.attachments;
    expect(file?.messageId).toBe(messages[0]?.id);
    expect(file?.filename).toMatch(/\.txt$/);
    expect(file?.data.toString("utf8")).toContain(BIG);
    expect(messages[0]?.content).toMatch(/attached file/);
    // The upload went as discord.js sends it: multipart with payload_json and files[0].
    const upload = run.emulator.calls.find((call) => call.files.length > 0);
    expect(upload?.method).toBe("PATCH");
    expect(upload?.files.map((part) => part.name)).toEqual(["files[0]"]);
  });

  it("a text command in a DM gets the file as an attachment on its channel reply", async () => {
    const run = await boot();
    const asked = run.emulator.userMessage({
      user: reader,
      channelId: DM_CHANNEL,
      content: `/skills view bigdoc references/big.md`,
    });
    await run.emulator.waitForMessage((message) => message.replyTo === asked, 10_000);
    await run.gateway.whenIdle();
    const sent = run.emulator.messages.filter((message) => message.channelId === DM_CHANNEL);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.kind).toBe("channel");
    expect(run.emulator.attachments).toHaveLength(1);
    expect(run.emulator.attachments[0]?.data.toString("utf8")).toContain(BIG);
    const upload = run.emulator.calls.find((call) => call.files.length > 0);
    expect(upload?.path).toBe(`/channels/${DM_CHANNEL}/messages`);
    const filename = run.emulator.attachments[0]?.filename ?? "";
    expect(filename).toMatch(/^skills-view-bigdoc-references_big\.md\.txt$/);
    expect((upload?.body as { attachments?: unknown[] } | undefined)?.attachments).toEqual([
      { id: 0, filename },
    ]);
  });

  it("the attachment is scrubbed of secrets like every message", async () => {
    const run = await boot({ content: `${BIG}\nkey: ${SECRET}\n${BIG}` });
    await viewBySlash(run);
    expect(run.emulator.attachments).toHaveLength(1);
    const everything = [
      ...run.emulator.attachments.map((file) => file.data.toString("utf8")),
      ...run.emulator.messages.map((message) => message.content),
    ].join("\n");
    expect(everything).not.toContain(SECRET);
    expect(run.emulator.attachments[0]?.data.toString("utf8")).toContain("key: [redacted]");
  });

  it("an attachment Discord refuses falls back to the cut text naming the CLI command, and is logged", async () => {
    const run = await boot({ attachmentSizeLimit: 256 * 1024 });
    const messages = await viewBySlash(run);
    const refused = run.emulator.calls.filter((call) => call.files.length > 0);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(run.emulator.attachments).toHaveLength(0);
    expect(messages.length).toBeGreaterThanOrEqual(1);
    expect(messages.length).toBeLessThanOrEqual(5);
    const text = messages.map((message) => message.content.replace(/\\/g, "")).join("\n");
    expect(text).toContain("line 00000:");
    expect(text).toMatch(/cut here/);
    expect(text).toContain(CLI);
    expect(
      run.lines.some((line) => line.level === 40 && /refused the reply's file/.test(String(line.msg))),
    ).toBe(true);
  });
});
