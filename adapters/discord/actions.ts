/**
 * Buttons and cards on Discord. Pure. A reply's stored actions become message components (action rows
 * of buttons; Discord allows at most 5 rows of 5 buttons, a `custom_id` of at most 100 characters and a
 * label of at most 80), whose `custom_id` is the gateway's opaque action id. A press arrives as a
 * MESSAGE_COMPONENT interaction (type 3) carrying that `custom_id` and the message it was on. A reply
 * with the `card` layout becomes an embed (title from its first heading; description at most 4096).
 */

import { resolveText } from "../../src/core/i18n/messages.js";
import type { InboundMessage } from "../../src/core/message.js";
import { localizeReply, type Reply } from "../../src/core/reply.js";
import {
  chatOf,
  type DiscordInteractionJson,
  type DiscordUserJson,
  interactionLanguages,
  senderOf,
  snowflakeTime,
} from "./normalize.js";
import { escapeInline, replyToMarkdown } from "./render.js";

/** Discord's component limits. */
export const MAX_ACTION_ROWS = 5;
export const MAX_BUTTONS_PER_ROW = 5;
export const MAX_CUSTOM_ID = 100;
export const MAX_BUTTON_LABEL = 80;
/** An embed description holds at most 4096 characters. */
export const MAX_EMBED_DESCRIPTION = 4096;

/** Button styles (Discord `ButtonStyle`): 1 primary, 2 secondary, 4 danger. */
const STYLES = { primary: 1, secondary: 2, danger: 4 } as const;

/** One action row of buttons, as the REST API takes it. */
export interface ActionRowJson {
  type: 1;
  components: { type: 2; style: number; label: string; custom_id: string }[];
}

/** An embed, as the REST API takes it. */
export interface EmbedJson {
  title?: string;
  description: string;
  color: number;
}

/** The components of a reply (labels in its locale, cut to Discord's limit); empty without stored actions. */
export function renderComponents(reply: Reply): ActionRowJson[] {
  const rows: ActionRowJson[] = [];
  for (const row of reply.actions?.rows ?? []) {
    const components = row
      .filter((action) => typeof action.id === "string" && action.id.length <= MAX_CUSTOM_ID)
      .slice(0, MAX_BUTTONS_PER_ROW)
      .map((action) => ({
        type: 2 as const,
        style: STYLES[action.style ?? "secondary"],
        label: resolveText(action.label, reply.locale).slice(0, MAX_BUTTON_LABEL),
        custom_id: action.id as string,
      }));
    if (components.length > 0) rows.push({ type: 1, components });
    if (rows.length === MAX_ACTION_ROWS) break;
  }
  return rows;
}

/** The embed of a `card` reply, or undefined when the reply is not a card or too long for one. */
export function renderEmbed(value: Reply): EmbedJson | undefined {
  if (value.layout !== "card") return undefined;
  const reply = localizeReply(value);
  const [first, ...rest] = reply.blocks;
  const titled = first?.kind === "heading";
  const description = replyToMarkdown({ ...reply, blocks: titled ? rest : reply.blocks });
  if (description.length === 0 || description.length > MAX_EMBED_DESCRIPTION) return undefined;
  return {
    ...(titled ? { title: escapeInline(first.text).slice(0, 256) } : {}),
    description,
    color: 0x5865f2,
  };
}

/** A MESSAGE_COMPONENT interaction as the gateway sends it (the parts read here). */
export interface DiscordComponentJson extends Omit<DiscordInteractionJson, "data"> {
  data?: { custom_id?: string; component_type?: number };
  message?: { id: string };
  member?: { user?: DiscordUserJson };
  user?: DiscordUserJson;
}

/** A button press → an inbound press; null for other components or malformed payloads. */
export function normalizeComponent(interaction: DiscordComponentJson): InboundMessage | null {
  if (interaction.type !== 3 || interaction.data?.component_type !== 2) return null;
  const actionId = interaction.data.custom_id;
  const user = interaction.member?.user ?? interaction.user;
  const channelId = interaction.channel_id ?? interaction.channel?.id;
  if (!actionId || !user || !channelId) return null;
  return {
    eventId: interaction.id,
    platform: "discord",
    chat: chatOf(channelId, interaction.guild_id, interaction.channel?.type),
    sender: senderOf(user),
    text: "",
    receivedAt: snowflakeTime(interaction.id),
    raw: interaction,
    press: { actionId, messageId: interaction.message?.id },
    ...interactionLanguages(interaction),
  };
}
