/**
 * Discord outbound: a reply as REST message payloads (an embed for a card that fits, else markdown
 * chunks of at most 2000 characters; buttons and files on the last one). A slash command's reply edits
 * its deferred reply and follows up with the rest (in the channel once the 15-minute token ran out); a
 * press's result edits the pressed message, a private reply is ephemeral; anything else is posted to
 * the channel. An upload Discord refuses is a `FileRefusedError` counting what went before it.
 */
import { MessageFlags, Routes } from "discord.js";
import { AdapterError, FileRefusedError } from "../../src/core/errors.js";
import type { InboundMessage, OutboundTarget } from "../../src/core/message.js";
import type { Reply } from "../../src/core/reply.js";
import { type ActionRowJson, type EmbedJson, renderComponents, renderEmbed } from "./actions.js";
import { interactionAddress, WebhookInteraction } from "./answer.js";
import {
  type DiscordContext,
  describe,
  EMPTY_REPLY,
  INTERACTION_TTL_MS,
  type PendingInteraction,
  type PendingPress,
} from "./context.js";
import { type DiscordAttachment, renderReply, splitFiles } from "./render.js";

/** One message's worth of REST payload: text or an embed, the buttons and the files on it. */
interface MessagePayload {
  content: string;
  embeds?: EmbedJson[];
  components?: ActionRowJson[];
  files?: DiscordAttachment[];
}

/** Interaction types (Discord docs, Interaction Object → Interaction Type). */
const COMMAND_INTERACTION = 2;
const COMPONENT_INTERACTION = 3;

/** Messages of one reply that Discord accepted so far (a refused file says how many went before it). */
interface Progress {
  sent: number;
}

/** Sends, edits and acknowledges for one Discord adapter. */
export class DiscordOutbound {
  constructor(private readonly ctx: DiscordContext) {}

  /** Messages a reply becomes here: its markdown chunks (or embed); files ride on the last one. */
  measure(reply: Reply): number {
    return messagePayloads(reply).length;
  }

  /**
   * Sends a reply in chunks of at most 2000 characters. A reply to a slash command edits its deferred
   * reply and follows up with the rest; anything else is posted to the channel (the first chunk as a
   * reply to the user's message when there is one).
   */
  async send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    const payloads = messagePayloads(reply);
    const { pending, press } = this.interactionOf(inReplyTo);
    const progress: Progress = { sent: 0 };
    try {
      if (press && Date.now() - press.createdAt < INTERACTION_TTL_MS) {
        await this.answerPress(press, target, reply, payloads, progress);
        return;
      }
      const channelId = target.threadId ?? target.chatId;
      if (
        pending &&
        (await deferCommand(this.ctx, pending)) &&
        Date.now() - pending.createdAt < INTERACTION_TTL_MS
      ) {
        const rest = await this.answerInteraction(pending, payloads, progress);
        if (rest.length === 0) return;
        // The interaction token ran out (15 minutes): what is left goes to the channel.
        await this.postToChannel(channelId, rest, undefined, progress);
        return;
      }
      if (
        target.editMessageId &&
        (await this.editChannelMessage(channelId, target.editMessageId, payloads, progress))
      )
        return;
      const replyTo =
        target.replyTo ??
        (inReplyTo && !pending && !press && inReplyTo.chat.id === target.chatId
          ? inReplyTo.eventId
          : undefined);
      await this.postToChannel(channelId, payloads, replyTo, progress);
    } catch (error) {
      if (error instanceof AdapterError) throw error;
      const file = payloads[progress.sent]?.files?.[0];
      if (file && isUploadRefusal(error)) {
        throw new FileRefusedError(
          "discord",
          file.name,
          `Discord refused the attachment ${file.name} (${file.data.length.toLocaleString("en-US")} bytes) in channel ${target.chatId}: ${describe(error)}`,
          { cause: error, delivered: progress.sent },
        );
      }
      throw new AdapterError(
        "discord",
        `Could not send a Discord message to channel ${target.chatId}: ${describe(error)}`,
        {
          cause: error,
          code: "adapter.discord.send",
        },
      );
    }
  }

  /**
   * The "running…" notice of slow work. A slash command was already acknowledged with a deferral
   * (Discord shows "thinking…" and the result edits the deferred reply), so nothing is sent for it. A
   * press was acknowledged with a deferred update (callback type 6 — Discord's interaction response
   * types: "ACK an interaction and edit the original message later; the user does not see a loading
   * state"), which shows nothing at all: the
   * pressed message itself becomes the notice, its buttons removed (so it cannot be pressed twice
   * meanwhile), and the result edits it again. A typed command gets the notice as a reply in the
   * channel; its id comes back so the result edits it (`PATCH /channels/{channel.id}/messages/{message.id}`
   * on the bot's own message).
   */
  async acknowledge(
    target: OutboundTarget,
    notice: Reply,
    inReplyTo?: InboundMessage,
  ): Promise<string | undefined> {
    const { pending, press } = this.interactionOf(inReplyTo);
    if (press) {
      if (await acknowledgePress(this.ctx, press)) {
        const content = messagePayloads(notice)[0]?.content || EMPTY_REPLY;
        await press.interaction.editReply({
          content,
          embeds: [],
          components: [],
          allowedMentions: { parse: [] },
        });
      }
      return undefined;
    }
    if (pending) return undefined;
    const [first] = messagePayloads(notice);
    if (!first) return undefined;
    const replyTo = target.replyTo ?? (inReplyTo?.chat.id === target.chatId ? inReplyTo.eventId : undefined);
    const reference = replyTo
      ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
      : {};
    const sent = (await this.ctx.client.rest.post(Routes.channelMessages(target.threadId ?? target.chatId), {
      body: { ...first, allowed_mentions: { parse: [] }, ...reference },
    })) as { id?: string };
    return sent.id;
  }

  /**
   * The slash command or button press a reply answers: the one this process received (by event id), or
   * — another replica received it, or this one restarted — rebuilt from the interaction JSON the
   * message carries, within the token's 15 minutes. The replica that received it gave the initial
   * response (the deferral), so a rebuilt one is answered by editing and following up with its token.
   */
  private interactionOf(inReplyTo: InboundMessage | undefined): {
    pending?: PendingInteraction;
    press?: PendingPress;
  } {
    if (!inReplyTo) return {};
    const pending = inReplyTo.press ? undefined : this.ctx.pending.get(inReplyTo.eventId);
    const press = inReplyTo.press ? this.ctx.presses.get(inReplyTo.eventId) : undefined;
    if (pending || press) return { pending, press };
    const address = interactionAddress(inReplyTo.raw);
    const createdAt = inReplyTo.receivedAt || Date.now();
    if (!address || address.id !== inReplyTo.eventId || Date.now() - createdAt >= INTERACTION_TTL_MS)
      return {};
    const interaction = new WebhookInteraction(this.ctx.client.rest, address, undefined);
    if (inReplyTo.press && address.type === COMPONENT_INTERACTION) {
      const adopted: PendingPress = {
        interaction,
        acknowledged: Promise.resolve(true),
        edited: false,
        createdAt,
      };
      this.ctx.presses.set(address.id, adopted);
      return { press: adopted };
    }
    if (!inReplyTo.press && address.type === COMMAND_INTERACTION) {
      const adopted: PendingInteraction = {
        interaction,
        deferred: Promise.resolve(true),
        edited: false,
        createdAt,
      };
      this.ctx.pending.set(address.id, adopted);
      return { pending: adopted };
    }
    return {};
  }

  /**
   * Answers a press: a private reply as an ephemeral message (only the presser sees it); a result that
   * replaces the pressed message by editing it (`@original` of a component interaction is the message
   * the button is on); any other result as a new message in the channel.
   */
  private async answerPress(
    press: PendingPress,
    target: OutboundTarget,
    reply: Reply,
    payloads: MessagePayload[],
    progress: Progress,
  ): Promise<void> {
    const { interaction } = press;
    if (reply.private) {
      const content = payloads[0]?.content || EMPTY_REPLY;
      const ephemeral = { content, flags: MessageFlags.Ephemeral as const, allowedMentions: { parse: [] } };
      if (press.acknowledged === undefined) {
        press.acknowledged = interaction.reply(ephemeral).then(() => true);
        await press.acknowledged;
      } else if (await press.acknowledged) {
        await interaction.followUp(ephemeral);
      }
      return;
    }
    const acknowledged = await acknowledgePress(this.ctx, press);
    if (target.editMessageId && acknowledged) {
      for (const payload of payloads) {
        const body = {
          ...clientBody(payload),
          components: payload.components ?? [],
          allowedMentions: { parse: [] },
        };
        if (!press.edited) {
          await interaction.editReply({ ...body, embeds: payload.embeds ?? [] });
          press.edited = true;
        } else {
          await interaction.followUp(body);
        }
        progress.sent += 1;
      }
      return;
    }
    await this.postToChannel(target.threadId ?? target.chatId, payloads, undefined, progress);
  }

  /**
   * Edits the deferred reply with the first payload and follows up with the rest. Returns the payloads
   * not sent because Discord no longer accepts the interaction's token (401 50027 after 15 minutes, or
   * an unknown webhook), so the caller can post them to the channel instead.
   */
  private async answerInteraction(
    pending: PendingInteraction,
    payloads: MessagePayload[],
    progress: Progress,
  ): Promise<MessagePayload[]> {
    for (const [index, payload] of payloads.entries()) {
      const body = { ...clientBody(payload), allowedMentions: { parse: [] } };
      try {
        if (!pending.edited) {
          await pending.interaction.editReply(body);
          pending.edited = true;
        } else {
          await pending.interaction.followUp(body);
        }
        progress.sent += 1;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code !== 50027 && code !== 10015) throw error;
        this.ctx.log.warn(
          { code },
          "discord: the interaction token expired; posting the rest to the channel",
        );
        return payloads.slice(index);
      }
    }
    return [];
  }

  private async postToChannel(
    channelId: string,
    payloads: MessagePayload[],
    replyTo: string | undefined,
    progress: Progress,
  ): Promise<void> {
    for (const [index, payload] of payloads.entries()) {
      const reference =
        index === 0 && replyTo
          ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
          : {};
      const { body, files } = restBody(payload);
      await this.ctx.client.rest.post(Routes.channelMessages(channelId), {
        body: { ...body, allowed_mentions: { parse: [] }, ...reference },
        ...(files ? { files } : {}),
      });
      progress.sent += 1;
    }
  }

  /** Replaces a message the bot posted in a channel with the first payload; false when that fails. */
  private async editChannelMessage(
    channelId: string,
    messageId: string,
    payloads: MessagePayload[],
    progress: Progress,
  ): Promise<boolean> {
    const [first, ...rest] = payloads;
    if (!first) return true;
    const { body, files } = restBody(first);
    try {
      await this.ctx.client.rest.patch(Routes.channelMessage(channelId, messageId), {
        body: { embeds: [], components: [], ...body, allowed_mentions: { parse: [] } },
        ...(files ? { files } : {}),
      });
    } catch (error) {
      if (files && isUploadRefusal(error)) throw error;
      this.ctx.log.warn(
        { err: error, channel: channelId },
        "discord: could not edit the message; sending anew",
      );
      return false;
    }
    progress.sent += 1;
    await this.postToChannel(channelId, rest, undefined, progress);
    return true;
  }
}

/** Defers a slash command once (callback type 5, "thinking…"); true when Discord accepted it. */
export function deferCommand(ctx: DiscordContext, pending: PendingInteraction): Promise<boolean> {
  pending.deferred ??= pending.interaction.deferReply().then(
    () => true,
    (error: unknown) => {
      ctx.log.warn({ err: error, interaction: pending.interaction.id }, "discord deferReply failed");
      return false;
    },
  );
  return pending.deferred;
}

/** Acknowledges a press once, with a deferred update (callback type 6); true when Discord accepted it. */
export function acknowledgePress(ctx: DiscordContext, press: PendingPress): Promise<boolean> {
  press.acknowledged ??= press.interaction.deferUpdate().then(
    () => true,
    (error: unknown) => {
      ctx.log.warn({ err: error, interaction: press.interaction.id }, "discord deferUpdate failed");
      return false;
    },
  );
  return press.acknowledged;
}

/**
 * A reply as REST message payloads: one embed for a card that fits, else markdown chunks of at most
 * 2000 characters; the buttons go on the last one. Never empty (an empty reply says "Done.").
 */
function messagePayloads(reply: Reply): MessagePayload[] {
  const { text, files } = splitFiles(reply);
  const attached = files.length > 0 ? { files } : {};
  const components = renderComponents(text);
  const buttons = components.length > 0 ? { components } : {};
  const embed = renderEmbed(text);
  if (embed) return [{ content: "", embeds: [embed], ...buttons, ...attached }];
  const chunks = renderReply(text);
  // A reply that is only a file goes as the file alone (Discord takes a message with files and no text).
  const texts = chunks.length > 0 ? chunks : [files.length > 0 ? "" : EMPTY_REPLY];
  return texts.map((content, index) =>
    index === texts.length - 1 ? { content, ...buttons, ...attached } : { content },
  );
}

/** A payload as discord.js message options: files as `{ attachment, name }`. */
function clientBody(payload: MessagePayload): Omit<MessagePayload, "files"> & {
  files?: { attachment: Buffer; name: string }[];
} {
  const { files, ...rest } = payload;
  if (!files || files.length === 0) return rest;
  return { ...rest, files: files.map((file) => ({ attachment: file.data, name: file.name })) };
}

/**
 * A payload as a raw REST request: the JSON body, and the files the REST client sends as `files[n]`
 * parts of a multipart body, each described in `attachments` by its index (Discord docs, Uploading Files).
 */
function restBody(payload: MessagePayload): {
  body: Omit<MessagePayload, "files"> & { attachments?: { id: number; filename: string }[] };
  files?: { name: string; data: Buffer; contentType: string }[];
} {
  const { files, ...rest } = payload;
  if (!files || files.length === 0) return { body: rest };
  return {
    body: { ...rest, attachments: files.map((file, id) => ({ id, filename: file.name })) },
    files: files.map((file) => ({
      name: file.name,
      data: file.data,
      contentType: "text/plain; charset=utf-8",
    })),
  };
}

/** Discord refused an upload: 413 "Request entity too large" (code 40005), over the upload limit. */
function isUploadRefusal(error: unknown): boolean {
  const { code, status } = error as { code?: unknown; status?: unknown };
  return code === 40005 || status === 413;
}
