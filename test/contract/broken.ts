/**
 * Deliberately broken adapters, to prove the contract suite catches them: one that answers every group
 * message (Telegram, no addressing rule), one that answers slash commands too late (Discord, no
 * deferral). Each borrows the real adapter's outbound side and replaces the part it gets wrong.
 */
import { Client, Events, GatewayIntentBits, type Interaction, Partials } from "discord.js";
import { Bot } from "grammy";
import { type DiscordInteractionJson, normalizeInteraction } from "../../adapters/discord/normalize.js";
import { renderReply } from "../../adapters/discord/render.js";
import type { Adapter, InboundMessage, InboundSink } from "../../src/core/message.js";
import type { DiscordEmulator } from "../emulators/discord.js";
import type { TelegramEmulator } from "../emulators/telegram.js";

/** Telegram adapter that treats every message as for the bot (the bug of finding 2, and worse). */
export function eagerTelegram(inner: Adapter, emulator: TelegramEmulator): Adapter {
  const bot = new Bot(emulator.token, { client: { apiRoot: emulator.apiRoot } });
  return {
    platform: inner.platform,
    capabilities: inner.capabilities,
    health: () => ({ state: "connected" }),
    send: (target, reply, inReplyTo) => inner.send(target, reply, inReplyTo),
    syncCommands: (catalog) => inner.syncCommands?.(catalog) ?? Promise.resolve(),
    async start(sink: InboundSink) {
      bot.on("message", async (ctx) => {
        const text = ctx.message.text ?? "";
        const match = /^\/(\w+)(?:@\S+)?\s*(.*)$/s.exec(text);
        const rawArgs = match?.[2]?.trim() ?? "";
        const message: InboundMessage = {
          eventId: String(ctx.update.update_id),
          platform: "telegram",
          chat: { kind: ctx.chat.type === "private" ? "dm" : "group", id: String(ctx.chat.id) },
          sender: { id: String(ctx.from.id), isBot: false },
          text,
          ...(match
            ? { command: { name: match[1] ?? "", args: rawArgs.split(/\s+/).filter(Boolean), rawArgs } }
            : {}),
          receivedAt: Date.now(),
          raw: ctx.update,
        };
        await sink(message);
      });
      await bot.init();
      void bot.start({ drop_pending_updates: false });
    },
    stop: () => bot.stop(),
  };
}

/** Discord adapter that answers a slash command only when the gateway's reply is ready, after `delayMs`. */
export function lateDiscord(inner: Adapter, emulator: DiscordEmulator, delayMs: number): Adapter {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.DirectMessages],
    partials: [Partials.Channel],
    rest: { api: emulator.apiBase },
  });
  const raw = new Map<string, DiscordInteractionJson>();
  const interactions = new Map<string, Interaction>();
  return {
    platform: inner.platform,
    capabilities: inner.capabilities,
    health: () => ({ state: "connected" }),
    syncCommands: (catalog) => inner.syncCommands?.(catalog) ?? Promise.resolve(),
    async send(target, reply, inReplyTo) {
      const interaction = inReplyTo ? interactions.get(inReplyTo.eventId) : undefined;
      if (!interaction?.isChatInputCommand()) return inner.send(target, reply, inReplyTo);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const [content = "Done."] = renderReply(reply);
      await interaction.reply({ content });
    },
    async start(sink: InboundSink) {
      client.on(Events.Raw, (packet: { t?: string; d?: DiscordInteractionJson }) => {
        if (packet.t === "INTERACTION_CREATE" && packet.d) raw.set(packet.d.id, packet.d);
      });
      client.on(Events.InteractionCreate, (interaction) => {
        const payload = raw.get(interaction.id);
        const message = payload ? normalizeInteraction(payload) : null;
        if (!message) return;
        interactions.set(interaction.id, interaction);
        void sink(message);
      });
      const ready = new Promise((resolve) => client.once(Events.ClientReady, resolve));
      await client.login(emulator.token);
      await ready;
    },
    stop: () => client.destroy(),
  };
}
