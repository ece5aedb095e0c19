/**
 * Text in the neutral Reply is plain: no Markdown asterisks reach any platform. The refusal for a
 * disabled skill names the skill as inline code (the neutral model's one span), which each renderer
 * styles its own way.
 */
import { describe, expect, it } from "vitest";
import { replyToMarkdown } from "../../adapters/discord/render.js";
import { replyCard } from "../../adapters/feishu/actions.js";
import { renderReply as feishuPosts } from "../../adapters/feishu/render.js";
import { renderHtml } from "../../adapters/telegram/render.js";
import { disabledSkillReply } from "../../commands/chat.js";
import { english } from "../../src/core/i18n/messages.js";

describe("plain text carries no Markdown emphasis", () => {
  const reply = disabledSkillReply("with-files", "telegram");

  it.each([
    ["telegram", () => renderHtml(reply)],
    ["discord", () => replyToMarkdown(reply)],
    [
      "feishu post",
      () =>
        feishuPosts(reply)
          .map((payload) => payload.content)
          .join("\n"),
    ],
    ["feishu card", () => JSON.stringify(replyCard({ ...reply, layout: "card" }))],
  ])("%s shows the skill's name without literal asterisks", (_platform, render) => {
    const shown = render();
    expect(shown).toContain("with-files");
    expect(shown).not.toContain("**");
  });

  it("the neutral text marks the name as inline code", () => {
    expect(reply.blocks.map((block) => ("text" in block ? english(block.text) : "")).join("")).toContain(
      "`with-files`",
    );
    expect(renderHtml(reply)).toContain("<code>with-files</code>");
  });
});
