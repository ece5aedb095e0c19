/**
 * Untrusted text is inert on every surface: hostile skill names and descriptions rendered through every
 * renderer — the terminal, Telegram HTML, Discord markdown, Feishu posts and the Feishu secret card —
 * come out without escape sequences, controls or bidi overrides, and the secret card's markdown holds
 * no link, tag or mention a skill author put in its name.
 */
import { describe, expect, it } from "vitest";
import { renderEmbed } from "../../adapters/discord/actions.js";
import { renderReply as renderDiscord } from "../../adapters/discord/render.js";
import { renderCard } from "../../adapters/feishu/actions.js";
import { renderReply as renderFeishu, renderText } from "../../adapters/feishu/render.js";
import { secretCard } from "../../adapters/feishu/secret-input.js";
import { renderReply as renderTelegram } from "../../adapters/telegram/render.js";
import { inertCardMarkdown, withoutControls } from "../../src/core/inert-text.js";
import { renderTerminal } from "../../src/core/render-terminal.js";
import type { Reply } from "../../src/core/reply.js";

const HOSTILE = [
  "[Re-authenticate](https://evil.example)",
  "<at id=all></at>",
  '<at user_id="all">everyone</at>',
  "\u001b[2Jcleared",
  "\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007",
  "bell\u0007",
  "\u202egnp.exe",
  "@everyone",
  "<b>bold</b>",
  "c1\u009b31mred",
];

/** Controls, ESC, bidi overrides and isolates that must never reach a reader. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** The styles the terminal renderer itself adds (bold, dim, cyan, underline and their resets). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the renderer's own escape sequences
const OUR_STYLES = /\u001b\[(?:1|2|4|22|24|36|39)m/g;

function hostileReply(name: string): Reply {
  return {
    blocks: [
      { kind: "heading", text: `Skill ${name}` },
      { kind: "paragraph", text: `${name}: ${name} description` },
      { kind: "list", items: [`${name} — category ${name}`] },
      { kind: "table", headers: ["name", "description"], rows: [[name, name]] },
      { kind: "code", text: name },
    ],
    exitCode: 0,
  };
}

describe("hostile skill text through every renderer", () => {
  for (const name of HOSTILE) {
    it(`is inert everywhere: ${JSON.stringify(name)}`, () => {
      const reply = hostileReply(name);
      const surfaces: Record<string, string> = {
        terminal: renderTerminal(reply),
        "terminal (color)": renderTerminal(reply, { color: true }).replace(OUR_STYLES, ""),
        telegram: renderTelegram(reply)
          .map((chunk) => chunk.text)
          .join("\n"),
        discord: renderDiscord(reply).join("\n"),
        feishu: JSON.stringify(renderFeishu(reply)),
      };
      for (const [surface, text] of Object.entries(surfaces)) {
        expect(UNSAFE.test(JSON.parse(JSON.stringify(text))), `${surface}: ${JSON.stringify(text)}`).toBe(
          false,
        );
      }
      // Telegram HTML: a tag in a name is text, never markup.
      if (name.includes("<b>")) expect(surfaces.telegram).not.toContain("<b>bold</b>");
    });
  }

  it("the Feishu secret card's markdown holds the hostile name as text, not a link, tag or mention", () => {
    for (const name of HOSTILE) {
      const payload = secretCard({ token: "t", key: "ACME_KEY", skill: name, prompt: `Key for ${name}` });
      const card = JSON.parse(payload.content) as { body: { elements: { tag: string; content?: string }[] } };
      const markdown = card.body.elements.find((element) => element.tag === "markdown")?.content ?? "";
      expect(markdown).not.toMatch(/\]\(/);
      expect(markdown).not.toMatch(/<at/i);
      expect(markdown).not.toMatch(/<b>/);
      expect(markdown).not.toMatch(/https:\/\//);
      expect(markdown).not.toMatch(/@everyone/);
      expect(
        UNSAFE.test(payload.content.replace(/\\u[0-9a-f]{4}/g, (escaped) => JSON.parse(`"${escaped}"`))),
      ).toBe(false);
      // What a reader sees is still the name (the breaks are invisible).
      expect(markdown.replace(/\u200b/g, "")).toContain(withoutControls(name).replace(/[\r\n\t]+/g, " "));
    }
  });

  it("withoutControls keeps tabs, newlines and ordinary text; inertCardMarkdown keeps what a reader sees", () => {
    expect(withoutControls("a\tb\nc 中文 emoji 🙂")).toBe("a\tb\nc 中文 emoji 🙂");
    expect(withoutControls("x\u001b[31my\u001b[0m\u0007\u202ez")).toBe("xyz");
    expect(inertCardMarkdown("pdf-tools").replace(/\u200b/g, "")).toBe("pdf-tools");
  });
});

/** Skill names and descriptions that would be markup on Discord if written as they are. */
const DISCORD_HOSTILE = [
  "[Re-authenticate](https://evil.example)",
  "[Re-authenticate](<https://evil.example>)",
  "# Security notice",
  "## Re-authenticate now",
  "### Admin",
  "-# small print",
  "> quoted",
  ">>> quoted to the end",
  "<@123456789012345678>",
  "<@&123456789012345678>",
  "<#123456789012345678>",
  "</curator pin:123456789012345678>",
  "||hidden||",
  "**bold** __under__ ~~gone~~",
];

/** Forms Discord would render as a link, heading, subtext, quote, mention or styled span. */
const DISCORD_MARKUP = [
  /(^|[^\\])\[[^\]]*(^|[^\\])\]\(/m,
  /^[ \t]*(#{1,3}|-#|>{1,3})[ \t]/m,
  /(^|[^\\])<[@#/]/m,
  /(^|[^\\])\|\|/m,
  /(^|[^\\])\*\*/m,
  /(^|[^\\])__/m,
  /(^|[^\\])~~/m,
];

describe("hostile skill text on Discord and in Feishu cards", () => {
  for (const name of DISCORD_HOSTILE) {
    it(`Discord shows it as text: ${JSON.stringify(name)}`, () => {
      const reply: Reply = {
        blocks: [
          { kind: "heading", text: name },
          { kind: "paragraph", text: name },
          { kind: "paragraph", text: `Skill: ${name}` },
          { kind: "list", items: [name, `${name}\n${name}`] },
        ],
        exitCode: 0,
      };
      const markdown = renderDiscord(reply).join("\n");
      // Each line the renderer wrote, without the structure it adds itself (bold headings, list dashes).
      const lines = markdown
        .split("\n")
        .map((line) => line.replace(/^(\*\*|- |\s+)/, "").replace(/\*\*$/, ""));
      for (const pattern of DISCORD_MARKUP)
        expect(lines.join("\n"), `${pattern} in ${JSON.stringify(markdown)}`).not.toMatch(pattern);
      const embed = renderEmbed({ ...reply, layout: "card" });
      expect(embed).toBeDefined();
      for (const pattern of DISCORD_MARKUP) {
        expect(embed?.title ?? "").not.toMatch(pattern);
        const body = (embed?.description ?? "")
          .split("\n")
          .map((line) => line.replace(/^(- |\s+)/, ""))
          .join("\n");
        expect(body, JSON.stringify(embed)).not.toMatch(pattern);
      }
    });
  }

  it("Feishu cards and messages carry hostile names as plain text or inert markdown only", () => {
    for (const name of [...HOSTILE, ...DISCORD_HOSTILE]) {
      const reply: Reply = {
        blocks: [
          { kind: "heading", text: name },
          { kind: "paragraph", text: name },
        ],
        exitCode: 0,
        layout: "card",
      };
      const card = JSON.stringify(renderCard(reply));
      // Every text a card carries from the reply is plain_text: no markdown element holds skill text.
      expect(card).not.toMatch(/"tag":"(markdown|lark_md)"/);
      const text = JSON.stringify(renderText(reply));
      expect(text).not.toMatch(/<at/i);
    }
  });
});
