/**
 * The audit ledger `skills/.curator_ledger.jsonl`: one JSON line per mutation of the library, with the
 * before and after content of every touched file kept as blobs, so any single mutation can be undone.
 * Directories are captured as whole packages (support files included) without descending into
 * dependency folders; symlinks are recorded as links. `skills.ledger: false` turns all of it off.
 */
import { randomUUID } from "node:crypto";
import { promises as fs, lstatSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { homePaths } from "../config/home.js";
import { checkWriteFence } from "../core/fence.js";
import {
  atomicWriteFile,
  isoTimestamp,
  readTextIfExists,
  withLock,
  writeTextInChunks,
} from "../core/fsutil.js";
import { t } from "../core/i18n/messages.js";
import { UsageStore } from "../skills/usage.js";
import type { UsageRecord } from "../skills/usage-record.js";
import { type BlobBatch, gcBlobs, newBlobBatch, storeFile, storeFileSync } from "./blobs.js";

/** Who made a change (`web`: a person through the local web console). */
export type LedgerActor = "curator" | "agent" | "user" | "web";

/** Directory names never captured, at any depth (#107539). */
export const CAPTURE_SKIP_DIRS = new Set([
  ".venv",
  "venv",
  "env",
  ".env",
  "node_modules",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".git",
]);

/** One captured path: a regular file (its content digest) or a symlink (its target, not followed). */
export type LedgerFile = { path: string; sha256: string } | { path: string; link: string };

/** One ledger line. */
export interface LedgerEntry {
  id: string;
  ts: string;
  actor: LedgerActor;
  action: string;
  skill: string;
  evidence: Record<string, unknown>;
  before: LedgerFile[];
  after: LedgerFile[];
  /** The paths the mutation declared (packages are restored whole under these). */
  roots?: string[];
  /** The skill's usage record around the mutation (null = no record). */
  usage_before?: UsageRecord | null;
  usage_after?: UsageRecord | null;
}

/** A state capture: files found under the declared roots. */
export interface Capture {
  roots: string[];
  files: LedgerFile[];
}

/** Options of `withLedger`. */
export interface LedgerOptions {
  home: string;
  config: SkillgateConfig;
  actor: LedgerActor;
  action: string;
  skill: string;
  evidence?: Record<string, unknown>;
  /** Files or skill directories the mutation touches (absolute, or relative to the home). */
  paths: string[];
}

/** The ledger lock file. */
export function ledgerLockPath(home: string): string {
  return path.join(homePaths(home).locks, "ledger.lock");
}

/** Identity of a captured file for comparisons: its digest or its link target. */
export function fileKey(file: LedgerFile): string {
  return "sha256" in file ? `f:${file.sha256}` : `l:${file.link}`;
}

/**
 * Runs `mutate` and records it: the before state of `paths` is captured, `mutate` runs, the after state
 * is captured and one ledger line is appended. A capture or ledger failure never blocks the mutation;
 * a throwing `mutate` is still recorded when it changed something, then rethrown.
 */
export async function withLedger<T>(opts: LedgerOptions, mutate: () => Promise<T>): Promise<T> {
  if (!opts.config.skills.ledger) return mutate();
  const roots = opts.paths.map((p) => path.resolve(opts.home, p));
  const store = new UsageStore(homePaths(opts.home).skills);
  let before: Capture | undefined;
  let usageBefore: UsageRecord | null = null;
  try {
    before = await captureState(opts.home, roots);
    usageBefore = await store.readRecord(opts.skill);
  } catch {
    before = undefined;
  }
  let result: T;
  try {
    result = await mutate();
  } catch (error) {
    if (before)
      await recordQuietly(opts, roots, before, usageBefore, store, { error: (error as Error).message });
    throw error;
  }
  if (before) await recordQuietly(opts, roots, before, usageBefore, store);
  return result;
}

async function recordQuietly(
  opts: LedgerOptions,
  roots: string[],
  before: Capture,
  usageBefore: UsageRecord | null,
  store: UsageStore,
  extraEvidence?: Record<string, unknown>,
): Promise<void> {
  try {
    const after = await captureState(opts.home, roots);
    const usageAfter = await store.readRecord(opts.skill);
    if (
      extraEvidence &&
      sameFiles(before.files, after.files) &&
      JSON.stringify(usageBefore) === JSON.stringify(usageAfter)
    )
      return;
    await appendEntry(opts.home, opts.config, {
      actor: opts.actor,
      action: opts.action,
      skill: opts.skill,
      evidence: { ...(opts.evidence ?? {}), ...(extraEvidence ?? {}) },
      before: before.files,
      after: after.files,
      roots,
      usage_before: usageBefore,
      usage_after: usageAfter,
    });
  } catch {
    // The ledger fails open: an audit problem never undoes or blocks the user's change.
  }
}

function sameFiles(a: LedgerFile[], b: LedgerFile[]): boolean {
  if (a.length !== b.length) return false;
  const map = new Map(a.map((file) => [file.path, fileKey(file)]));
  return b.every((file) => map.get(file.path) === fileKey(file));
}

/**
 * Captures the current state of `roots`: each regular file is stored as a blob, each symlink recorded
 * as a link. Directories are walked whole except dependency folders; missing paths capture nothing.
 */
export async function captureState(home: string, roots: string[]): Promise<Capture> {
  const files = new Map<string, LedgerFile>();
  for (const root of roots) await captureInto(home, path.resolve(home, root), files);
  return { roots: roots.map((root) => path.resolve(home, root)), files: [...files.values()] };
}

async function captureInto(home: string, target: string, out: Map<string, LedgerFile>): Promise<void> {
  let stat: import("node:fs").Stats;
  try {
    stat = await fs.lstat(target);
  } catch {
    return;
  }
  if (out.has(target)) return;
  if (stat.isSymbolicLink()) {
    out.set(target, { path: target, link: await fs.readlink(target) });
  } else if (stat.isFile()) {
    out.set(target, { path: target, sha256: await storeFile(home, target) });
  } else if (stat.isDirectory()) {
    const children = await fs.readdir(target, { withFileTypes: true });
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      if (child.isDirectory() && CAPTURE_SKIP_DIRS.has(child.name)) continue;
      await captureInto(home, path.join(target, child.name), out);
    }
  }
}

/**
 * `captureState` with synchronous file calls, for batches: one skill package is a handful of small files,
 * and doing them without a thread-pool round trip each keeps a batch of thousands linear and cheap on a
 * busy machine. Blobs already seen in this batch are not looked up again. `kinds` gives the type of a
 * root the caller has just looked at ("absent" roots are recorded but not looked at again).
 */
export function captureStateSync(
  home: string,
  roots: string[],
  batch: BlobBatch = newBlobBatch(),
  kinds?: (CaptureKind | "absent" | undefined)[],
): Capture {
  const files = new Map<string, LedgerFile>();
  const resolved = roots.map((root) => path.resolve(home, root));
  resolved.forEach((root, i) => {
    const kind = kinds?.[i];
    if (kind !== "absent") captureIntoSync(home, root, files, batch, kind);
  });
  return { roots: resolved, files: [...files.values()] };
}

/** What a captured path is. */
export type CaptureKind = "file" | "dir" | "link";

function captureIntoSync(
  home: string,
  target: string,
  out: Map<string, LedgerFile>,
  batch: BlobBatch,
  kind?: CaptureKind,
): void {
  if (out.has(target)) return;
  let type = kind;
  if (type === undefined) {
    let stat: import("node:fs").Stats;
    try {
      stat = lstatSync(target);
    } catch {
      return;
    }
    type = stat.isSymbolicLink() ? "link" : stat.isFile() ? "file" : stat.isDirectory() ? "dir" : undefined;
  }
  if (type === "link") out.set(target, { path: target, link: readlinkSync(target) });
  else if (type === "file") out.set(target, { path: target, sha256: storeFileSync(home, target, batch) });
  else if (type === "dir") {
    const children = readdirSync(target, { withFileTypes: true });
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const full = path.join(target, child.name);
      if (child.isDirectory()) {
        if (!CAPTURE_SKIP_DIRS.has(child.name)) captureIntoSync(home, full, out, batch, "dir");
      } else if (child.isSymbolicLink()) captureIntoSync(home, full, out, batch, "link");
      else if (child.isFile()) captureIntoSync(home, full, out, batch, "file");
    }
  }
}

/** The fields a caller supplies to `appendEntry` (an `id` only when it was announced beforehand). */
export type NewLedgerEntry = Omit<LedgerEntry, "id" | "ts"> & { ts?: string; id?: string };

/** A fresh entry id: 12 hex digits. */
export function newEntryId(): string {
  return randomUUID().replace(/-/g, "").slice(0, 12);
}

/**
 * The entry `appendEntry` would write for `fields` at `ts`: an id (the given one, else a fresh one), and
 * paths whose content is unchanged dropped from before and after, except in `pre-rollback` entries.
 */
export function buildEntry(fields: NewLedgerEntry, ts: string = isoTimestamp(new Date())): LedgerEntry {
  const { before, after } =
    fields.action === "pre-rollback" ? fields : dropUnchanged(fields.before, fields.after);
  const entry: LedgerEntry = {
    id: fields.id ?? newEntryId(),
    ts: fields.ts ?? ts,
    actor: fields.actor,
    action: fields.action,
    skill: fields.skill,
    evidence: fields.evidence ?? {},
    before,
    after,
  };
  if (fields.roots !== undefined) entry.roots = fields.roots;
  if (fields.usage_before !== undefined) entry.usage_before = fields.usage_before;
  if (fields.usage_after !== undefined) entry.usage_after = fields.usage_after;
  return entry;
}

/**
 * Appends one entry under the ledger lock and returns it (null when the ledger is disabled). Paths whose
 * content is unchanged are dropped from before and after, except in `pre-rollback` entries. When the file
 * grows past `skills.ledger_max_bytes` it is compacted and trimmed, then unreferenced blobs are collected.
 */
export async function appendEntry(
  home: string,
  config: SkillgateConfig,
  fields: NewLedgerEntry,
): Promise<LedgerEntry | null> {
  const [entry] = await appendEntries(home, config, [fields]);
  return entry ?? null;
}

/**
 * Appends several entries under one hold of the ledger lock, in one write (a group commit): a batch of
 * archives costs one lock and one append instead of one each. Same rules as `appendEntry`; returns the
 * entries written (none when the ledger is disabled).
 */
export async function appendEntries(
  home: string,
  config: SkillgateConfig,
  batch: NewLedgerEntry[],
): Promise<LedgerEntry[]> {
  if (!config.skills.ledger || batch.length === 0) return [];
  const ts = isoTimestamp(new Date());
  const entries = batch.map((fields) => buildEntry(fields, ts));
  await appendBuiltEntries(
    home,
    config,
    entries.map((entry) => JSON.stringify(entry)),
  );
  return entries;
}

/**
 * Appends entries already built (`buildEntry`) and serialized, one JSON text each, in one write under the
 * ledger lock, compacting past the size cap. A no-op when the ledger is disabled.
 */
export async function appendBuiltEntries(
  home: string,
  config: SkillgateConfig,
  serialized: readonly string[],
): Promise<void> {
  if (!config.skills.ledger || serialized.length === 0) return;
  const file = homePaths(home).ledger;
  // One line per entry, encoded through a small buffer as it is written rather than joined first.
  const lines = serialized.map((text) => `${text}\n`);
  await withLock(
    ledgerLockPath(home),
    async () => {
      // Asked once the lock is held: the wait for it may have outlived the lead (the journal keeps the
      // entry for the next leader's run).
      await checkWriteFence(home, t("fence.what.ledgerAppend"));
      await fs.mkdir(path.dirname(file), { recursive: true });
      const handle = await fs.open(file, "a+");
      let size: number;
      try {
        // A crash mid-append leaves a line without its newline: end it first, so the new entries start on
        // a line of their own (the broken line is then skipped on reading, never glued to an entry).
        if (await endsWithoutNewline(handle)) lines.unshift("\n");
        await writeTextInChunks(handle, lines);
        size = (await handle.stat()).size;
      } finally {
        await handle.close();
      }
      const cap = config.skills.ledgerMaxBytes;
      if (cap > 0 && size > cap) await compactLocked(home, cap);
    },
    { waitMs: 60_000, recordHolder: false },
  );
}

/** True when the open file is not empty and its last byte is not a newline. */
async function endsWithoutNewline(handle: import("node:fs/promises").FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/** Drops paths whose content is the same before and after. */
export function dropUnchanged(
  before: LedgerFile[],
  after: LedgerFile[],
): { before: LedgerFile[]; after: LedgerFile[] } {
  const beforeKeys = new Map(before.map((file) => [file.path, fileKey(file)]));
  const afterKeys = new Map(after.map((file) => [file.path, fileKey(file)]));
  const unchanged = (file: LedgerFile, other: Map<string, string>) => other.get(file.path) === fileKey(file);
  return {
    before: before.filter((file) => !unchanged(file, afterKeys)),
    after: after.filter((file) => !unchanged(file, beforeKeys)),
  };
}

/** A ledger line as read: the entry, or the raw text when it is not a valid entry. */
type Row = { entry: LedgerEntry; raw?: undefined } | { entry?: undefined; raw: string };

function parseEntry(text: string): LedgerEntry | undefined {
  try {
    const doc = JSON.parse(text) as LedgerEntry;
    return doc &&
      typeof doc === "object" &&
      typeof doc.id === "string" &&
      Array.isArray(doc.before) &&
      Array.isArray(doc.after)
      ? doc
      : undefined;
  } catch {
    return undefined;
  }
}

/** Where an entry written after a broken, unterminated line starts (ledgers written before the repair). */
const GLUED_ENTRY = '{"id":"';

function parseRows(text: string): Row[] {
  const rows: Row[] = [];
  for (const line of text.replace(/^\uFEFF/, "").split("\n")) {
    if (line.trim() === "") continue;
    const entry = parseEntry(line);
    if (entry) {
      rows.push({ entry });
      continue;
    }
    // A line glued onto a broken one: keep the broken part as raw and the valid entry after it.
    const at = line.lastIndexOf(GLUED_ENTRY);
    const glued = at > 0 ? parseEntry(line.slice(at)) : undefined;
    if (glued) rows.push({ raw: line.slice(0, at) }, { entry: glued });
    else rows.push({ raw: line });
  }
  return rows;
}

/**
 * Compacts the ledger (lock held): rows are re-serialised without whitespace; if the file is still above
 * 80 % of the cap the oldest lines go (the newest always stays); then unreferenced blobs are collected,
 * unless a malformed line makes the set of references uncertain.
 */
async function compactLocked(home: string, cap: number): Promise<void> {
  const file = homePaths(home).ledger;
  const rows = parseRows((await readTextIfExists(file)) ?? "");
  const lines = rows.map((row) => (row.entry ? JSON.stringify(row.entry) : row.raw));
  const sizes = lines.map((line) => Buffer.byteLength(line, "utf8") + 1);
  let total = sizes.reduce((sum, size) => sum + size, 0);
  let start = 0;
  while (total > cap * 0.8 && start < lines.length - 1) {
    total -= sizes[start] ?? 0;
    start++;
  }
  const kept = rows.slice(start);
  await atomicWriteFile(
    file,
    lines
      .slice(start)
      .map((line) => `${line}\n`)
      .join(""),
  );
  if (rows.some((row) => row.raw !== undefined)) return;
  const referenced = new Set<string>();
  for (const row of kept) {
    for (const item of [...(row.entry?.before ?? []), ...(row.entry?.after ?? [])]) {
      if ("sha256" in item) referenced.add(item.sha256);
    }
  }
  await gcBlobs(home, referenced);
}

/** The ledger as read: every valid entry, oldest first, and how many broken lines were skipped. */
export interface LedgerRead {
  entries: LedgerEntry[];
  /** Lines that are not a valid entry (a crash mid-append, a hand edit); they are skipped. */
  skipped: number;
}

/** Reads the ledger; malformed lines are skipped and counted (a BOM is tolerated). */
export async function readLedger(home: string): Promise<LedgerRead> {
  const text = await readTextIfExists(homePaths(home).ledger);
  if (text === undefined) return { entries: [], skipped: 0 };
  const rows = parseRows(text);
  return {
    entries: rows.flatMap((row) => (row.entry ? [row.entry] : [])),
    skipped: rows.filter((row) => row.raw !== undefined).length,
  };
}

/** The warning for skipped ledger lines, or undefined when there were none. */
export function skippedLinesWarning(skipped: number): string | undefined {
  if (skipped === 0) return undefined;
  return `${skipped} line${skipped === 1 ? "" : "s"} of skills/.curator_ledger.jsonl ${skipped === 1 ? "is" : "are"} not valid (an interrupted write?) and ${skipped === 1 ? "was" : "were"} skipped; every other entry is intact.`;
}

/** Every valid entry, oldest first (a BOM and malformed lines are tolerated). */
export async function readEntries(home: string): Promise<LedgerEntry[]> {
  return (await readLedger(home)).entries;
}

/** Entries newest first, optionally for one skill, at most `limit`. */
export async function listEntries(
  home: string,
  options: { skill?: string; limit?: number } = {},
): Promise<LedgerEntry[]> {
  const all = (await readEntries(home)).reverse();
  const filtered = options.skill === undefined ? all : all.filter((entry) => entry.skill === options.skill);
  return options.limit === undefined ? filtered : filtered.slice(0, Math.max(0, options.limit));
}

/** The entry with this id, or undefined. */
export async function findEntry(home: string, id: string): Promise<LedgerEntry | undefined> {
  return (await readEntries(home)).find((entry) => entry.id === id);
}
