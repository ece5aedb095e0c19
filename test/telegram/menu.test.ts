import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCommandMenu, fallbackMenus, telegramCommandName } from "../../adapters/telegram/menu.js";
import type { CommandCatalogEntry } from "../../src/core/message.js";

describe("telegram command menu", () => {
  it("maps names to Telegram's alphabet", () => {
    expect(telegramCommandName("PDF-Tools")).toBe("pdf_tools");
    expect(telegramCommandName("docx.extraction v2")).toBe("docx_extraction_v2");
    expect(telegramCommandName("x".repeat(40))).toBe("x".repeat(32));
  });

  it("drops names with nothing usable and keeps the first of a collision", () => {
    const menu = buildCommandMenu([
      { name: "日本語", description: "no latin letters", isSkill: true },
      { name: "pdf_tools", description: "first", isSkill: true },
      { name: "pdf-tools", description: "second", isSkill: true },
      { name: "help", description: "registry" },
    ]);
    expect(menu).toEqual({
      commands: [
        { command: "help", description: "registry" },
        { command: "pdf_tools", description: "first" },
      ],
      registryCount: 1,
    });
  });

  it("always produces entries Telegram accepts, at most 100", () => {
    const entry: fc.Arbitrary<CommandCatalogEntry> = fc.record({
      name: fc.string({ minLength: 0, maxLength: 50 }),
      description: fc.string({ maxLength: 400 }),
      isSkill: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 160 }), (catalog) => {
        const { commands, registryCount } = buildCommandMenu(catalog);
        expect(commands.length).toBeLessThanOrEqual(100);
        expect(new Set(commands.map((command) => command.command)).size).toBe(commands.length);
        for (const command of commands) {
          expect(command.command).toMatch(/^[a-z0-9_]{1,32}$/);
          expect(command.description.length).toBeGreaterThanOrEqual(1);
          expect(command.description.length).toBeLessThanOrEqual(256);
        }
        for (const attempt of fallbackMenus({ commands, registryCount })) {
          expect(attempt.length).toBeGreaterThan(0);
          expect(attempt.slice(0, registryCount)).toEqual(
            commands.slice(0, Math.min(registryCount, attempt.length)),
          );
        }
      }),
      { numRuns: 200 },
    );
  });
});
