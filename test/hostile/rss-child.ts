/**
 * Child process for the memory-bound checks (run by memory.test.ts): `skill` lists, views and loads a
 * skill whose SKILL.md is a 1 GB sparse file; `webhook` POSTs a 100 MB body with the right secret to the
 * Telegram webhook. Prints `{"maxRssMb": …, …}` on stdout. RSS is the process's peak (`maxRSS`).
 */
import { promises as fs } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import "../../adapters/index.js";
import { createTelegramAdapter } from "../../adapters/telegram/index.js";
import { loadSkills } from "../../commands/chat.js";
import { chatContext } from "../../commands/context.js";
import { parseConfig } from "../../src/config/config.js";
import { silentLogger } from "../../src/core/logger.js";
import { openLibrary } from "../../src/skills/library.js";
import { TelegramEmulator } from "../emulators/telegram.js";

const GB = 1024 * 1024 * 1024;

async function skillMode(): Promise<Record<string, unknown>> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-rss-"));
  try {
    const dir = path.join(home, "skills", "big");
    await fs.mkdir(dir, { recursive: true });
    const handle = await fs.open(path.join(dir, "SKILL.md"), "w");
    await handle.write("---\nname: big\ndescription: a huge skill\n---\n");
    await handle.truncate(GB);
    await handle.close();
    const config = parseConfig({});
    const library = openLibrary(home, config, { watch: false, persistIndex: false });
    const list = await library.list();
    const skipped = (await library.skipped?.()) ?? [];
    const view = await library.view("big");
    const ctx = chatContext({
      home,
      config,
      library,
      isAdmin: false,
      now: () => new Date(),
      message: {
        eventId: "1",
        platform: "telegram",
        chat: { kind: "dm", id: "1" },
        sender: { id: "1", isBot: false },
        text: "/big",
        receivedAt: Date.now(),
      },
    });
    const loaded = await loadSkills(ctx, ["big"], "");
    return {
      listed: list.skills?.length ?? 0,
      skipped: skipped.map((item) => item.reason),
      viewError: view.error,
      loadExit: loaded.reply.exitCode,
    };
  } finally {
    await fs.rm(home, { recursive: true, force: true });
  }
}

async function webhookMode(): Promise<Record<string, unknown>> {
  const emulator = new TelegramEmulator();
  await emulator.listen();
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-rss-"));
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  const url = `http://127.0.0.1:${port}/tg`;
  const config = parseConfig({
    gateway: {
      health: { enabled: false },
      telegram: {
        api_root: emulator.apiRoot,
        mode: "webhook",
        webhook: { url, port, secret: "right_secret" },
      },
    },
  });
  const adapter = createTelegramAdapter({
    config,
    home,
    secret: (name) => (name === "TELEGRAM_BOT_TOKEN" ? emulator.token : undefined),
    logger: silentLogger(),
  });
  await adapter.start(async () => undefined);
  const total = 100 * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const status = await new Promise<number | string>((resolve) => {
    const request = http.request(url, {
      method: "POST",
      headers: {
        "x-telegram-bot-api-secret-token": "right_secret",
        "content-type": "application/json",
        // No Content-Length: the limit must hold while reading, not only for honest headers.
        "transfer-encoding": "chunked",
      },
    });
    request.on("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", (error) => resolve((error as NodeJS.ErrnoException).code ?? "error"));
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once("drain", pump);
      }
      request.end();
    };
    pump();
  });
  await adapter.stop();
  await emulator.close();
  await fs.rm(home, { recursive: true, force: true });
  return { status };
}

const mode = process.argv[2];
const result = mode === "webhook" ? await webhookMode() : await skillMode();
process.stdout.write(
  `${JSON.stringify({ mode, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), ...result })}\n`,
);
process.exit(0);
