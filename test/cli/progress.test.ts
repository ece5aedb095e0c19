/** The terminal progress bar: shown on a TTY stderr only, never under --json; operations report counted progress. */
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { terminalProgress } from "../../src/cli/terminal-progress.js";
import { makeHome, removeHome, writeSkill } from "../safety/helpers.js";

function fakeStderr(isTTY: boolean): Writable & { isTTY: boolean; columns: number; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  }) as Writable & { isTTY: boolean; columns: number; text: () => string };
  stream.isTTY = isTTY;
  stream.columns = 120;
  stream.text = () => chunks.join("");
  // cli-progress moves the cursor on TTY streams.
  Object.assign(stream, {
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
  });
  return stream;
}

describe("terminal progress", () => {
  it("draws done/total, rate and time left on a terminal's stderr, then clears the bar", async () => {
    const stderr = fakeStderr(true);
    const bar = await terminalProgress(stderr, false);
    expect(bar).toBeDefined();
    bar?.sink({ task: "archiving", done: 0, total: 40 });
    bar?.sink({ task: "archiving", done: 40, total: 40 });
    bar?.stop();
    const text = stderr.text();
    expect(text).toContain("archiving");
    expect(text).toMatch(/\d+\/40/);
    expect(text).toContain("/s");
    expect(text).toContain("ETA");
  });

  it("shows nothing when stderr is not a terminal or the output is --json", async () => {
    expect(await terminalProgress(fakeStderr(false), false)).toBeUndefined();
    expect(await terminalProgress(fakeStderr(true), true)).toBeUndefined();
  });

  it("a new task starts a new bar", async () => {
    const stderr = fakeStderr(true);
    const bar = await terminalProgress(stderr, false);
    bar?.sink({ task: "snapshot", done: 1, total: 3 });
    bar?.sink({ task: "purging", done: 0, total: 2 });
    bar?.stop();
    expect(stderr.text()).toContain("snapshot");
    expect(stderr.text()).toContain("purging");
  });
});

describe("terminal progress of concurrent tasks", () => {
  it("keeps one line per running task, each counting from its own start", async () => {
    const stderr = fakeStderr(true);
    const bar = await terminalProgress(stderr, false);
    const MB = 1024 * 1024;
    bar?.sink({ task: "snapshot", done: 0, total: 6000, unit: "skills" });
    bar?.sink({ task: "restoring", done: 0, total: 80 * MB, unit: "bytes" });
    bar?.sink({ task: "snapshot", done: 3000, total: 6000, unit: "skills" });
    bar?.sink({ task: "restoring", done: 12.5 * MB, total: 80 * MB, unit: "bytes" });
    // The next redraw (8 a second) shows both tasks where they are.
    await sleep(300);
    const frame = stderr.text();
    bar?.stop();
    // Counted in what the task is made of: skills, and bytes shown as MB (never raw byte counts).
    expect(frame).toMatch(/snapshot \[[^\]]*\] 3,000\/6,000 skills \| [\d,]+ skills\/s/);
    expect(frame).toMatch(/restoring \[[^\]]*\] 12\.5\/80\.0 MB \| [\d.]+ MB\/s/);
    expect(frame).not.toContain(String(80 * MB));
  });
});

describe("progress of the long CLI commands", () => {
  const homes: string[] = [];
  afterEach(async () => {
    for (const home of homes.splice(0)) await removeHome(home);
  });

  async function run(home: string, args: string[], tty: boolean): Promise<{ code: number; stderr: string }> {
    const stderr = fakeStderr(tty);
    const stdout = fakeStderr(false);
    const code = await main(["--home", home, ...args], {
      stdin: { isTTY: false } as unknown as NodeJS.ReadStream,
      stdout,
      stderr,
      env: {},
    });
    return { code, stderr: stderr.text() };
  }

  it("snapshot, rollback, purge and curator run draw bars on a terminal, nothing under --json or off a terminal", async () => {
    const home = await makeHome();
    homes.push(home);
    for (let i = 0; i < 4; i++)
      await writeSkill(home, `cat${i}/skill-${i}`, { "notes.md": "x".repeat(2000) });
    const bar = /\[[^\]]*\] [\d.,]+\/[\d.,]+ (skills|MB) \| [\d.,]+ (skills|MB)\/s \| ETA/;
    const commands = [
      { args: ["curator", "backup"], task: "snapshot", amount: /\d+\/4 skills/ },
      { args: ["curator", "rollback", "--yes"], task: "restoring", amount: /[\d.]+\/[\d.]+ MB/ },
      // Nothing to purge or transition in a fresh library: these only must stay quiet off a terminal.
      { args: ["curator", "purge", "--days", "1"], task: null, amount: null },
      { args: ["curator", "run"], task: null, amount: null },
    ];
    for (const { args, task, amount } of commands) {
      const shown = await run(home, args, true);
      expect(shown.code, `${args.join(" ")}: ${shown.stderr}`).toBe(0);
      if (task) {
        expect(shown.stderr, args.join(" ")).toContain(task);
        expect(shown.stderr, args.join(" ")).toMatch(bar);
        if (amount) expect(shown.stderr, args.join(" ")).toMatch(amount);
      }
      const json = await run(home, [...args, "--json"], true);
      expect(json.stderr, `${args.join(" ")} --json`).not.toMatch(bar);
      const piped = await run(home, args, false);
      expect(piped.stderr, `${args.join(" ")} (not a terminal)`).not.toMatch(bar);
    }
  });
});
