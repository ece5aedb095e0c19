/**
 * Telegram details: every callback query is answered, also those the adapter cannot map (no message,
 * no data, a channel post's button), so no client keeps its progress bar; and the emulator judges "message
 * is not modified" against the message's latest edit, as Telegram does.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { TelegramEmulator } from "../emulators/telegram.js";
import { adapterFor, emulatorWithHome, waitUntil } from "./helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const setup = () => emulatorWithHome(cleanups);

describe("telegram: callback queries the adapter cannot map", () => {
  it("are answered all the same", async () => {
    const { emulator, home } = await setup();
    const { adapter, sink, inbox } = adapterFor(emulator, home);
    await adapter.start(sink);
    cleanups.push(() => adapter.stop());
    const queries = [
      // An inline message's button: no `message`, an `inline_message_id` instead.
      emulator.pushCallbackQuery({ inline_message_id: "inl-1", data: "x" }),
      // A game button: `game_short_name`, no `data`.
      emulator.pushCallbackQuery({
        game_short_name: "g",
        message: { message_id: 5, date: 1, chat: { id: 77, type: "private" } },
      }),
      // A button under a channel post.
      emulator.pushCallbackQuery({
        data: "sg:abc",
        message: { message_id: 6, date: 1, chat: { id: -1007, type: "channel", title: "news" } },
      }),
    ];
    await waitUntil(
      () => queries.every((query) => emulator.callbackQueries.get(query.id)?.answer !== undefined),
      5000,
      () => "every query answered",
    );
    expect(inbox).toEqual([]);
  });
});

describe("telegram emulator: message is not modified", () => {
  const call = async (emulator: TelegramEmulator, method: string, body: Record<string, unknown>) => {
    const response = await fetch(`${emulator.apiRoot}/bot${emulator.token}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { ok: boolean; description?: string; result?: { message_id: number } };
  };

  it("compares an edit with the latest text, not the first", async () => {
    const { emulator } = await setup();
    const sent = await call(emulator, "sendMessage", { chat_id: 42, text: "A" });
    const id = sent.result?.message_id;
    expect((await call(emulator, "editMessageText", { chat_id: 42, message_id: id, text: "B" })).ok).toBe(
      true,
    );
    // Back to the first text is a change from the latest ("B").
    expect((await call(emulator, "editMessageText", { chat_id: 42, message_id: id, text: "A" })).ok).toBe(
      true,
    );
    const same = await call(emulator, "editMessageText", { chat_id: 42, message_id: id, text: "A" });
    expect(same.ok).toBe(false);
    expect(same.description).toMatch(/message is not modified/);
  });
});
