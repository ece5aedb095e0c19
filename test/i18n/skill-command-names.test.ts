/**
 * A skill whose name cannot be a slash command everywhere (Telegram allows `[a-z0-9_]{1,32}`) is shown
 * in chat's /help as `/skill 周报`, the way it is reached, never as `/周报`; Telegram's menu leaves it out.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCommandMenu } from "../../adapters/telegram/menu.js";
import { registry } from "../../commands/index.js";
import { parseAndRun } from "../../commands/runner.js";
import { replyToPlainText } from "../../src/core/reply.js";
import { writeTestSkill } from "../support/platform-home.js";
import { tempHome } from "../telegram/helpers.js";
import { chatOn } from "./complete-support.js";

let home = "";
let cleanup: () => Promise<void> = async () => {};

beforeAll(async () => {
  ({ home, cleanup } = await tempHome());
  await writeFile(path.join(home, "config.yaml"), "gateway:\n  admins: ['telegram:1']\n");
  await writeTestSkill(home, "notes", "周报");
  await writeTestSkill(home, "tools", "pdf-tools");
});

afterAll(async () => cleanup());

describe("skills whose names are not commands", () => {
  it("/help shows `/skill 周报` and `/pdf-tools`", async () => {
    const help = registry.find((spec) => spec.path.join(" ") === "help");
    if (!help) throw new Error("no help command");
    const text = replyToPlainText(await parseAndRun(help, chatOn(home, true, new Date()), []), "zh-CN");
    expect(text).toContain("/skill 周报");
    expect(text).not.toMatch(/(^|[^ ])\/周报/m);
    expect(text).toContain("/pdf-tools");
  });

  it("Telegram's menu never lists /周报", () => {
    const menu = buildCommandMenu([
      { name: "周报", description: "weekly report", isSkill: true },
      { name: "pdf-tools", description: "pdf", isSkill: true },
    ] as Parameters<typeof buildCommandMenu>[0]);
    expect(menu.commands.map((item) => item.command)).toEqual(["pdf_tools"]);
  });
});
