import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readEntries } from "../../src/curator/ledger.js";
import type { Gateway } from "../../src/gateway/gateway.js";
import { gatewayDoc, makeHome, removeHome, startGateway, writeConfig, writeSkill } from "./helpers.js";

const CONFIG_HEAD = "# hand-written: keep this comment\nzeta_unknown: 1   # skillgate never reads this\n";

let home: string;
let gateway: Gateway | undefined;

beforeEach(async () => {
  home = await makeHome();
  await writeSkill(home, { name: "weather", description: "Forecasts for a city." });
  await writeSkill(home, {
    name: "wiki",
    description: "Wiki notes.",
    frontmatter: {
      metadata: {
        hermes: {
          config: [
            { key: "wiki.path", description: "Wiki path", default: "/srv/wiki" },
            { key: "wiki.api_token", description: "Token for the wiki API" },
          ],
        },
      },
    },
  });
});

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await removeHome(home);
});

async function start() {
  const config = await writeConfig(home, { gateway: gatewayDoc() });
  const file = path.join(home, "config.yaml");
  await fs.writeFile(file, CONFIG_HEAD + (await fs.readFile(file, "utf8")));
  const started = await startGateway({ home, config });
  gateway = started.gateway;
  return { ...started, file };
}

describe("skills disable/enable/config from chat", () => {
  it("an admin disables a skill for one platform after confirming: menus, /help and loading follow at once", async () => {
    const { mock, file } = await start();
    const before = await fs.readFile(file, "utf8");
    await mock.shouldReply("/skills disable weather --platform mock", ["Disable `weather` on mock", "-y"], {
      user: "admin",
    });
    expect(await fs.readFile(file, "utf8")).toBe(before);
    await mock.shouldReply("/skills disable weather --platform mock -y", "✓ `weather` disabled on mock", {
      user: "admin",
    });
    const after = await fs.readFile(file, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toBe(
      "  platform_disabled:\n    mock: [weather]\n".replace(/^/, "skills:\n"),
    );
    await mock.shouldReply("/weather", "disabled for mock", { user: "reader" });
    const help = await mock.shouldReply("/help", "Skills", { user: "reader" });
    expect(help).not.toContain("/weather");
    const catalog = mock.catalogs.at(-1) ?? [];
    expect(catalog.some((entry) => entry.name === "weather")).toBe(false);
    expect(catalog.some((entry) => entry.name === "wiki")).toBe(true);
    const ledger = await readEntries(home);
    expect(ledger.at(-1)).toMatchObject({
      actor: "user",
      action: "skills-disable",
      skill: "weather",
      evidence: { platform: "mock", by: "mock:admin" },
    });

    await mock.shouldReply(
      "/skills enable weather --platform mock -y",
      "removed from skills.platform_disabled.mock",
      {
        user: "admin",
      },
    );
    await mock.shouldReply("/weather", "Skill loaded: weather", { user: "reader" });
    expect(mock.catalogs.at(-1)?.some((entry) => entry.name === "weather")).toBe(true);
  });

  it("a read-only user's disable and config set are refused and nothing is written", async () => {
    const { mock, file } = await start();
    const before = await fs.readFile(file, "utf8");
    await mock.shouldReply("/skills disable weather -y", "for admins only", { user: "reader" });
    await mock.shouldReply("/skills config set wiki.path /tmp/x -y", "for admins only", { user: "reader" });
    await mock.shouldReply("/skills config wiki", "`wiki.path` = /srv/wiki (default)", { user: "reader" });
    expect(await fs.readFile(file, "utf8")).toBe(before);
    expect(await readEntries(home)).toEqual([]);
  });

  it("a plain chat message that looks like a secret is never stored as one", async () => {
    await writeSkill(home, {
      name: "keyed",
      frontmatter: { required_environment_variables: [{ name: "KEYED_API_KEY", prompt: "API key" }] },
    });
    const { mock } = await start();
    await mock.shouldReply("/keyed", "KEYED_API_KEY", { user: "admin" });
    await mock.shouldReply("KEYED_API_KEY=sk-live-PLAIN-CHAT-123", "no language model is configured", {
      user: "admin",
    });
    await mock.shouldReply("/keyed sk-live-PLAIN-CHAT-123", "KEYED_API_KEY", { user: "admin" });
    await expect(fs.readFile(path.join(home, ".env"), "utf8")).rejects.toThrow();
  });

  it("config set stores a declared setting; a secret-looking one is refused in chat and never written", async () => {
    const { mock, file } = await start();
    await mock.shouldReply("/skills config set wiki.path /data/wiki -y", "✓ `wiki.path` = `/data/wiki`", {
      user: "admin",
    });
    expect(await fs.readFile(file, "utf8")).toContain("  config:\n    wiki:\n      path: /data/wiki\n");
    await mock.shouldReply("/skills config wiki", "`wiki.path` = /data/wiki —", { user: "reader" });
    await mock.shouldReply("/skills config set nope.key 1 -y", "No skill declares the setting `nope.key`", {
      user: "admin",
    });
    await mock.shouldReply("/skills config set wiki.api_token hunter2-SECRET -y", "looks like a secret", {
      user: "admin",
    });
    expect(await fs.readFile(file, "utf8")).not.toContain("hunter2-SECRET");
    const ledger = JSON.stringify(await readEntries(home));
    expect(ledger).toContain("skills-config-set");
    expect(ledger).not.toContain("hunter2-SECRET");
  });
});
