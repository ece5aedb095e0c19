import { describe, expect, it } from "vitest";
import { asciiWordSegments, tokenize } from "../../src/skills/search-text.js";

const segmenter = new Intl.Segmenter("zh", { granularity: "word" });
/** The segmenter's word-like segments that hold a letter or digit (underscores alone hold no word). */
const icuWords = (text: string) =>
  [...segmenter.segment(text)]
    .filter((piece) => piece.isWordLike && /[a-z0-9]/i.test(piece.segment))
    .map((piece) => piece.segment);

/** A deterministic stream of pseudo-random numbers in [0, 1) (a 32-bit LCG). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe("the ASCII word segments", () => {
  it("are the segmenter's word-like segments, for every mix of letters, digits and the characters that join them", () => {
    const next = random(44);
    // Each character class of ASCII text, several times over, so joins and breaks meet in every order.
    const alphabet = "abcXYZ019_.'.:,;-\"!@# \n\r\t/()aaa111";
    for (let sample = 0; sample < 20_000; sample++) {
      let text = "";
      for (let length = 1 + Math.floor(next() * 12); length > 0; length--)
        text += alphabet[Math.floor(next() * alphabet.length)];
      expect(asciiWordSegments(text), JSON.stringify(text)).toEqual(icuWords(text));
    }
  });

  it("keep what the segmenter keeps together and part what it parts", () => {
    expect(asciiWordSegments("don't use 1,000 v1.2 a:b e.g. x1.y a-b snake_case 3.a")).toEqual([
      "don't",
      "use",
      "1,000",
      "v1.2",
      "a:b",
      "e.g",
      "x1",
      "y",
      "a",
      "b",
      "snake_case",
      "3",
      "a",
    ]);
  });

  it("give ASCII text the same index words as the segmenter, and leave other text to it", () => {
    const text = "Deploys the nginx_proxy v1.2 config: don't restart; 1,000 hosts";
    expect(tokenize(text)).toEqual([
      "deploy",
      "nginx",
      "proxy",
      "v1",
      "2",
      "config",
      "don't",
      "restart",
      "1,000",
      "host",
    ]);
    // A non-ASCII character sends the whole text through the segmenter (NFKC first: ｖ１ is v1).
    expect(tokenize("部署 nginx ｖ１.2")).toEqual(["部署", "nginx", "v1", "2"]);
  });
});
