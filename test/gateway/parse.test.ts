import { describe, expect, it } from "vitest";
import { closest, formatCommandLine, parseCommandInput, resolveCommand } from "../../commands/parse.js";
import type { CommandSpec } from "../../commands/types.js";
import { matchChatCommand, splitArgs } from "../../src/core/command-text.js";
import { UsageError } from "../../src/core/errors.js";
import { textReply } from "../../src/core/reply.js";
import { editDistance } from "../../src/core/suggest.js";

const run = async () => textReply("ok");
const prune: CommandSpec = {
  path: ["curator", "prune"],
  summary: "prune",
  options: [
    { name: "days", kind: "integer", description: "age" },
    { name: "dry-run", kind: "boolean", description: "preview" },
    { name: "sort", short: "s", kind: "string", choices: ["activity", "name"], description: "order" },
  ],
  confirm: () => "Really?",
  mutating: true,
  run,
};
/** A mutating `/curator <name>` command taking `args`. */
const curatorCommand = (name: string, args: CommandSpec["args"]): CommandSpec => ({
  path: ["curator", name],
  summary: name,
  args,
  mutating: true,
  run,
});
const pin = curatorCommand("pin", [{ name: "skill", description: "the skill", required: true }]);
const adopt = curatorCommand("adopt", [{ name: "skill", description: "skills", variadic: true }]);
const status: CommandSpec = { path: ["curator", "status"], summary: "status", mutating: false, run };
const help: CommandSpec = {
  path: ["help"],
  summary: "help",
  args: [{ name: "command", description: "c", variadic: true }],
  mutating: false,
  run,
};
const registry = [prune, pin, adopt, status, help];

describe("splitArgs", () => {
  it("splits on whitespace and respects quotes and escapes", () => {
    expect(splitArgs(`a  "b c" 'd "e"' f\\ g "h\\"i"`)).toEqual(["a", "b c", 'd "e"', "f g", 'h"i']);
  });
  it("keeps empty quoted words and joins adjacent quoted parts", () => {
    expect(splitArgs(`x "" a"b c"d`)).toEqual(["x", "", "ab cd"]);
  });
  it("accepts curly quotes from phone keyboards", () => {
    expect(splitArgs("--reason \u201cbefore the trip\u201d")).toEqual(["--reason", "before the trip"]);
  });
  it("rejects an unterminated quote unless lenient", () => {
    expect(() => splitArgs(`say "hello`)).toThrow(UsageError);
    expect(splitArgs(`say "hello`, { lenient: true })).toEqual(["say", "hello"]);
  });
  it("turns smart dashes at a word start into option dashes", () => {
    expect(splitArgs("\u2014dry-run \u2013y a\u2014b", { smartDashes: true })).toEqual([
      "--dry-run",
      "-y",
      "a\u2014b",
    ]);
  });
});

describe("parseCommandInput", () => {
  it("parses long, --opt=value, short, integer and choice options", () => {
    expect(parseCommandInput(prune, ["--days", "3", "--dry-run", "-s", "name", "-y"])).toEqual({
      args: [],
      options: { days: 3, "dry-run": true, sort: "name", yes: true },
    });
    expect(parseCommandInput(prune, ["--days=7", "--sort=activity", "--json"]).options).toEqual({
      days: 7,
      sort: "activity",
      json: true,
    });
    expect(parseCommandInput(prune, ["-sname"]).options).toEqual({ sort: "name" });
  });
  it("rejects a non-integer, a bad choice and a missing value", () => {
    expect(() => parseCommandInput(prune, ["--days", "soon"])).toThrow(/whole number/);
    expect(() => parseCommandInput(prune, ["--sort", "size"])).toThrow(/one of activity, name/);
    expect(() => parseCommandInput(prune, ["--days"])).toThrow(/needs a value/);
  });
  it("names an unknown option, suggests the closest and lists what is accepted", () => {
    let error: unknown;
    try {
      parseCommandInput(prune, ["--dryrun"]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toContain("Unknown option --dryrun");
    expect((error as Error).message).toContain("Did you mean --dry-run?");
    expect((error as Error).message).toContain("-y/--yes");
  });
  it("checks required and extra arguments, and collects variadic ones", () => {
    expect(() => parseCommandInput(pin, [])).toThrow(/Missing <skill>/);
    expect(() => parseCommandInput(pin, ["a", "b"])).toThrow(/Unexpected argument 'b'/);
    expect(parseCommandInput(adopt, ["a", "b", "c"]).args).toEqual(["a", "b", "c"]);
  });
  it("treats words after -- and negative numbers as arguments", () => {
    expect(parseCommandInput(adopt, ["--", "--weird", "-5"]).args).toEqual(["--weird", "-5"]);
  });
  it("does not add -y to commands without a confirmation", () => {
    expect(() => parseCommandInput(pin, ["x", "-y"])).toThrow(/Unknown option -y/);
  });
});

describe("matchChatCommand", () => {
  it("reads /name args with quotes", () => {
    expect(matchChatCommand("/curator pin 'pdf tools'")).toEqual({
      name: "curator",
      args: ["pin", "pdf tools"],
      rawArgs: "pin 'pdf tools'",
    });
  });
  it("folds case and accepts hyphens and underscores", () => {
    expect(matchChatCommand("/Claude_Code fix it")?.name).toBe("claude_code");
    expect(matchChatCommand("/skill-a /skill-b go")?.rawArgs).toBe("/skill-b go");
  });
  it("does not read paths or bare slashes as commands", () => {
    expect(matchChatCommand("/etc/hosts is broken")).toBeNull();
    expect(matchChatCommand("/usr/bin")).toBeNull();
    expect(matchChatCommand("/ hello")).toBeNull();
    expect(matchChatCommand("hello /curator")).toBeNull();
    expect(matchChatCommand("/café")).toBeNull();
  });
  it("strips @botname and keeps the arguments (Telegram /cmd@bot args)", () => {
    expect(matchChatCommand("/model@HermesBot gpt-5", { botUsername: "hermesbot" })).toEqual({
      name: "model",
      args: ["gpt-5"],
      rawArgs: "gpt-5",
    });
    expect(matchChatCommand("/curator@SkillBot")?.name).toBe("curator");
  });
  it("ignores commands addressed to another bot", () => {
    expect(matchChatCommand("/status@OtherBot", { botUsername: "HermesBot" })).toBeNull();
  });
  it("converts smart dashes in arguments", () => {
    expect(matchChatCommand("/curator run \u2014dry-run")?.args).toEqual(["run", "--dry-run"]);
  });
});

describe("resolveCommand", () => {
  it("finds the subcommand and leaves the rest", () => {
    const resolved = resolveCommand(registry, "curator", ["pin", "x"]);
    expect(resolved?.spec).toBe(pin);
    expect(resolved?.rest).toEqual(["x"]);
  });
  it("runs the default subcommand for a bare group or options only", () => {
    expect(resolveCommand(registry, "curator", [])?.spec).toBe(status);
    expect(resolveCommand(registry, "curator", ["--json"])?.rest).toEqual(["--json"]);
  });
  it("accepts underscores for hyphens in subcommands", () => {
    const withHyphen: CommandSpec = { path: ["curator", "list-archived"], summary: "", mutating: false, run };
    expect(resolveCommand([...registry, withHyphen], "curator", ["list_archived"])?.spec).toBe(withHyphen);
  });
  it("gives single commands every word", () => {
    expect(resolveCommand(registry, "help", ["curator", "pin"])).toEqual({
      spec: help,
      rest: ["curator", "pin"],
    });
  });
  it("returns undefined for names it does not know and throws for unknown subcommands", () => {
    expect(resolveCommand(registry, "nosuch", [])).toBeUndefined();
    expect(() => resolveCommand(registry, "curator", ["pinn"])).toThrow(/Did you mean `\/curator pin`/);
  });
});

describe("formatCommandLine", () => {
  it("rebuilds a command line that parses back to the same input", () => {
    const input = parseCommandInput(prune, ["--days", "3", "--sort", "name"]);
    const line = formatCommandLine(prune, input, (path) => `/${path.join(" ")}`, ["-y"]);
    expect(line).toBe("/curator prune --days 3 --sort name -y");
    const again = parseCommandInput(prune, splitArgs(line).slice(2));
    expect(again.options).toEqual({ ...input.options, yes: true });
  });
  it("quotes arguments with spaces", () => {
    expect(formatCommandLine(pin, { args: ["a b"], options: {} }, (path) => path.join(" "))).toBe(
      "curator pin 'a b'",
    );
  });
});

describe("closest", () => {
  /** The first candidate at the smallest distance within two edits, measured for every candidate. */
  function everyDistance(word: string, candidates: string[]): string | undefined {
    let best: { name: string; distance: number } | undefined;
    for (const name of candidates) {
      const distance = editDistance(word, name);
      if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
    }
    return best?.name;
  }

  it("finds what measuring every candidate finds, names of other lengths included", () => {
    const candidates = [
      "pdf",
      "pdf-tool",
      "pdf-tools",
      "pdf-toolsxy",
      "pdf-toolsxyz",
      "dpf-tools",
      "azure-caching",
      "azure-cachin",
      "azure-cachingxy",
      "技能",
      "",
    ];
    const words = [
      "pdf-tools",
      "pdf-toolz",
      "pdftools",
      "pdf-tool",
      "pdf-toolsx",
      "pd",
      "azure-cachingx",
      "技能x",
      "x",
      "",
    ];
    for (const word of words) {
      expect(closest(word, candidates), word).toBe(everyDistance(word, candidates));
      expect(closest(word, [...candidates].reverse()), word).toBe(
        everyDistance(word, [...candidates].reverse()),
      );
    }
    expect(closest("pdf-toolsx", ["pdf-toolsxyz1", "pdf-t"])).toBeUndefined();
  });
});
