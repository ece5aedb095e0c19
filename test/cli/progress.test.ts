/** The terminal progress bar: shown on a TTY stderr only, never under --json; operations report counted progress. */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { terminalProgress } from "../../src/terminal-progress.js";

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
  it("draws done/total, rate and time left on a terminal's stderr, then clears the bar", () => {
    const stderr = fakeStderr(true);
    const bar = terminalProgress(stderr, false);
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

  it("shows nothing when stderr is not a terminal or the output is --json", () => {
    expect(terminalProgress(fakeStderr(false), false)).toBeUndefined();
    expect(terminalProgress(fakeStderr(true), true)).toBeUndefined();
  });

  it("a new task starts a new bar", () => {
    const stderr = fakeStderr(true);
    const bar = terminalProgress(stderr, false);
    bar?.sink({ task: "snapshot", done: 1, total: 3 });
    bar?.sink({ task: "purging", done: 0, total: 2 });
    bar?.stop();
    expect(stderr.text()).toContain("snapshot");
    expect(stderr.text()).toContain("purging");
  });
});
