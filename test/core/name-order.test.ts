import { describe, expect, it } from "vitest";
import { compareNames } from "../../src/core/name-order.js";

const root = new Intl.Collator("und").compare;

/** A deterministic stream of pseudo-random numbers in [0, 1) (a 32-bit LCG). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomName(next: () => number, alphabet: string): string {
  let name = "";
  for (let length = Math.floor(next() * 7); length > 0; length--)
    name += alphabet[Math.floor(next() * alphabet.length)];
  return name;
}

/** Compares 20,000 pairs of random names over `alphabet` with `compareNames` and with ICU's root collator. */
function expectRootOrder(seed: number, alphabet: string): void {
  const next = random(seed);
  for (let pair = 0; pair < 20_000; pair++) {
    const a = randomName(next, alphabet);
    const b = randomName(next, alphabet);
    expect(Math.sign(compareNames(a, b)), `${a} vs ${b}`).toBe(Math.sign(root(a, b)));
  }
}

describe("compareNames", () => {
  it("orders plain names (lowercase ASCII, digits, '-' and '.') exactly as ICU's root collation", () => {
    const alphabet = "-.0123456789abcdefghijklmnopqrstuvwxyz";
    expectRootOrder(42, alphabet);
    // Every pair of single characters: where code-point order and collation could part ways.
    for (const a of alphabet)
      for (const b of alphabet) expect(Math.sign(compareNames(a, b))).toBe(Math.sign(root(a, b)));
  });

  it("hands every other name to the collator: case, underscores, spaces, accents, Chinese", () => {
    expectRootOrder(7, "-._ 0129aAbBzZéÉ技能管理");
    // Where code-point order would differ: a capital after its lowercase, '_' before digits.
    expect(compareNames("Ab", "ab")).toBeGreaterThan(0);
    expect(compareNames("a_b", "a1")).toBeLessThan(0);
    expect(["zeta", "Alpha", "beta", "_tools", "2fa"].sort(compareNames)).toEqual([
      "_tools",
      "2fa",
      "Alpha",
      "beta",
      "zeta",
    ]);
  });
});
