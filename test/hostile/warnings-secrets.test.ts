/**
 * Finding 11 and the secrets defence. A corrupt `.usage.json` moved aside during `curator status`,
 * `curator pin` or a chat skill load is told to the person; a binary or invalid-UTF-8 skill is reported
 * by listing and refused by name alike; chat users never see absolute server paths; and no value of a
 * known secret reaches anything the Telegram emulator received, even when a skill quotes it verbatim.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { parseConfig } from "../../src/config/config.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { openLibrary } from "../../src/skills/library.js";
import { makeHome, removeHome, writeSkill } from "../gateway/helpers.js";
import { usePlatform } from "../support/harness/index.js";
import { runCli } from "./cli.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function home(): Promise<string> {
  const dir = await makeHome();
  cleanups.push(() => removeHome(dir));
  return dir;
}

const bootSecrets = usePlatform("telegram");

const corrupt = (dir: string) => fs.writeFile(path.join(dir, "skills", ".usage.json"), "{ not json");

describe("finding 11: warnings reach the person", () => {
  it("curator status and curator pin say the corrupt .usage.json was moved aside", async () => {
    const dir = await home();
    await writeSkill(dir, { name: "pdf", frontmatter: { created_by: "agent" } });
    await corrupt(dir);
    const status = await runCli(dir, ["curator", "status"]);
    expect(status.stdout + status.stderr).toMatch(
      /\.usage\.json was not valid JSON; it was kept as \.usage\.json\.corrupt-/,
    );
    await corrupt(dir);
    const pin = await runCli(dir, ["curator", "pin", "pdf"]);
    expect(pin.stdout + pin.stderr).toMatch(/\.usage\.json was not valid JSON/);
    await corrupt(dir);
    const json = await runCli(dir, ["curator", "status", "--json"]);
    expect(json.stderr).toMatch(/warning: \.usage\.json was not valid JSON/);
  });

  it("a chat skill load says so too", async () => {
    const dir = await home();
    await writeSkill(dir, { name: "pdf" });
    await corrupt(dir);
    const mock = createMockAdapter({ platform: "discord" });
    const gateway = createGateway({
      home: dir,
      config: parseConfig({ gateway: { admins: ["discord:admin"], health: { enabled: false } } }),
      adapters: [mock],
    });
    cleanups.push(() => gateway.stop());
    mock.settle = () => gateway.whenIdle();
    await gateway.start();
    await mock.shouldReply("/pdf", [/Skill loaded: pdf/, /\.usage\.json was not valid JSON/], {
      user: "admin",
    });
  });

  it("binary and invalid-UTF-8 skills are reported by listing and refused by name", async () => {
    const dir = await home();
    await fs.mkdir(path.join(dir, "skills", "bin"), { recursive: true });
    await fs.writeFile(
      path.join(dir, "skills", "bin", "SKILL.md"),
      Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x00, 0x81]),
    );
    const list = await runCli(dir, ["skills", "list"]);
    expect(list.stdout + list.stderr).toMatch(/skipped bin: SKILL\.md of skill 'bin' is not valid UTF-8/);
    const view = await runCli(dir, ["skills", "view", "bin"]);
    expect(view.code).toBe(1);
    expect(view.stdout + view.stderr).toMatch(/not valid UTF-8/);
  });

  it("chat surfaces show paths relative to the home, in the expanded skill-dir variable and link warnings", async () => {
    const dir = await home();
    await writeSkill(dir, { name: "runner", category: "tools" });
    const skillFile = path.join(dir, "skills", "tools", "runner", "SKILL.md");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder a skill body carries
    await fs.appendFile(skillFile, "Run `python ${HERMES_SKILL_DIR}/scripts/go.py`.\n");
    const outside = `${dir}-elsewhere`;
    cleanups.push(() => fs.rm(outside, { recursive: true, force: true }));
    await fs.mkdir(outside, { recursive: true });
    await fs.writeFile(path.join(outside, "SKILL.md"), "---\nname: linked\ndescription: linked in\n---\nx\n");
    await fs.symlink(outside, path.join(dir, "skills", "linked"));
    const library = openLibrary(dir, parseConfig({}), { watch: false, persistIndex: false });
    const chat = await library.view("runner", { platform: "telegram" });
    expect(String(chat.content)).toContain("$HERMES_HOME/skills/tools/runner/scripts/go.py");
    expect(JSON.stringify(chat)).not.toContain(dir);
    const terminal = await library.view("runner");
    expect(String(terminal.content)).toContain(path.join(dir, "skills", "tools", "runner"));
    const linked = await library.view("linked", { platform: "telegram" });
    expect(linked.success).toBe(true);
    expect(JSON.stringify(linked.security_warnings)).toMatch(/resolves to <outside the home>\/SKILL\.md/);
    expect(JSON.stringify(linked)).not.toContain(outside);
  });
});

describe("secrets never leave in a chat message", () => {
  it("a token in .env, quoted verbatim by a skill, never reaches the Telegram emulator", async () => {
    const modelKey = "sk-model-key-0123456789abcdef";
    const run = await bootSecrets({
      config: { gateway: { admins: ["telegram:7"] } },
      prepare: async (dir, emulator) => {
        await fs.writeFile(
          path.join(dir, ".env"),
          `TELEGRAM_BOT_TOKEN=${emulator.token}\nOPENROUTER_API_KEY=${modelKey}\n`,
        );
        await writeSkill(dir, {
          name: "careless",
          description: `uses ${modelKey}`,
          files: { "references/notes.md": `token: ${emulator.token}\nkey: ${modelKey}\nhome: ${dir}/.env\n` },
        });
      },
    });
    const { emulator, gateway, home: dir } = run;
    for (const text of ["/skills view careless references/notes.md", "/careless", "/help", "/skills list"]) {
      const since = emulator.sent.length;
      emulator.userSays({ userId: 7, text });
      await emulator.waitForMessage((message) => message.chat_id === "7", 8000, since);
      await gateway.whenIdle();
    }
    const received = JSON.stringify(emulator.calls.map((call) => call.params));
    expect(received).toContain("[redacted]");
    expect(received).toContain("$HERMES_HOME/.env");
    expect(received).not.toContain(modelKey);
    expect(received.split(emulator.token).length - 1).toBe(0);
    expect(received).not.toContain(dir);
  });
});
