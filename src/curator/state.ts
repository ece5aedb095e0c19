/**
 * The curator's scheduler state `<home>/skills/.curator_state`, byte-compatible with Hermes: a JSON
 * object with the known keys below (plus any `_*` keys), written atomically with indent 2 and sorted
 * keys. A corrupt file is kept aside as `.curator_state.corrupt-<timestamp>` and read as the defaults.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { atomicWriteFile, parseJsonObject, readTextIfExists, stableJson, withLock } from "../core/fsutil.js";
import { type Text, t } from "../core/i18n/messages.js";
import { readTextCached } from "../core/read-cache.js";

/** The scheduler state. Keys starting with `_` are kept as they are. */
export interface CuratorState {
  last_run_at: string | null;
  last_run_duration_seconds: number | null;
  last_run_summary: string | null;
  last_run_summary_shown_at: string | null;
  last_report_path: string | null;
  paused: boolean;
  run_count: number;
  [extra: `_${string}`]: unknown;
}

/** The state of a home that never ran the curator. */
export function defaultState(): CuratorState {
  return {
    last_run_at: null,
    last_run_duration_seconds: null,
    last_run_summary: null,
    last_run_summary_shown_at: null,
    last_report_path: null,
    paused: false,
    run_count: 0,
  };
}

/** Result of reading the state: the state plus a warning when a corrupt file was moved aside. */
export interface StateRead {
  state: CuratorState;
  warning?: Text;
}

function nullableString(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** Keeps only the known keys (coerced to their types) and `_*` keys of a parsed document. */
export function normalizeState(raw: Record<string, unknown>): CuratorState {
  const state = defaultState();
  state.last_run_at = nullableString(raw.last_run_at);
  state.last_run_summary = nullableString(raw.last_run_summary);
  state.last_run_summary_shown_at = nullableString(raw.last_run_summary_shown_at);
  state.last_report_path = nullableString(raw.last_report_path);
  const duration = raw.last_run_duration_seconds;
  state.last_run_duration_seconds =
    typeof duration === "number" && Number.isFinite(duration) ? duration : null;
  state.paused = raw.paused === true;
  const runs = raw.run_count;
  state.run_count = typeof runs === "number" && Number.isInteger(runs) && runs >= 0 ? runs : 0;
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith("_")) state[key as `_${string}`] = value;
  }
  return state;
}

function parseState(text: string): CuratorState | undefined {
  const data = parseJsonObject(text);
  return data && normalizeState(data);
}

function stateLockFile(home: string): string {
  return path.join(homePaths(home).locks, "curator-state");
}

async function moveAside(file: string): Promise<Text> {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  const aside = `${file}.corrupt-${stamp}`;
  await fs.rename(file, aside).catch(() => undefined);
  return t("state.movedAside", { file: path.basename(file), aside: path.basename(aside) });
}

async function loadUnlocked(file: string): Promise<StateRead> {
  const text = await readTextIfExists(file);
  if (text === undefined) return { state: defaultState() };
  const parsed = parseState(text);
  if (parsed) return { state: parsed };
  return { state: defaultState(), warning: await moveAside(file) };
}

/** Reads the state of `home`; a missing file gives the defaults, a corrupt one is moved aside first. */
export async function readState(home: string): Promise<StateRead> {
  const file = homePaths(home).curatorState;
  const text = await readTextCached(file);
  if (text === undefined) return { state: defaultState() };
  const parsed = parseState(text);
  if (parsed) return { state: parsed };
  // Re-check under the lock so two readers do not both move a file another process just repaired.
  return withLock(stateLockFile(home), () => loadUnlocked(file));
}

/** Writes the whole state atomically (indent 2, sorted keys). */
export async function writeState(home: string, state: CuratorState): Promise<void> {
  await atomicWriteFile(homePaths(home).curatorState, stableJson(normalizeState({ ...state })));
}

/**
 * Read-modify-write of the state under its lock, so a pause from the CLI and a run finishing in a
 * gateway never overwrite each other. Returns the state as written.
 */
export async function updateState(
  home: string,
  mutate: (state: CuratorState) => void | Promise<void>,
): Promise<StateRead> {
  return withLock(stateLockFile(home), async () => {
    const read = await loadUnlocked(homePaths(home).curatorState);
    await mutate(read.state);
    await writeState(home, read.state);
    return read;
  });
}
