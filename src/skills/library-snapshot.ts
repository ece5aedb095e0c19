/**
 * The state of one library scan, shared by the library (which builds it) and the view (which reads it)
 * without either importing the other.
 */

import type { SkillgateConfig } from "../config/config.js";
import type { ScanResult } from "./scan.js";
import type { SkillEntry, SkillsListResult } from "./types.js";

/** Internal state of one scan: the entries found and their listing order. */
export interface Snapshot {
  scan: ScanResult;
  rootsKey: string;
  /** Skills this host shows and loads (OS and environment gates passed), first name wins, in root then path order. */
  entries: SkillEntry[];
  /**
   * Every skill on disk: `entries`, then the skills the OS or environment gate hides here (their
   * `hiddenBy` set) under names no shown skill has. The curator works on these: the host decides what
   * is shown and loaded, never a skill's lifecycle. Frozen, as are its records (`records()` hands it out).
   */
  onDisk: readonly SkillEntry[];
  /** `entries` sorted by (category or "", name), the listing order. */
  listOrder: SkillEntry[];
  /**
   * What callers get: one frozen plain record per `onDisk` entry (same order), built on first use and
   * shared by every call until the next scan. The first `entries.length` are the shown skills.
   */
  shared?: SharedRecords;
  /**
   * Whole-library `list` results by platform, frozen, each with the config it was computed under (a
   * reloaded config.yaml is a new object, so a stale disabled list never answers).
   */
  lists?: Map<string, { config: SkillgateConfig; result: SkillsListResult }>;
}

/** The frozen records handed to callers for one scan. */
export interface SharedRecords {
  /** Every skill on disk (`onDisk` order), frozen array of frozen records. */
  all: SkillEntry[];
  /** The shown skills (`entries` order), frozen. */
  shown: SkillEntry[];
  /** `all` by name (first wins, as in `onDisk`). */
  byName: Map<string, SkillEntry>;
}
