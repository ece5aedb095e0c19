/**
 * The documents of relevance search: the five fields a skill is indexed by, the tokenizing of one skill
 * into them (`prepareDocument`), and the persistent search index that keeps prepared documents across
 * processes (`<home>/.cache/skillgate/search-index.json`), trusted while the scan index beside it is the
 * one it was saved with.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { indexPath } from "./index-cache.js";
import { headingsOf, hermesList, tokenize } from "./search-text.js";
import type { SkillEntry } from "./types.js";

/** The fields of a skill document, in the order of `FIELD_WEIGHTS`. */
export const FIELDS = ["name", "tags", "category", "description", "headings"] as const;
/** How much a word counts in each field (BM25F field boosts). */
export const FIELD_WEIGHTS = [3, 2, 1.2, 1, 0.6];

/** What indexing one skill produced, as kept in the persistent search index. */
export interface PreparedDocument {
  /** The stat of SKILL.md and the description it was indexed with: a change of either re-indexes it. */
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
export function stampOf(file: string): string {
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
export function scanIndexId(home: string): string {
  try {
    const head = readFileSync(indexPath(home), { encoding: "latin1" }).slice(0, 80);
    return /^skillgate-skills-index v\d+ ([0-9a-f]{16}) /.exec(head)?.[1] ?? "";
  } catch {
    return "";
  }
}

/** Reads and tokenizes one skill's fields. */
export function prepareDocument(entry: SkillEntry, stamp: string): PreparedDocument {
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

/**
 * The persistent search index of `home`, by SKILL.md path, with the scan index id it was saved with
 * (undefined when absent or unusable).
 */
export function loadSearchStore(
  home: string,
): { docs: Map<string, PreparedDocument>; scanId: string } | undefined {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(searchIndexPath(home), "utf8"));
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
  const prepared = new Map<string, PreparedDocument>();
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

/**
 * Writes the persistent search index of `home` from its documents, by SKILL.md path, with the scan
 * index id on disk now (a failed write, e.g. a read-only home, is ignored).
 */
export function saveSearchStore(
  home: string,
  documents: Iterable<[file: string, doc: PreparedDocument]>,
): void {
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
  for (const [skillFile, doc] of documents) {
    const ids = doc.words.map(idOf);
    docs.push([skillFile, doc.stamp, doc.description, doc.tags, doc.related, ids, doc.counts]);
  }
  const scan = scanIndexId(home);
  const file = searchIndexPath(home);
  const tmp = `${path.dirname(file)}${path.sep}.${path.basename(file)}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(tmp, JSON.stringify({ format: STORE_FORMAT, version: STORE_VERSION, scan, words, docs }));
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
  }
}
