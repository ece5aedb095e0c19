/**
 * The skill library of one home: discovery over the roots, the `skills_list` and `skill_view` results,
 * and a cache that notices changes quickly.
 *
 * Caching: the first call of a process starts from the persistent scan index
 * (`<home>/.cache/skillgate/skills-index.json`, see `index-cache.ts`) when there is one, so an unchanged
 * library costs one `stat` per folder and per SKILL.md; only changed folders are listed again and only
 * changed SKILL.md files re-read, and the index is rewritten when anything differed. After that, every
 * walked folder is watched (`src/core/dir-watch.ts`: one inotify instance on Linux, read at each call, so
 * a change made before a call is seen by it; `fs.watch` per folder elsewhere), armed shortly afterwards;
 * any relevant change marks the cache dirty and the call refreshes the same incremental way. Until the
 * watches are armed, or if they cannot be (inotify limits, unsupported platform),
 * the cache is re-validated by a refresh at most every 500 ms. Changes are therefore seen within a second.
 *
 * Config: pass a `SkillgateConfig` and the library re-reads `<home>/config.yaml` whenever its mtime
 * differs from the one seen at open (a broken file then makes visibility fail closed); or pass a function
 * returning the current config, and the library calls it on every operation. Visibility (the disabled
 * lists) is applied after the scan, so it is never part of the cached data. The records a scan gives
 * callers are built in `library-records.ts`.
 */
import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { loadConfig, type SkillgateConfig } from "../config/config.js";
import { type DirectoryWatches, openDirectoryWatches } from "../core/dir-watch.js";
import { ConfigError } from "../core/errors.js";
import { restoreOptimizingCompiler } from "../core/heap-tuning.js";
import { english, type Text, t } from "../core/i18n/messages.js";
import { loadIndex, saveIndex } from "./index-cache.js";
import { buildEntries, frontmatterNameOf, sharedRecords, sortForList } from "./library-records.js";
import type { Snapshot } from "./library-snapshot.js";
import { resolveRoots, type SkillRoot } from "./roots.js";
import { isExcludedDir, type ScanStats, scanRoots } from "./scan.js";
import type { ScanCache } from "./scan-cache.js";
import { Gates } from "./skill-head.js";
import type {
  SkillEntry,
  SkillLibrary,
  SkillsListResult,
  SkillViewResult,
  SkippedSkill,
  ViewOptions,
} from "./types.js";
import { withViewTexts } from "./view-texts.js";
import { disabledNames, isDisabledIn } from "./visibility.js";

/**
 * Every skill on disk for a read-only pass over the whole library: the library's own records when it
 * offers them (`records()`), else `all()`.
 */
export function everySkillOnDisk(library: SkillLibrary): Promise<readonly SkillEntry[]> {
  return library.records ? library.records() : library.all();
}

/** Options of `openLibrary`. */
export interface LibraryOptions {
  /** Arm directory watchers after the first scan (default true). Without them the cache polls. */
  watch?: boolean;
  /** Use and keep the persistent scan index in `<home>/.cache/skillgate` (default true). */
  persistIndex?: boolean;
  /** Settle time of the scan cache in ms (default `RACY_MS`; tests shorten it). */
  racyMs?: number;
  /** Environment for `${VAR}` expansion, `HERMES_PLATFORM` and readiness (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** A library that can also release its watchers. */
export interface ManagedSkillLibrary extends SkillLibrary {
  /** The config in force for the last operation (after any reload of config.yaml). */
  currentConfig(): SkillgateConfig;
  /** The roots in force for the last operation. */
  roots(): SkillRoot[];
  /** How many scans or refreshes of the disk this library has done (for tests and diagnostics). */
  scanCount(): number;
  /** What the last scan had to read from disk, and whether it started from the persistent index. */
  lastScan(): (ScanStats & { fromIndex: boolean; indexWritten: boolean }) | undefined;
}

const POLL_MS = 500;
const ARM_DELAY_MS = 200;
const LIST_HINT = "Use skill_view(name) to see full content, tags, and linked files";

/** Freezes a `list` result (its arrays and skill rows too), so one object can answer every caller. */
function deepFreezeList(result: SkillsListResult): SkillsListResult {
  for (const skill of result.skills ?? []) Object.freeze(skill);
  if (result.skills) Object.freeze(result.skills);
  if (result.categories) Object.freeze(result.categories);
  return Object.freeze(result);
}

function isRelevantChange(filename: string | null): boolean {
  if (filename === null) return true;
  const name = path.basename(filename);
  if (isExcludedDir(name)) return false;
  return !(name.startsWith(".") && !name.endsWith(".md"));
}

class Library implements ManagedSkillLibrary {
  readonly home: string;
  private readonly configPath: string;
  private readonly configSource: SkillgateConfig | (() => SkillgateConfig);
  private readonly env: NodeJS.ProcessEnv;
  private readonly watchEnabled: boolean;
  private readonly persistIndex: boolean;
  private readonly racyMs: number | undefined;
  private cache: ScanCache | undefined;
  private last: (ScanStats & { fromIndex: boolean; indexWritten: boolean }) | undefined;
  private config: SkillgateConfig;
  private configStamp: number;
  private snapshot: Snapshot | undefined;
  private currentRoots: SkillRoot[] = [];
  private dirty = false;
  private lastRefresh = 0;
  private watchState: "off" | "pending" | "on" | "failed" = "off";
  private watches: DirectoryWatches | undefined;
  private armTimer: NodeJS.Timeout | undefined;
  private scans = 0;

  constructor(home: string, config: SkillgateConfig | (() => SkillgateConfig), options: LibraryOptions) {
    this.home = path.resolve(home);
    this.configPath = path.join(this.home, "config.yaml");
    this.configSource = config;
    this.env = options.env ?? process.env;
    this.watchEnabled = options.watch ?? true;
    this.persistIndex = options.persistIndex ?? true;
    this.racyMs = options.racyMs;
    this.config = typeof config === "function" ? config() : config;
    this.configStamp = this.configMtime();
  }

  private configMtime(): number {
    try {
      return statSync(this.configPath).mtimeMs;
    } catch {
      return 0;
    }
  }

  currentConfig(): SkillgateConfig {
    if (typeof this.configSource === "function") {
      this.config = this.configSource();
      return this.config;
    }
    const stamp = this.configMtime();
    if (stamp !== this.configStamp) {
      this.configStamp = stamp;
      try {
        this.config = loadConfig(this.configPath);
      } catch (error) {
        const failure =
          error instanceof ConfigError
            ? error
            : new ConfigError("(file)", `config.yaml could not be read: ${(error as Error).message}`);
        // Keep the last good roots but refuse visibility decisions until the file is fixed.
        this.config = { ...this.config, skills: { ...this.config.skills, visibilityError: failure } };
      }
    }
    return this.config;
  }

  roots(): SkillRoot[] {
    return this.currentRoots;
  }

  scanCount(): number {
    return this.scans;
  }

  lastScan(): (ScanStats & { fromIndex: boolean; indexWritten: boolean }) | undefined {
    return this.last && { ...this.last };
  }

  /** Returns a snapshot that reflects the disk (scanning or refreshing as needed). */
  private fresh(): Snapshot {
    const config = this.currentConfig();
    const roots = resolveRoots(this.home, config.skills.externalDirs, this.env);
    this.currentRoots = roots;
    const rootsKey = roots.map((root) => `${root.kind}:${root.real}:${root.exists}`).join("\n");
    const now = Date.now();
    if (this.watches?.takeChanges()) this.dirty = true;
    const stale =
      !this.snapshot ||
      this.snapshot.rootsKey !== rootsKey ||
      this.dirty ||
      (this.watchState !== "on" && now - this.lastRefresh > POLL_MS);
    if (stale) this.rescan(roots, rootsKey);
    return this.snapshot as Snapshot;
  }

  private rescan(roots: SkillRoot[], rootsKey: string): void {
    this.dirty = false;
    this.scans += 1;
    const gates = new Gates();
    let fromIndex = false;
    if (!this.cache && this.persistIndex) {
      this.cache = loadIndex(this.home, gates);
      fromIndex = this.cache !== undefined;
    }
    // Nothing to start from: every SKILL.md is read and parsed, work for the optimizing compiler.
    if (!this.cache) restoreOptimizingCompiler();
    const scan = scanRoots(roots, { cache: this.cache, gates, racyMs: this.racyMs });
    this.cache = scan.cache;
    const indexWritten = this.persistIndex && scan.changed;
    if (indexWritten) saveIndex(this.home, scan.cache, gates);
    this.last = { ...scan.stats, fromIndex, indexWritten };
    const { entries, onDisk } = buildEntries(scan);
    this.snapshot = { scan, rootsKey, entries, onDisk, listOrder: sortForList(entries) };
    this.lastRefresh = Date.now();
    this.syncWatchers(scan.dirs);
  }

  private syncWatchers(dirs: string[]): void {
    if (!this.watchEnabled || this.watchState === "failed") return;
    if (this.watchState === "off") {
      this.watchState = "pending";
      this.armTimer = setTimeout(() => this.arm(), ARM_DELAY_MS);
      this.armTimer.unref();
      return;
    }
    if (this.watchState === "on") this.updateWatchers(dirs);
  }

  private arm(): void {
    this.armTimer = undefined;
    if (this.watchState !== "pending" || !this.snapshot) return;
    this.watchState = "on";
    this.updateWatchers(this.snapshot.scan.dirs);
    // Anything that changed between the scan and now was not watched yet.
    this.dirty = true;
  }

  private updateWatchers(dirs: string[]): void {
    this.watches ??= openDirectoryWatches(isRelevantChange);
    const wanted = new Set(dirs);
    for (const dir of [...this.watches.dirs()]) if (!wanted.has(dir)) this.watches.remove(dir);
    for (const dir of wanted) {
      const outcome = this.watches.add(dir);
      if (outcome === "gone") this.dirty = true;
      else if (outcome === "unavailable") {
        // Out of watches (ENOSPC/EMFILE) or unsupported: fall back to polling.
        this.close();
        this.watchState = "failed";
        return;
      }
    }
  }

  /** Releases watchers and timers; the library keeps working by polling. */
  close(): void {
    if (this.armTimer) clearTimeout(this.armTimer);
    this.armTimer = undefined;
    this.watches?.close();
    this.watches = undefined;
    if (this.watchState !== "failed") this.watchState = "off";
  }

  invalidate(): void {
    this.dirty = true;
  }

  generation(): number {
    this.fresh();
    return this.scans;
  }

  /** Every skill on disk: a frozen array of frozen records, shared until the next scan (do not mutate). */
  async all(): Promise<SkillEntry[]> {
    return sharedRecords(this.fresh()).all;
  }

  async records(): Promise<readonly SkillEntry[]> {
    return this.fresh().onDisk;
  }

  /** The skills visible on `platform`: frozen records shared with `all()`. */
  async visible(platform: string | null): Promise<SkillEntry[]> {
    const snapshot = this.fresh();
    const { shown } = sharedRecords(snapshot);
    const keep = this.visibleFilter(platform);
    if (!keep) return shown;
    // `shown[i]` is the record of `entries[i]`, whose scan head the disabled lists are matched against.
    return shown.filter((_record, index) => keep(snapshot.entries[index] as SkillEntry));
  }

  /** The disabled-list test of `platform`, or undefined when nothing is disabled there. */
  private visibleFilter(platform: string | null): ((entry: SkillEntry) => boolean) | undefined {
    const disabled = disabledNames(platform, this.config);
    if (disabled.size === 0) return undefined;
    return (entry) =>
      !isDisabledIn(disabled, entry.name, { name: frontmatterNameOf(entry) }) &&
      !disabled.has(path.basename(entry.dir));
  }

  private visibleIn(entries: SkillEntry[], platform: string | null): SkillEntry[] {
    const keep = this.visibleFilter(platform);
    return keep ? entries.filter(keep) : entries;
  }

  async skipped(): Promise<SkippedSkill[]> {
    const snapshot = this.fresh();
    return snapshot.scan.records
      .filter((record) => record.error !== undefined)
      .map((record) => ({
        folder: record.relFile.slice(0, -"/SKILL.md".length) || path.basename(record.dir),
        reason: english(record.error as Text),
        text: record.error as Text,
      }));
  }

  async find(name: string): Promise<SkillEntry | undefined> {
    return sharedRecords(this.fresh()).byName.get(name);
  }

  /**
   * Lists the skills (Hermes' `skills_list`). A missing skills folder is created, as Hermes does, unless
   * `create` is false (the command line's read-only `skills list` creates nothing).
   */
  async list(
    options: { category?: string; platform?: string | null; create?: boolean } = {},
  ): Promise<SkillsListResult> {
    const snapshot = this.fresh();
    const local = this.currentRoots[0];
    if (local && !local.exists && options.create === false) {
      const message = t("cmd.skills.noneMissing", { dir: local.dir });
      return withViewTexts(
        { success: true, skills: [], categories: [], message: english(message) },
        { message },
      );
    }
    if (local && !local.exists) {
      mkdirSync(local.dir, { recursive: true });
      this.dirty = true;
      const message = t("cmd.skills.noneCreated", { dir: local.dir });
      return withViewTexts(
        { success: true, skills: [], categories: [], message: english(message) },
        { message },
      );
    }
    const platform = options.platform ?? null;
    // The whole listing of a platform is kept per scan: a warm list is then only its JSON encoding.
    const key = String(platform);
    const cached = options.category === undefined ? snapshot.lists?.get(key) : undefined;
    if (cached && cached.config === this.config) return cached.result;
    const result = this.listed(snapshot, platform, options.category);
    if (options.category === undefined && result.count !== undefined) {
      snapshot.lists ??= new Map();
      snapshot.lists.set(key, { config: this.config, result: deepFreezeList(result) });
    }
    return result;
  }

  private listed(
    snapshot: Snapshot,
    platform: string | null,
    category: string | undefined,
  ): SkillsListResult {
    const visible = this.visibleIn(snapshot.listOrder, platform);
    if (visible.length === 0)
      return withViewTexts(
        { success: true, skills: [], categories: [], message: english(t("cmd.skills.none")) },
        { message: t("cmd.skills.none") },
      );
    const chosen = category === undefined ? visible : visible.filter((entry) => entry.category === category);
    const categories = [
      ...new Set(chosen.map((entry) => entry.category).filter((value): value is string => value !== null)),
    ].sort();
    return {
      success: true,
      skills: chosen.map((entry) => ({
        name: entry.name,
        description: entry.description,
        category: entry.category,
      })),
      categories,
      count: chosen.length,
      hint: LIST_HINT,
    };
  }

  async view(name: string, options: ViewOptions = {}): Promise<SkillViewResult> {
    const snapshot = this.fresh();
    // Loaded on first use: a listing process never needs the view code.
    const { viewSkill } = await import("./view.js");
    return viewSkill(
      {
        home: this.home,
        config: this.config,
        env: this.env,
        roots: this.currentRoots,
        snapshot,
        listNames: (platform) => this.visibleIn(snapshot.listOrder, platform).map((entry) => entry.name),
      },
      name,
      options,
    );
  }
}

/** Opens the skill library of `home`. See the module comment for how config and caching work. */
export function openLibrary(
  home: string,
  config: SkillgateConfig | (() => SkillgateConfig),
  options: LibraryOptions = {},
): ManagedSkillLibrary {
  return new Library(home, config, options);
}
