/**
 * The pure parts of buttons: each platform's rendering of stored actions (limits included) and its
 * normalization of a press, from payloads shaped like the platforms' own.
 */
import { describe, expect, it } from "vitest";
import { normalizeComponent, renderComponents, renderEmbed } from "../../adapters/discord/actions.js";
import { normalizeCardAction, renderCard, replyCard } from "../../adapters/feishu/actions.js";
import { callbackNotice, inlineKeyboard } from "../../adapters/telegram/actions.js";
import { normalizeUpdate } from "../../adapters/telegram/normalize.js";
import type { ReplyAction } from "../../src/core/actions.js";
import type { Reply } from "../../src/core/reply.js";

const ID = "AbCdEfGhIjKlMnOpQrStUv";

function withButtons(rows: ReplyAction[][], extra: Partial<Reply> = {}): Reply {
  return { blocks: [{ kind: "paragraph", text: "Archive 'x'?" }], exitCode: 1, actions: { rows }, ...extra };
}

const confirm: ReplyAction = { label: "Confirm", intent: { kind: "cancel" }, style: "danger", id: ID };
const unstored: ReplyAction = { label: "Not stored", intent: { kind: "cancel" } };

describe("telegram", () => {
  it("renders stored actions as an inline keyboard and skips unstored ones", () => {
    expect(inlineKeyboard(withButtons([[confirm, unstored]]))).toEqual({
      inline_keyboard: [[{ text: "Confirm", callback_data: ID }]],
    });
    expect(inlineKeyboard(withButtons([[unstored]]))).toBeUndefined();
    expect(inlineKeyboard(withButtons([[{ ...confirm, id: "x".repeat(65) }]]))).toBeUndefined();
  });

  it("cuts a callback notice to 200 characters", () => {
    expect(callbackNotice("a".repeat(500))).toHaveLength(200);
  });

  it("normalizes a callback query into a press; one without data or message is ignored", () => {
    const update = {
      update_id: 7,
      callback_query: {
        id: "q1",
        from: { id: 2002, is_bot: false, first_name: "Bob", username: "bob" },
        message: {
          message_id: 55,
          date: 1_700_000_000,
          chat: { id: -1001, type: "supergroup", title: "ops" },
        },
        chat_instance: "ci",
        data: ID,
      },
    };
    const message = normalizeUpdate(update as never, "SkillgateBot");
    expect(message).toMatchObject({
      eventId: "7",
      chat: { kind: "group", id: "-1001" },
      sender: { id: "2002" },
      press: { actionId: ID, messageId: "55" },
    });
    expect(message?.command).toBeUndefined();
    const noData = { ...update, callback_query: { ...update.callback_query, data: undefined } };
    expect(normalizeUpdate(noData as never, "SkillgateBot")).toBeNull();
    const inline = {
      ...update,
      callback_query: { ...update.callback_query, message: undefined, inline_message_id: "i" },
    };
    expect(normalizeUpdate(inline as never, "SkillgateBot")).toBeNull();
  });
});

describe("discord", () => {
  it("renders at most 5 rows of 5 buttons with Discord's styles and label limit", () => {
    const many = Array.from({ length: 7 }, (_, row) =>
      Array.from({ length: 7 }, (_, index) => ({
        ...confirm,
        id: `${ID}${row}${index}`,
        label: "L".repeat(90),
      })),
    );
    const rows = renderComponents(withButtons(many));
    expect(rows).toHaveLength(5);
    expect(rows.every((row) => row.components.length === 5)).toBe(true);
    expect(rows[0]?.components[0]).toMatchObject({ type: 2, style: 4, custom_id: `${ID}00` });
    expect(rows[0]?.components[0]?.label).toHaveLength(80);
    expect(renderComponents(withButtons([[unstored]]))).toEqual([]);
  });

  it("renders a card as an embed titled by its heading", () => {
    const card: Reply = {
      blocks: [
        { kind: "heading", text: "Curator" },
        { kind: "paragraph", text: "curator: ENABLED" },
      ],
      exitCode: 0,
      layout: "card",
    };
    expect(renderEmbed(card)).toMatchObject({ title: "Curator", description: "curator: ENABLED" });
    expect(renderEmbed({ ...card, layout: undefined })).toBeUndefined();
  });

  it("normalizes a button press; other components are ignored", () => {
    const press = {
      id: "1200000000000000001",
      type: 3,
      channel_id: "920",
      guild_id: "910",
      channel: { id: "920", type: 0 },
      member: { user: { id: "555", username: "bob" } },
      message: { id: "777" },
      data: { custom_id: ID, component_type: 2 },
    };
    expect(normalizeComponent(press)).toMatchObject({
      chat: { kind: "group", id: "920" },
      sender: { id: "555" },
      press: { actionId: ID, messageId: "777" },
    });
    expect(normalizeComponent({ ...press, data: { custom_id: ID, component_type: 3 } })).toBeNull();
    expect(normalizeComponent({ ...press, type: 2 })).toBeNull();
  });
});

describe("feishu", () => {
  it("renders a shared card with the buttons' ids in their values", () => {
    const card = replyCard(withButtons([[confirm, unstored]]));
    expect(card.config).toEqual({ wide_screen_mode: true, update_multi: true });
    const elements = card.elements as { tag: string; actions?: { value: unknown; type: string }[] }[];
    expect(elements.at(-1)).toMatchObject({
      tag: "action",
      actions: [{ value: { action_id: ID }, type: "danger" }],
    });
    expect(elements.at(-1)?.actions).toHaveLength(1);
    expect(renderCard(withButtons([[confirm]]), 50)).toBeUndefined();
  });

  it("normalizes a card.action.trigger callback; one without our value is ignored", () => {
    const data = {
      event_id: "ev1",
      event_type: "card.action.trigger",
      create_time: "1700000000000",
      operator: { open_id: "ou_bob" },
      action: { value: { action_id: ID }, tag: "button" },
      context: { open_message_id: "om_1", open_chat_id: "oc_ops" },
    };
    expect(normalizeCardAction(data)).toMatchObject({
      eventId: "ev1",
      chat: { id: "oc_ops" },
      sender: { id: "ou_bob" },
      press: { actionId: ID, messageId: "om_1" },
    });
    expect(normalizeCardAction({ ...data, action: { value: { other: 1 } } })).toBeNull();
  });
});
