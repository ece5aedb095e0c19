/** One registry for CLI and chat: every advertised command has a handler, and both surfaces pick the same spec. */
import { describe, expect, it } from "vitest";
import { registry } from "../../commands/index.js";
import { DEFAULT_SUBCOMMANDS, effectiveOptions, resolveCommand } from "../../commands/parse.js";
import type { CommandSpec } from "../../commands/types.js";
import { buildProgram } from "../../src/cli/program.js";
import { english } from "../../src/core/i18n/messages.js";
import { buildCommandCatalog } from "../../src/gateway/catalog.js";

const sink = { write: () => true } as unknown as NodeJS.WritableStream;

async function cliSelection(words: string[]): Promise<CommandSpec | undefined> {
  let chosen: CommandSpec | undefined;
  const program = buildProgram(
    registry,
    (selection) => {
      if (selection.kind === "command") chosen = selection.spec;
    },
    { stdout: sink, stderr: sink },
  );
  await program.parseAsync(words, { from: "user" });
  return chosen;
}

function sampleWords(spec: CommandSpec): string[] {
  const args = (spec.args ?? []).filter((arg) => arg.required).map((arg) => `sample-${arg.name}`);
  return [...spec.path, ...args];
}

describe("command registry parity", () => {
  it("has unique paths, a summary and a run for every command", () => {
    const paths = registry.map((spec) => spec.path.join(" "));
    expect(new Set(paths).size).toBe(paths.length);
    for (const spec of registry) {
      expect(english(spec.summary).length, spec.path.join(" ")).toBeGreaterThan(0);
      expect(typeof spec.run).toBe("function");
    }
  });

  it("contains the README's curator and skills trees plus help, whoami and skill", () => {
    const paths = new Set(registry.map((spec) => spec.path.join(" ")));
    const expected = [
      "skills list",
      "skills view",
      "skills usage",
      "curator status",
      "curator run",
      "curator pause",
      "curator resume",
      "curator pin",
      "curator unpin",
      "curator adopt",
      "curator list-pinned",
      "curator list-unmanaged",
      "curator archive",
      "curator restore",
      "curator list-archived",
      "curator prune",
      "curator backup",
      "curator rollback",
      "curator ledger",
      "curator purge",
      "help",
      "whoami",
      "skill",
    ];
    for (const path of expected) expect(paths.has(path), path).toBe(true);
  });

  it("every command advertised in the native catalog resolves to a handler in chat", () => {
    const catalog = buildCommandCatalog(registry, []);
    for (const entry of catalog) {
      const subs = entry.subcommands?.map((sub) => sub.name) ?? [""];
      for (const sub of subs) {
        const resolved = resolveCommand(registry, entry.name, sub ? [sub] : []);
        expect(resolved, `${entry.name} ${sub}`).toBeDefined();
        expect(resolved?.spec.path.join(" ")).toBe([entry.name, sub].filter(Boolean).join(" "));
      }
    }
    for (const [group, sub] of Object.entries(DEFAULT_SUBCOMMANDS)) {
      expect(resolveCommand(registry, group, [])?.spec.path).toEqual([group, sub]);
    }
  });

  it("the CLI and chat pick the very same spec object for every command", async () => {
    for (const spec of registry) {
      const words = sampleWords(spec);
      const fromCli = await cliSelection(words);
      const fromChat = resolveCommand(registry, words[0] ?? "", words.slice(1))?.spec;
      expect(fromCli, spec.path.join(" ")).toBe(spec);
      expect(fromChat, spec.path.join(" ")).toBe(spec);
    }
  });

  it("every option a spec declares is accepted by the CLI", async () => {
    for (const spec of registry) {
      for (const option of effectiveOptions(spec)) {
        const value =
          option.kind === "boolean" ? [] : [option.choices?.[0] ?? (option.kind === "integer" ? "3" : "x")];
        const words = [...sampleWords(spec), `--${option.name}`, ...value];
        expect(await cliSelection(words), words.join(" ")).toBe(spec);
      }
    }
  });
});
