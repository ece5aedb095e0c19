/**
 * Relevance search over the skill library: BM25F over five fields of each skill (name, tags, category,
 * description, the SKILL.md headings), English and Chinese alike.
 *
 * Text is cut into words with `Intl.Segmenter` (word granularity, `zh`), which splits Chinese into
 * dictionary words ("将应用部署到云服务器" → 应用 · 部署 · 云 · 服务 …) and Latin text at spaces and
 * punctuation; Chinese words of three or more characters also give their two-character pieces, so a query
 * segmented differently from a description still meets it. English words are lowercased and lightly
 * stemmed (plural `s`, `ing`, `ed`). Names are typo-tolerant: a query word found nowhere is matched
 * against the words of skill names by trigram overlap and edit distance (≤ 1, ≤ 2 from seven letters).
 *
 * The index follows the library: each search first asks the library whether anything changed (its
 * `generation()`), and then re-indexes only the skills whose SKILL.md the scan read again (a new
 * frontmatter object or description), drops the ones gone and adds the new ones — never a rebuild per
 * query. Results pass the one visibility rule: only the skills `library.visible(platform)` returns.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { indexPath } from "./index-cache.js";
import { editDistance, HAN, headingsOf, hermesList, plain, tokenize, trigrams } from "./search-text.js";
import type { SkillEntry, SkillLibrary } from "./types.js";

export { editDistance, hermesList, tokenize } from "./search-text.js";

/** One ranked hit. */
export interface SearchHit {
  name: string;
  description: string;
  category: string | null;
  /** BM25F score (higher is better; comparable within one query only). */
  score: number;
  /** The skill's `tags` (frontmatter or `metadata.hermes`). */
  tags: string[];
  /** The skill's `related_skills` (frontmatter or `metadata.hermes`). */
  related: string[];
}

/** Options of one search. */
export interface SearchOptions {
  /** Chat platform (null: the terminal); the visibility rule of that platform applies. */
  platform?: string | null;
  /** Most hits returned (default 10). */
  limit?: number;
}

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

/** The fields of a skill document, in the order of `FIELD_WEIGHTS`. */
const FIELDS = ["name", "tags", "category", "description", "headings"] as const;
/** How much a word counts in each field (BM25F field boosts). */
const FIELD_WEIGHTS = [3, 2, 1.2, 1, 0.6];
/** Length normalisation per field (BM25F `b`). Names and tags are short: barely normalised. */
const FIELD_B = [0.3, 0.3, 0.3, 0.75, 0.75];
/** Term-frequency saturation (BM25 `k1`). */
const K1 = 1.2;
/** A typo-matched name word counts this much of an exact one. */
const FUZZY_WEIGHT = 0.6;
/** One indexed skill. */
interface Doc {
  entry: SkillEntry;
  /** The stat of SKILL.md and the description it was indexed with: a change of either re-indexes it. */
  stamp: string;
  description: string;
  /** The document's distinct words. */
  words: string[];
  /** Per word of `words`, its count in each field (`FIELDS.length` numbers per word). */
  counts: number[];
  lengths: number[];
  tags: string[];
  related: string[];
  /** The normalised whole name (`cloud-deploy` → `cloud deploy`) for exact-name hits. */
  plainName: string;
}

/** What indexing one skill produced, as kept in the persistent search index. */
interface Prepared {
  stamp: string;
  description: string;
  /** The distinct words, and per word its count in each field (`FIELDS.length` numbers per word). */
  words: string[];
  counts: number[];
  tags: string[];
  related: string[];
}

/** Bump when the stored shape or the tokenizer changes. */
const STORE_VERSION = 2;
const STORE_FORMAT = "skillgate-search-index";

/** Where the persistent search index of `home` lives (beside the scan index, outside the skills). */
export function searchIndexPath(home: string): string {
  return path.join(home, ".cache", "skillgate", "search-index.json");
}

/** `mtime:ctime:size:ino` of a file, or "" when it cannot be read. */
function stampOf(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return "";
  }
}

/**
 * The id of the library's persistent scan index as it is on disk now (a random id each write), or "".
 * The scan index is rewritten whenever the library found anything changed on disk, so while its id is
 * the one saved with the search index, every SKILL.md is as the search index saw it.
 */
function scanIndexId(home: string): string {
  try {
    const head = readFileSync(indexPath(home), { encoding: "latin1" }).slice(0, 80);
    return /^skillgate-skills-index v\d+ ([0-9a-f]{16}) /.exec(head)?.[1] ?? "";
  } catch {
    return "";
  }
}

/** Postings of one word: the document slots using it and, per slot, its count in each field. */
interface Postings {
  slots: number[];
  counts: number[];
}

/** A BM25F index over a library's skills, updated incrementally from the library's scans. */
export class SkillSearchIndex {
  private readonly docs: (Doc | undefined)[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly free: number[] = [];
  private readonly postings = new Map<string, Postings>();
  /** Words of skill names, by trigram (the typo-tolerant lookup). */
  private readonly nameGrams = new Map<string, Set<string>>();
  /** How many documents use each name word (a word leaves `nameGrams` when none does). */
  private readonly nameWordCount = new Map<string, number>();
  private readonly totalLength = FIELDS.map(() => 0);
  private count = 0;
  private syncedGeneration: number | undefined;
  private visibleCache: { key: string; config: unknown; names: Set<string> } | undefined;
  /**
   * False while the documents were added without postings (a process's first sync); `ensureInverted`
   * builds them when a second search or an overlap pass needs them.
   */
  private inverted = true;
  /** Searches answered by this index. */
  private searches = 0;
  /** Per-slot score sums of the query being scored, all zero between queries. */
  private scratch = new Float64Array(0);

  constructor(private readonly library: SkillLibrary) {}

  /** How many skills are indexed. */
  size(): number {
    return this.count;
  }

  /**
   * Brings the index up to date with the library: only added, removed or re-read skills change. The
   * first sync of a process starts from the persistent index of the home, when there is one, so a fresh
   * `skills search` tokenizes only the skills whose SKILL.md changed since.
   */
  async sync(): Promise<void> {
    const generation = this.library.generation?.();
    if (generation !== undefined && generation === this.syncedGeneration) return;
    const entries = this.library.records ? await this.library.records() : await this.library.all();
    const first = this.syncedGeneration === undefined && this.count === 0;
    const stored = first ? this.load() : undefined;
    if (first) this.inverted = false;
    // Saved with the scan index still on disk: the stored documents are current, no stat needed.
    const trusted =
      stored !== undefined && stored.scanId !== "" && stored.scanId === scanIndexId(this.library.home);
    const seen = new Set<string>();
    let changed = false;
    for (const entry of entries) {
      seen.add(entry.skillFile);
      const slot = this.slotOf.get(entry.skillFile);
      const known = slot === undefined ? undefined : this.docs[slot];
      const kept = stored?.docs.get(entry.skillFile);
      if (trusted && kept && kept.description === entry.description) {
        this.add(entry, kept);
        continue;
      }
      const stamp = stampOf(entry.skillFile);
      if (known && known.stamp === stamp && known.description === entry.description) {
        known.entry = entry;
        continue;
      }
      if (slot !== undefined) this.remove(slot);
      if (kept && kept.stamp === stamp && kept.description === entry.description) this.add(entry, kept);
      else {
        this.add(entry, prepare(entry, stamp));
        changed = true;
      }
    }
    for (const [file, slot] of [...this.slotOf])
      if (!seen.has(file)) {
        this.remove(slot);
        changed = true;
      }
    this.syncedGeneration = generation;
    const storeStale =
      stored !== undefined &&
      (stored.docs.size !== this.count || stored.scanId !== scanIndexId(this.library.home));
    if (changed || storeStale) this.save();
  }

  /** The persistent index of the library's home, by SKILL.md path (undefined when absent or unusable). */
  private load(): { docs: Map<string, Prepared>; scanId: string } | undefined {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(searchIndexPath(this.library.home), "utf8"));
    } catch {
      return undefined;
    }
    const store = data as {
      format?: unknown;
      version?: unknown;
      scan?: unknown;
      words?: unknown;
      docs?: unknown;
    };
    if (store.format !== STORE_FORMAT || store.version !== STORE_VERSION) return undefined;
    if (!Array.isArray(store.words) || !Array.isArray(store.docs)) return undefined;
    const words = store.words as string[];
    const prepared = new Map<string, Prepared>();
    for (const row of store.docs as unknown[]) {
      if (!Array.isArray(row) || row.length !== 7) return undefined;
      const [file, stamp, description, tags, related, ids, counts] = row as [
        string,
        string,
        string,
        string[],
        string[],
        number[],
        number[],
      ];
      if (!Array.isArray(ids) || !Array.isArray(counts) || counts.length !== ids.length * FIELDS.length)
        return undefined;
      const wordsOfDoc = ids.map((id) => words[id] as string);
      prepared.set(file, { stamp, description, words: wordsOfDoc, counts, tags, related });
    }
    return { docs: prepared, scanId: typeof store.scan === "string" ? store.scan : "" };
  }

  /** Writes the persistent index (a failed write, e.g. a read-only home, is ignored). */
  private save(): void {
    const ids = new Map<string, number>();
    const words: string[] = [];
    const idOf = (word: string) => {
      let id = ids.get(word);
      if (id === undefined) {
        id = words.length;
        ids.set(word, id);
        words.push(word);
      }
      return id;
    };
    const docs: unknown[] = [];
    for (const doc of this.docs) {
      if (!doc) continue;
      const ids = doc.words.map(idOf);
      docs.push([doc.entry.skillFile, doc.stamp, doc.description, doc.tags, doc.related, ids, doc.counts]);
    }
    const scan = scanIndexId(this.library.home);
    const file = searchIndexPath(this.library.home);
    const tmp = `${path.dirname(file)}${path.sep}.${path.basename(file)}.${process.pid}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(tmp, JSON.stringify({ format: STORE_FORMAT, version: STORE_VERSION, scan, words, docs }));
      renameSync(tmp, file);
    } catch {
      rmSync(tmp, { force: true });
    }
  }

  private add(entry: SkillEntry, prepared: Prepared): void {
    const { words, counts, tags, related } = prepared;
    const width = FIELDS.length;
    const lengths = FIELDS.map(() => 0);
    for (let at = 0; at < counts.length; at++)
      lengths[at % width] = (lengths[at % width] as number) + (counts[at] as number);
    const slot = this.free.pop() ?? this.docs.length;
    this.docs[slot] = {
      entry,
      stamp: prepared.stamp,
      description: prepared.description,
      words,
      counts,
      lengths,
      tags,
      related,
      plainName: plain(entry.name),
    };
    this.slotOf.set(entry.skillFile, slot);
    this.count += 1;
    for (let field = 0; field < width; field++)
      this.totalLength[field] = (this.totalLength[field] as number) + (lengths[field] as number);
    if (this.inverted) this.invert(slot);
  }

  /** Adds the document in `slot` to the postings and the typo lookup. */
  private invert(slot: number): void {
    const { words, counts } = this.docs[slot] as Doc;
    const width = FIELDS.length;
    words.forEach((word, index) => {
      let postings = this.postings.get(word);
      if (!postings) {
        postings = { slots: [], counts: [] };
        this.postings.set(word, postings);
      }
      postings.slots.push(slot);
      for (let field = 0; field < width; field++)
        postings.counts.push(counts[index * width + field] as number);
      if ((counts[index * width] as number) > 0) this.addNameWord(word);
    });
  }

  /**
   * Builds the postings of every document, when the index was filled without them (a fresh process's
   * first sync: its one search scans the documents instead, which costs less than building them).
   */
  private ensureInverted(): void {
    if (this.inverted) return;
    this.inverted = true;
    this.docs.forEach((doc, slot) => {
      if (doc) this.invert(slot);
    });
  }

  /** The postings of `word`: from the inverted index, or collected by a scan of the documents. */
  private postingsOf(word: string): Postings | undefined {
    if (this.inverted) return this.postings.get(word);
    const width = FIELDS.length;
    const found: Postings = { slots: [], counts: [] };
    this.docs.forEach((doc, slot) => {
      const index = doc ? doc.words.indexOf(word) : -1;
      if (!doc || index < 0) return;
      found.slots.push(slot);
      for (let field = 0; field < width; field++)
        found.counts.push(doc.counts[index * width + field] as number);
    });
    return found.slots.length > 0 ? found : undefined;
  }

  private remove(slot: number): void {
    const doc = this.docs[slot];
    if (!doc) return;
    const width = FIELDS.length;
    if (this.inverted)
      doc.words.forEach((word, index) => {
        const postings = this.postings.get(word);
        if (postings) {
          const at = postings.slots.indexOf(slot);
          if (at >= 0) {
            postings.slots.splice(at, 1);
            postings.counts.splice(at * width, width);
          }
          if (postings.slots.length === 0) this.postings.delete(word);
        }
        if ((doc.counts[index * width] as number) > 0) this.removeNameWord(word);
      });
    for (let field = 0; field < width; field++)
      this.totalLength[field] = (this.totalLength[field] as number) - (doc.lengths[field] as number);
    this.slotOf.delete(doc.entry.skillFile);
    this.docs[slot] = undefined;
    this.free.push(slot);
    this.count -= 1;
  }

  private addNameWord(word: string): void {
    const uses = this.nameWordCount.get(word) ?? 0;
    this.nameWordCount.set(word, uses + 1);
    if (uses > 0 || HAN.test(word)) return;
    for (const gram of trigrams(word)) {
      let words = this.nameGrams.get(gram);
      if (!words) {
        words = new Set();
        this.nameGrams.set(gram, words);
      }
      words.add(word);
    }
  }

  private removeNameWord(word: string): void {
    const uses = (this.nameWordCount.get(word) ?? 1) - 1;
    if (uses > 0) {
      this.nameWordCount.set(word, uses);
      return;
    }
    this.nameWordCount.delete(word);
    for (const gram of trigrams(word)) this.nameGrams.get(gram)?.delete(word);
  }

  /** Name words within a small edit distance of `word` (a misspelt query word). */
  private nearNameWords(word: string): string[] {
    if (word.length < 4 || HAN.test(word)) return [];
    const max = word.length >= 7 ? 2 : 1;
    if (!this.inverted) {
      // No trigram lookup yet: every name word is tried once.
      const tried = new Set<string>();
      const near: string[] = [];
      const width = FIELDS.length;
      for (const doc of this.docs)
        doc?.words.forEach((candidate, index) => {
          if ((doc.counts[index * width] as number) === 0 || tried.has(candidate)) return;
          tried.add(candidate);
          if (!HAN.test(candidate) && editDistance(word, candidate, max) <= max) near.push(candidate);
        });
      return near;
    }
    const shared = new Map<string, number>();
    for (const gram of trigrams(word))
      for (const candidate of this.nameGrams.get(gram) ?? [])
        shared.set(candidate, (shared.get(candidate) ?? 0) + 1);
    const near: string[] = [];
    for (const [candidate, common] of shared) {
      if (common < 1) continue;
      if (editDistance(word, candidate, max) <= max) near.push(candidate);
    }
    return near;
  }

  /**
   * The names visible on `platform` (the one visibility rule, through the library), kept while the
   * library's generation and config object stay the same (a stand-in library without them is asked
   * every time).
   */
  private async visibleNames(platform: string | null): Promise<Set<string>> {
    const config = (this.library as { currentConfig?: () => unknown }).currentConfig?.();
    const key = `${this.library.generation?.()}\u0000${platform}`;
    const cached = this.visibleCache;
    if (cached && config !== undefined && cached.key === key && cached.config === config) return cached.names;
    const names = new Set((await this.library.visible(platform)).map((entry) => entry.name));
    this.visibleCache = { key, config, names };
    return names;
  }

  /** The skills best matching `query`, best first, among those visible on `options.platform`. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    // The visible names first: the library's scan they need is the one the sync then reads, instead of
    // a second one when the sync took longer than the library trusts an unwatched scan.
    const visible = await this.visibleNames(options.platform ?? null);
    await this.sync();
    // A process's first search scans the documents; one that searches again builds the postings.
    if (this.searches++ > 0) this.ensureInverted();
    const limit = Math.max(1, options.limit ?? 10);
    const ranked: [slot: number, score: number][] = [];
    for (const hit of this.score(query)) {
      const doc = this.docs[hit[0]];
      if (!doc || !visible.has(doc.entry.name)) continue;
      // Keep the best `limit` in order (insertion into a short list beats sorting every match).
      let at = ranked.length;
      while (at > 0 && isBetter(hit, ranked[at - 1] as [number, number], this.docs)) at -= 1;
      if (at < limit) {
        ranked.splice(at, 0, hit);
        if (ranked.length > limit) ranked.pop();
      }
    }
    return ranked.map(([slot, score]) => {
      const doc = this.docs[slot] as Doc;
      return {
        name: doc.entry.name,
        description: doc.entry.description,
        category: doc.entry.category,
        score: Math.round(score * 1000) / 1000,
        tags: doc.tags,
        related: doc.related,
      };
    });
  }

  /**
   * Pairs of visible skills whose triggers overlap: the cosine similarity of their TF-IDF vectors over
   * name, tags and description, plus the pairs where one names the other in `related_skills`. Candidates
   * come from the postings of each skill's rarer words (at most `OVERLAP_CANDIDATES` per skill), so a
   * large library is never compared pair by pair. Related pairs come first, then the most similar.
   */
  async overlaps(options: OverlapOptions = {}): Promise<OverlapPair[]> {
    await this.sync();
    this.ensureInverted();
    const visible = await this.visibleNames(options.platform ?? null);
    const minScore = options.minScore ?? OVERLAP_MIN_SCORE;
    const width = FIELDS.length;
    // Smoothed TF-IDF weights (not BM25's idf, which gives a word in most of a small library almost none).
    const idfOf = (word: string) =>
      Math.log(1 + this.count / (this.postings.get(word)?.slots.length ?? this.count));
    const vectors = new Map<number, Map<string, number>>();
    const norms = new Map<number, number>();
    const vectorOf = (slot: number) => {
      let vector = vectors.get(slot);
      if (vector) return vector;
      vector = new Map();
      const doc = this.docs[slot] as Doc;
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
    this.docs.forEach((doc, slot) => {
      if (doc && visible.has(doc.entry.name)) slotByName.set(doc.entry.name, slot);
    });
    const rareLimit = Math.max(OVERLAP_RARE_POSTINGS, Math.ceil(this.count * 0.01));
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
      const first = (this.docs[left] as Doc).entry.name;
      const second = (this.docs[right] as Doc).entry.name;
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
        const postings = this.postings.get(word);
        if (!postings || postings.slots.length < 2 || postings.slots.length > rareLimit) continue;
        const idf = idfOf(word);
        for (const other of postings.slots)
          if (other > slot && visible.has((this.docs[other] as Doc).entry.name))
            weights.set(other, (weights.get(other) ?? 0) + idf);
      }
      const candidates = [...weights].sort((x, y) => y[1] - x[1] || x[0] - y[0]);
      for (const [other] of candidates.slice(0, OVERLAP_CANDIDATES)) record(slot, other, false);
      for (const name of (this.docs[slot] as Doc).related) {
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

  /** Scores of every matching document slot. */
  /**
   * BM25F scores of the documents matching `query`, as `[slot, score]` pairs. Scores add up in a reused
   * array indexed by slot (no map per query), and only the slots touched are visited afterwards.
   */
  private score(query: string): [slot: number, score: number][] {
    if (this.count === 0) return [];
    const averages = this.totalLength.map((total) => Math.max(1, total / this.count));
    const wanted = new Map<string, number>();
    const postingsOf = new Map<string, Postings | undefined>();
    for (const word of tokenize(query)) {
      if (!postingsOf.has(word)) postingsOf.set(word, this.postingsOf(word));
      if (postingsOf.get(word)) wanted.set(word, Math.max(wanted.get(word) ?? 0, 1));
      else
        for (const near of this.nearNameWords(word))
          wanted.set(near, Math.max(wanted.get(near) ?? 0, FUZZY_WEIGHT));
    }
    if (this.scratch.length < this.docs.length) this.scratch = new Float64Array(this.docs.length * 2);
    const scores = this.scratch;
    const touched: number[] = [];
    const width = FIELDS.length;
    for (const [word, weight] of wanted) {
      const postings = postingsOf.has(word) ? postingsOf.get(word) : this.postingsOf(word);
      if (!postings) continue;
      const used = postings.slots.length;
      const idf = weight * Math.log(1 + (this.count - used + 0.5) / (used + 0.5));
      const { slots, counts } = postings;
      for (let index = 0; index < used; index++) {
        const slot = slots[index] as number;
        const lengths = (this.docs[slot] as Doc).lengths;
        let tf = 0;
        for (let field = 0; field < width; field++) {
          const count = counts[index * width + field] as number;
          if (count === 0) continue;
          const b = FIELD_B[field] as number;
          const norm = 1 - b + (b * (lengths[field] as number)) / (averages[field] as number);
          tf += ((FIELD_WEIGHTS[field] as number) * count) / norm;
        }
        if (scores[slot] === 0) touched.push(slot);
        scores[slot] = (scores[slot] as number) + idf * (tf / (K1 + tf));
      }
    }
    // A query that is a skill's whole name puts that skill first.
    const whole = plain(query);
    const hits: [number, number][] = touched.map((slot) => {
      const score = scores[slot] as number;
      scores[slot] = 0;
      return [slot, whole !== "" && this.docs[slot]?.plainName === whole ? score + 100 : score];
    });
    return hits;
  }
}

/** Reads and tokenizes one skill's fields. */
function prepare(entry: SkillEntry, stamp: string): Prepared {
  const frontmatter = entry.frontmatter;
  const tags = hermesList(frontmatter, "tags");
  const related = hermesList(frontmatter, "related_skills");
  const texts = [
    entry.name.replace(/[-_]/g, " "),
    tags.join(" , "),
    (entry.category ?? "").replace(/[-_/]/g, " "),
    entry.description,
    headingsOf(entry.skillFile),
  ];
  const width = FIELDS.length;
  const indexOf = new Map<string, number>();
  const words: string[] = [];
  const counts: number[] = [];
  texts.forEach((text, field) => {
    for (const word of tokenize(text)) {
      let index = indexOf.get(word);
      if (index === undefined) {
        index = words.length;
        indexOf.set(word, index);
        words.push(word);
        for (let at = 0; at < width; at++) counts.push(0);
      }
      counts[index * width + field] = (counts[index * width + field] as number) + 1;
    }
  });
  return { stamp, description: entry.description, words, counts, tags, related };
}

/** True when hit `a` ranks before `b`: a higher score, then the name first in code-point order. */
function isBetter(a: [number, number], b: [number, number], docs: (Doc | undefined)[]): boolean {
  if (a[1] !== b[1]) return a[1] > b[1];
  return (docs[a[0]]?.entry.name ?? "") < (docs[b[0]]?.entry.name ?? "");
}

const indexes = new WeakMap<SkillLibrary, SkillSearchIndex>();

/** The search index of `library`, shared by every caller of the same library (kept warm). */
export function searchIndexOf(library: SkillLibrary): SkillSearchIndex {
  let index = indexes.get(library);
  if (!index) {
    index = new SkillSearchIndex(library);
    indexes.set(library, index);
  }
  return index;
}

/** Searches `library` (see `SkillSearchIndex.search`). */
export function searchSkills(
  library: SkillLibrary,
  query: string,
  options: SearchOptions = {},
): Promise<SearchHit[]> {
  return searchIndexOf(library).search(query, options);
}

/** Overlapping skills of `library` (see `SkillSearchIndex.overlaps`). */
export function findOverlaps(library: SkillLibrary, options: OverlapOptions = {}): Promise<OverlapPair[]> {
  return searchIndexOf(library).overlaps(options);
}
