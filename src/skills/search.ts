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
 * The documents and their persistent form are in `search-documents.ts`, the overlap pass over this index
 * in `search-overlaps.ts`.
 */
import {
  FIELD_WEIGHTS,
  FIELDS,
  loadSearchStore,
  type PreparedDocument,
  prepareDocument,
  saveSearchStore,
  scanIndexId,
  stampOf,
} from "./search-documents.js";
import { editDistance, HAN, plain, tokenize, trigrams } from "./search-text.js";
import type { SkillEntry, SkillLibrary } from "./types.js";

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

/** Length normalisation per field (BM25F `b`). Names and tags are short: barely normalised. */
const FIELD_B = [0.3, 0.3, 0.3, 0.75, 0.75];
/** Term-frequency saturation (BM25 `k1`). */
const K1 = 1.2;
/** A typo-matched name word counts this much of an exact one. */
const FUZZY_WEIGHT = 0.6;
/** One indexed skill: its prepared document, and what scoring reads of it. */
interface Doc extends PreparedDocument {
  entry: SkillEntry;
  /** The number of words in each field. */
  lengths: number[];
  /** The normalised whole name (`cloud-deploy` → `cloud deploy`) for exact-name hits. */
  plainName: string;
}

/**
 * What the overlap pass (`search-overlaps.ts`) reads of an index brought up to date: the documents by
 * slot, their number, the slots using a word, and the names visible on the platform asked for.
 */
export interface IndexSnapshot {
  readonly docs: readonly (Readonly<Pick<Doc, "entry" | "words" | "counts" | "related">> | undefined)[];
  readonly count: number;
  readonly visible: ReadonlySet<string>;
  /** The slots of the documents using `word` (undefined: none). */
  slotsOf(word: string): readonly number[] | undefined;
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
    const stored = first ? loadSearchStore(this.library.home) : undefined;
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
        this.add(entry, prepareDocument(entry, stamp));
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
    if (changed || storeStale)
      saveSearchStore(
        this.library.home,
        this.docs.flatMap((doc) => (doc ? [[doc.entry.skillFile, doc] as [string, Doc]] : [])),
      );
  }

  private add(entry: SkillEntry, prepared: PreparedDocument): void {
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
   * The index brought up to date with its postings built, and the names visible on `platform`: what the
   * overlap pass reads.
   */
  async snapshot(platform: string | null): Promise<IndexSnapshot> {
    await this.sync();
    this.ensureInverted();
    const visible = await this.visibleNames(platform);
    return { docs: this.docs, count: this.count, visible, slotsOf: (word) => this.postings.get(word)?.slots };
  }

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
