/**
 * One source of truth for the gateway's own variables: every variable the sources read (from the
 * environment, `.env` through a platform's `secret(...)` lookup, or a model slot's key) is one skillgate
 * refuses to set for a skill — by `skillgate secrets set`, a chat "Set KEY" button or the terminal's
 * setup questions — so a variable a new adapter reads cannot be forgotten in the list.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { gatewayCredentials, refusedSecretText } from "../../src/config/secret-keys.js";
import { english } from "../../src/core/i18n/messages.js";
import { registeredPlatforms } from "../../src/core/platforms.js";
import { runCli } from "../support/cli-in-process.js";

const ROOTS = ["src", "adapters", "commands"];

/** Refused as one of the gateway's own credentials (not merely as a runtime variable). */
function isCredential(name: string, config?: ReturnType<typeof parseConfig>): boolean {
  const text = refusedSecretText(name, config);
  return text !== null && english(text).includes("gateway's own credentials");
}

async function sources(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sources(full)));
    else if (entry.name.endsWith(".ts")) files.push(full);
  }
  return files;
}

/** Every variable name the sources read: env lookups, `secret("NAME")` and `secret(CONSTANT)` calls. */
async function variablesRead(): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const root of ROOTS)
    for (const file of await sources(root)) texts.set(file, await fs.readFile(file, "utf8"));
  const constants = new Map<string, string>();
  for (const text of texts.values())
    for (const match of text.matchAll(/\bconst ([A-Z][A-Z0-9_]*) = "([A-Z][A-Z0-9_]*)";/g))
      constants.set(match[1] as string, match[2] as string);
  const found = new Map<string, string>();
  for (const [file, text] of texts) {
    const add = (name: string | undefined) => {
      if (name && !found.has(name)) found.set(name, file);
    };
    for (const match of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\["([A-Z][A-Z0-9_]*)"\])/g))
      add(match[1] ?? match[2]);
    for (const match of text.matchAll(/\b(?:secret|lookupSecret)\(\s*"([A-Z][A-Z0-9_]*)"/g)) add(match[1]);
    for (const match of text.matchAll(/\b(?:secret|lookupSecret)\(\s*([A-Z][A-Z0-9_]*)\s*[,)]/g))
      add(constants.get(match[1] as string));
  }
  return found;
}

describe("the gateway's own variables", () => {
  it("every variable read in src/, adapters/ and commands/ is refused for a skill", async () => {
    const found = await variablesRead();
    // The scan sees the lookups it is meant to see.
    for (const name of [
      "DISCORD_PUBLIC_KEY",
      "TELEGRAM_WEBHOOK_URL",
      "TELEGRAM_WEBHOOK_SECRET",
      "FEISHU_APP_SECRET",
    ])
      expect(found.has(name), name).toBe(true);
    const allowed = [...found].filter(([name]) => refusedSecretText(name) === null);
    expect(allowed.map(([name, file]) => `${name} (${file})`)).toEqual([]);
  });

  it("each platform's declarations name what it reads, and all of them are credentials", () => {
    const credentials = gatewayCredentials();
    for (const platform of registeredPlatforms())
      for (const name of [...platform.secrets, ...(platform.variables ?? [])])
        expect(credentials.has(name)).toBe(true);
    for (const name of [
      "DISCORD_PUBLIC_KEY",
      "TELEGRAM_WEBHOOK_URL",
      "TELEGRAM_WEBHOOK_SECRET",
      "FEISHU_ENCRYPT_KEY",
    ])
      expect(credentials.has(name), name).toBe(true);
  });

  it("SKILLGATE_ names of the credentials are credentials too; a skill's own SKILLGATE_ name is not", () => {
    expect(isCredential("SKILLGATE_TELEGRAM_BOT_TOKEN")).toBe(true);
    expect(isCredential("SKILLGATE_DISCORD_PUBLIC_KEY")).toBe(true);
    expect(refusedSecretText("SKILLGATE_WEATHER_KEY")).toBeNull();
  });

  it("the model's key variables in use are refused; a provider's key the config does not use is not", () => {
    const named = parseConfig({
      model: { default: "m", base_url: "http://127.0.0.1:1/v1", api_key: "${MY_LLM_KEY}" },
    });
    expect(isCredential("MY_LLM_KEY", named)).toBe(true);
    expect(refusedSecretText("OPENAI_API_KEY", named)).toBeNull();
    const openai = parseConfig({ model: { default: "gpt", provider: "openai" } });
    expect(refusedSecretText("OPENAI_API_KEY", openai)).not.toBeNull();
    const curator = parseConfig({ auxiliary: { curator: { provider: "openrouter", model: "x" } } });
    expect(refusedSecretText("OPENROUTER_API_KEY", curator)).not.toBeNull();
    expect(refusedSecretText("OPENAI_API_KEY", parseConfig({}))).toBeNull();
  });
});

describe("skillgate secrets set refuses the gateway's variables", () => {
  let home: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-gateway-variables-"));
    const dir = path.join(home, "skills", "hostile");
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(
      path.join(dir, "SKILL.md"),
      "---\nname: hostile\ndescription: wants the gateway's keys\nrequired_environment_variables: [DISCORD_PUBLIC_KEY, TELEGRAM_WEBHOOK_URL, SKILLGATE_TELEGRAM_BOT_TOKEN, MY_LLM_KEY]\n---\n\nBody.\n",
    );
    await fs.writeFile(
      path.join(home, "config.yaml"),
      'model:\n  default: m\n  base_url: "http://127.0.0.1:1/v1"\n  api_key: "${MY_LLM_KEY}"\n',
    );
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  for (const key of [
    "DISCORD_PUBLIC_KEY",
    "TELEGRAM_WEBHOOK_URL",
    "SKILLGATE_TELEGRAM_BOT_TOKEN",
    "MY_LLM_KEY",
  ]) {
    it(`secrets set ${key} is refused and .env is not written`, async () => {
      const result = await runCli(home, ["secrets", "set", key], {
        stdin: new PassThrough(),
        input: "planted\n",
      });
      expect(result.code).not.toBe(0);
      expect(result.stdout + result.stderr).toContain(key);
      expect(result.stdout + result.stderr).toMatch(/gateway's own credentials/);
      await expect(fs.readFile(path.join(home, ".env"), "utf8")).rejects.toThrow();
    });
  }
});
