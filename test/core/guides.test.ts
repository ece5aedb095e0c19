/**
 * The platform guides a person follows top to bottom: every config.yaml snippet in them is valid and
 * uses only keys skillgate reads; the Feishu guide's scope import is the console's JSON shape with the
 * scopes the adapter's calls need, subscribes the message event and the card callback, and starts
 * skillgate before the long-connection choice is saved; each guide says how to find the ids it asks for.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import "../../adapters/index.js";
import { checkConfigDocument } from "../../src/config/check.js";

const root = path.resolve(import.meta.dirname, "../..");
const guide = (name: string) => readFileSync(path.join(root, "docs", "platforms", `${name}.md`), "utf8");
const blocks = (text: string, lang: string) =>
  [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))].map((match) => match[1] ?? "");

describe("platform guides", () => {
  for (const name of ["telegram", "feishu", "discord"]) {
    it(`${name}: every config.yaml snippet is valid and has no unknown key`, () => {
      const snippets = blocks(guide(name), "yaml");
      expect(snippets.length).toBeGreaterThan(0);
      for (const snippet of snippets) {
        const found = checkConfigDocument(YAML.parse(snippet));
        expect(
          found.errors.map((error) => error.message),
          snippet,
        ).toEqual([]);
        expect(found.unknown, snippet).toEqual([]);
      }
    });
  }

  it("feishu: the scope import is the console's JSON with the scopes skillgate's calls need", () => {
    const text = guide("feishu");
    const json = blocks(text, "json").map(
      (block) => JSON.parse(block) as { scopes?: Record<string, string[]> },
    );
    const scopes = json.find((item) => item.scopes)?.scopes;
    expect(Object.keys(scopes ?? {}).sort()).toEqual(["tenant", "user"]);
    for (const scope of [
      "im:message",
      "im:message:send_as_bot",
      "im:message.p2p_msg:readonly",
      "im:message.group_at_msg:readonly",
      "im:resource",
    ])
      expect(scopes?.tenant).toContain(scope);
    // Reading every group message is not needed: skillgate answers only when mentioned.
    expect(scopes?.tenant).not.toContain("im:message.group_msg");
  });

  it("feishu: the event and the card callback are subscribed, after skillgate is running", () => {
    const text = guide("feishu");
    const start = text.indexOf("## 4. Start skillgate");
    const credentials = text.indexOf("FEISHU_APP_SECRET=");
    const events = text.indexOf("im.message.receive_v1");
    const callback = text.indexOf("`card.action.trigger`");
    expect(credentials).toBeGreaterThan(0);
    expect(start).toBeGreaterThan(credentials);
    expect(events).toBeGreaterThan(start);
    expect(callback).toBeGreaterThan(start);
    expect(text).toMatch(/Callback Configuration/);
    expect(text).toMatch(/persistent connection/);
    // How to find the group's oc_ id, and the webhook Request URL with the adapter's default path.
    expect(text).toMatch(/\/whoami[\s\S]{0,200}feishu:oc_/);
    expect(text).toContain("/feishu/webhook");
    const listener = readFileSync(path.join(root, "adapters", "feishu", "webhook.ts"), "utf8");
    expect(listener).toContain('this.ctx.settings.webhook.path ?? "/feishu/webhook"');
    expect(text).toMatch(/Request URL/);
  });

  it("discord and telegram say how to find the guild, channel and group ids", () => {
    const discord = guide("discord");
    expect(discord).toMatch(/Copy Server ID/);
    expect(discord).toMatch(/Developer Mode/);
    expect(discord).toMatch(/\/whoami[\s\S]{0,200}discord:\d+/);
    expect(guide("telegram")).toMatch(/\/whoami@yourbot[\s\S]{0,200}telegram:-100\d+/);
  });
});
