import { describe, expect, it } from "vitest";
import { FEISHU_IDS } from "../support/harness/feishu.js";
import { usePlatform } from "../support/harness/index.js";
import { BIG_FILE, writeBigdoc } from "../support/platform-home.js";

const READER = FEISHU_IDS.member;
const SECRET = "sk-live-0d6b2a8c4e9f1735";
const CLI = "skillgate skills view bigdoc references/big.md";

const BIG = BIG_FILE;

const start = usePlatform("feishu");

/** A home whose `bigdoc` skill links `content` (and a .env holding a secret the scrubber knows). */
async function boot(options: { content?: string; fileSizeLimit?: number } = {}) {
  const run = await start({
    emulator: { fileSizeLimit: options.fileSizeLimit },
    prepare: (home) => writeBigdoc(home, SECRET, options.content),
  });
  return { emulator: run.emulator, gateway: run.gateway, lines: run.logs };
}

/** A reader asks `/skills view bigdoc references/big.md` in a p2p chat; resolves once the reply is sent. */
async function view(run: Awaited<ReturnType<typeof boot>>) {
  const event = run.emulator.messageEvent({
    senderOpenId: READER,
    text: "/skills view bigdoc references/big.md",
  });
  run.emulator.rememberMessage(event);
  expect(await run.emulator.pushWsEvent(event)).toEqual({ code: 200 });
  const id = (event.event as { message: { message_id: string } }).message.message_id;
  await run.emulator.waitForSend((send) => send.target === id, 10_000);
  await run.gateway.whenIdle();
  return id;
}

describe("feishu: long replies as file messages", () => {
  it("a 1 MB linked file is uploaded once and arrives as one file message after one text message", async () => {
    expect(BIG.length).toBeGreaterThan(1_000_000);
    const run = await boot();
    const asked = await view(run);
    expect(run.emulator.uploads).toHaveLength(1);
    const [upload] = run.emulator.uploads;
    expect(upload?.fileType).toBe("stream");
    expect(upload?.fileName).toBe("skills-view-bigdoc-references_big.md.txt");
    expect(upload?.data.toString("utf8")).toContain(BIG);
    const files = run.emulator.sends.filter((send) => send.msgType === "file");
    const texts = run.emulator.sends.filter((send) => send.msgType !== "file");
    expect(files).toHaveLength(1);
    expect(files[0]?.text).toBe(upload?.fileKey);
    expect(files[0]?.chatId).toBe("oc_p2p_alice");
    expect(texts).toHaveLength(1);
    // The text answers the user's message; the file follows it in the same chat.
    expect(texts[0]?.kind).toBe("reply");
    expect(texts[0]?.target).toBe(asked);
    expect(texts[0]?.text).toMatch(/attached file/);
    expect(run.emulator.sends.indexOf(texts[0] as never)).toBeLessThan(
      run.emulator.sends.indexOf(files[0] as never),
    );
  });

  it("the uploaded file is scrubbed of secrets like every message", async () => {
    const run = await boot({ content: `${BIG}\nkey: ${SECRET}\n${BIG}` });
    await view(run);
    expect(run.emulator.uploads).toHaveLength(1);
    const everything = [
      ...run.emulator.uploads.map((upload) => upload.data.toString("utf8")),
      ...run.emulator.sends.map((send) => send.content),
    ].join("\n");
    expect(everything).not.toContain(SECRET);
    expect(run.emulator.uploads[0]?.data.toString("utf8")).toContain("key: [redacted]");
  });

  it("an upload Feishu refuses falls back to the cut text naming the CLI command, and is logged", async () => {
    const run = await boot({ fileSizeLimit: 256 * 1024 });
    await view(run);
    const refused = run.emulator.calls.filter((call) => call.path === "/open-apis/im/v1/files");
    expect(refused.map((call) => call.status)).toContain(400);
    expect(run.emulator.uploads).toHaveLength(0);
    expect(run.emulator.sends.some((send) => send.msgType === "file")).toBe(false);
    expect(run.emulator.sends.length).toBeGreaterThanOrEqual(1);
    expect(run.emulator.sends.length).toBeLessThanOrEqual(5);
    const text = run.emulator.sends.map((send) => send.text).join("\n");
    expect(text).toContain("line 00000:");
    expect(text).toMatch(/cut here/);
    expect(text).toContain(CLI);
    const warning = run.lines.find(
      (line) => line.level === 40 && /refused the reply's file/.test(String(line.msg)),
    );
    expect(JSON.stringify(warning)).toMatch(/234006/);
  });
});
