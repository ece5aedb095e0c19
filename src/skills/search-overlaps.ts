/**
 * Overlapping skills: pairs of visible skills whose triggers (name, tags, description) say much the same,
 * measured as the cosine similarity of their TF-IDF vectors over the search index's documents, plus the
 * pairs where one names the other in `related_skills`. The curator's report and `skills overlaps` list them.
 */

import { type IndexSnapshot, searchIndexOf } from "./search.js";
import { FIELD_WEIGHTS, FIELDS } from "./search-documents.js";
import type { SkillLibrary } from "./types.js";

/** Options of an overlap listing. */
export interface OverlapOptions {
  /** Chat platform (null: the terminal); only skills visible there are paired. */
  platform?: string | null;
  /** Most pairs returned (default 50). */
  limit?: number;
  /** Least cosine similarity for a pair that is not named in `related_skills` (default 0.3). */
  minScore?: number;
}

/** Two skills whose triggers overlap, `a` before `b` in code-point order. */
export interface OverlapPair {
  a: string;
  b: string;
  /** Cosine similarity of their TF-IDF vectors over name, tags and description (0–1). */
  score: number;
  /** The shared words contributing most to `score`, most first. */
  shared: string[];
  /** True when one names the other in `related_skills`. */
  related: boolean;
}

/** Fields (indexes into `FIELDS`) whose words make a skill's trigger: name, tags, description. */
const OVERLAP_FIELDS = [0, 1, 3];
/** Default least cosine similarity of an overlapping pair. */
const OVERLAP_MIN_SCORE = 0.3;
/** Skills compared with each skill, at most (the ones sharing most of its rarer words). */
const OVERLAP_CANDIDATES = 20;
/** A word used by more skills than this (or 1% of the library) is too common to propose candidates. */
const OVERLAP_RARE_POSTINGS = 50;
/** Shared words given as a pair's reason. */
const OVERLAP_SHARED_TERMS = 5;

/**
 * Pairs of skills of `library` visible on `options.platform` whose triggers overlap, related pairs
 * first, then the most similar. Candidates come from the postings of each skill's rarer words (at most
 * `OVERLAP_CANDIDATES` per skill), so a large library is never compared pair by pair.
 */
export async function findOverlaps(
  library: SkillLibrary,
  options: OverlapOptions = {},
): Promise<OverlapPair[]> {
  return overlapPairs(await searchIndexOf(library).snapshot(options.platform ?? null), options);
}

/** The overlapping pairs among the visible documents of `snapshot` (see `findOverlaps`). */
function overlapPairs(snapshot: IndexSnapshot, options: OverlapOptions): OverlapPair[] {
  const { docs, count, visible } = snapshot;
  const minScore = options.minScore ?? OVERLAP_MIN_SCORE;
  const width = FIELDS.length;
  // Smoothed TF-IDF weights (not BM25's idf, which gives a word in most of a small library almost none).
  const idfOf = (word: string) => Math.log(1 + count / (snapshot.slotsOf(word)?.length ?? count));
  const docAt = (slot: number) => docs[slot] as NonNullable<(typeof docs)[number]>;
  const vectors = new Map<number, Map<string, number>>();
  const norms = new Map<number, number>();
  const vectorOf = (slot: number) => {
    let vector = vectors.get(slot);
    if (vector) return vector;
    vector = new Map();
    const doc = docAt(slot);
    let norm = 0;
    doc.words.forEach((word, index) => {
      let tf = 0;
      for (const field of OVERLAP_FIELDS)
        tf += (FIELD_WEIGHTS[field] as number) * (doc.counts[index * width + field] as number);
      if (tf === 0) return;
      const weight = tf * idfOf(word);
      vector.set(word, weight);
      norm += weight * weight;
    });
    vectors.set(slot, vector);
    norms.set(slot, Math.sqrt(norm));
    return vector;
  };
  const slotByName = new Map<string, number>();
  docs.forEach((doc, slot) => {
    if (doc && visible.has(doc.entry.name)) slotByName.set(doc.entry.name, slot);
  });
  const rareLimit = Math.max(OVERLAP_RARE_POSTINGS, Math.ceil(count * 0.01));
  const pairs = new Map<string, OverlapPair>();
  const keyOf = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
  const measure = (left: number, right: number) => {
    const a = vectorOf(left);
    const b = vectorOf(right);
    const terms: [string, number][] = [];
    let dot = 0;
    for (const [word, weight] of a) {
      const other = b.get(word);
      if (other === undefined) continue;
      dot += weight * other;
      terms.push([word, weight * other]);
    }
    const denominator = (norms.get(left) as number) * (norms.get(right) as number);
    terms.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    return {
      score: denominator > 0 ? dot / denominator : 0,
      shared: terms.slice(0, OVERLAP_SHARED_TERMS).map(([word]) => word),
    };
  };
  const record = (left: number, right: number, related: boolean) => {
    const first = docAt(left).entry.name;
    const second = docAt(right).entry.name;
    const key = keyOf(first, second);
    const known = pairs.get(key);
    if (known) {
      known.related ||= related;
      return;
    }
    const { score, shared } = measure(left, right);
    if (!related && score < minScore) return;
    const [a, b] = first < second ? [first, second] : [second, first];
    pairs.set(key, { a, b, score: Math.round(score * 1000) / 1000, shared, related });
  };
  for (const slot of slotByName.values()) {
    const vector = vectorOf(slot);
    // Candidates: skills sharing this one's rarer words, weighed by those words' idf.
    const weights = new Map<number, number>();
    for (const word of vector.keys()) {
      const slots = snapshot.slotsOf(word);
      if (!slots || slots.length < 2 || slots.length > rareLimit) continue;
      const idf = idfOf(word);
      for (const other of slots)
        if (other > slot && visible.has(docAt(other).entry.name))
          weights.set(other, (weights.get(other) ?? 0) + idf);
    }
    const candidates = [...weights].sort((x, y) => y[1] - x[1] || x[0] - y[0]);
    for (const [other] of candidates.slice(0, OVERLAP_CANDIDATES)) record(slot, other, false);
    for (const name of docAt(slot).related) {
      const other = slotByName.get(name);
      if (other !== undefined && other !== slot) record(slot, other, true);
    }
  }
  const sorted = [...pairs.values()].sort(
    (x, y) =>
      Number(y.related) - Number(x.related) ||
      y.score - x.score ||
      (x.a === y.a ? (x.b < y.b ? -1 : 1) : x.a < y.a ? -1 : 1),
  );
  return sorted.slice(0, Math.max(1, options.limit ?? 50));
}
