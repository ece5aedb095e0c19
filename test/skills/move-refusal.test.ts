/**
 * `moveRefusal`, the containment rule of every curator move: a skill folder may be moved when its parent
 * resolves inside the real library and it is either a plain folder there or a symlink (moved as a link).
 */
import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { english } from "../../src/core/i18n/messages.js";
import { moveRefusal } from "../../src/skills/containment.js";
import { tempHome, writeSkill } from "./helpers.js";

let env: ReturnType<typeof tempHome>;
let outside: string;

beforeEach(() => {
  env = tempHome();
  outside = path.join(env.home, "outside");
  writeSkill(env.skills, "cat/plain", "name: plain\ndescription: a plain skill");
  writeSkill(outside, "cat/inner", "name: inner\ndescription: a skill outside the library");
  writeSkill(outside, "checkout", "name: checkout\ndescription: a linked skill");
  symlinkSync(path.join(outside, "cat"), path.join(env.skills, "linkedcat"));
  symlinkSync(path.join(outside, "checkout"), path.join(env.skills, "cat", "checkout"));
});
afterEach(() => env.cleanup());

describe("moveRefusal", () => {
  it("allows a plain folder inside the library", () => {
    expect(moveRefusal(env.skills, path.join(env.skills, "cat", "plain"), "plain")).toBeNull();
  });

  it("refuses a folder whose category is a link out of the library", () => {
    const refusal = moveRefusal(env.skills, path.join(env.skills, "linkedcat", "inner"), "inner");
    expect(refusal && english(refusal)).toMatch(/symlink that leads outside the library \(linkedcat\)/);
  });

  it("allows a skill folder that is itself a link (it is moved as the link)", () => {
    expect(moveRefusal(env.skills, path.join(env.skills, "cat", "checkout"), "checkout")).toBeNull();
  });

  it("refuses a folder that is gone", () => {
    const gone = moveRefusal(env.skills, path.join(env.skills, "cat", "gone"), "gone");
    expect(gone && english(gone)).toMatch(/resolves outside the library/);
  });

  it("refuses a '..' that would climb out of the parent's real path", () => {
    mkdirSync(path.join(env.skills, "cat", "deeper"));
    const climbing = `${path.join(env.skills, "cat", "deeper")}${path.sep}..${path.sep}..${path.sep}..`;
    expect(moveRefusal(env.skills, climbing, "climb")).not.toBeNull();
  });

  it("judges against the real root a batch passes in, not a second resolution", () => {
    const realRoot = realpathSync(env.skills);
    const dir = path.join(env.skills, "cat", "plain");
    expect(moveRefusal(env.skills, dir, "plain", { realRoot })).toBeNull();
    // A root the folder is not in refuses it, so the passed value is what decides.
    const elsewhere = moveRefusal(env.skills, dir, "plain", { realRoot: realpathSync(outside) });
    expect(elsewhere && english(elsewhere)).toMatch(/leads outside the library/);
  });

  it("resolves each parent folder once per batch, and what the batch resolved decides", () => {
    const realRoot = realpathSync(env.skills);
    const dir = path.join(env.skills, "cat", "plain");
    const parents = new Map<string, string | undefined>();
    expect(moveRefusal(env.skills, dir, "plain", { realRoot, parents })).toBeNull();
    expect(parents.get(path.dirname(dir))).toBe(realpathSync(path.dirname(dir)));
    parents.set(path.dirname(dir), realpathSync(outside));
    const refused = moveRefusal(env.skills, dir, "plain", { realRoot, parents });
    expect(refused && english(refused)).toMatch(/leads outside the library/);
  });

  it("takes the caller's word on whether the folder is a link", () => {
    const realRoot = realpathSync(env.skills);
    const gone = path.join(env.skills, "cat", "gone");
    const refusedGone = moveRefusal(env.skills, gone, "gone", { realRoot });
    expect(refusedGone && english(refusedGone)).toMatch(/resolves outside the library/);
    // Told it is a link (the caller's own lstat just found one), the folder is not looked at again.
    expect(moveRefusal(env.skills, gone, "gone", { realRoot, linked: true })).toBeNull();
  });
});
