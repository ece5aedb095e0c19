/**
 * The state of one library scan, shared by the library (which builds it) and the view (which reads it)
 * without either importing the other.
 */
import type { ScanResult } from "./scan.js";
import type { SkillEntry } from "./types.js";

/** Internal state of one scan: the entries found and their listing order. */
export interface Snapshot {
  scan: ScanResult;
  rootsKey: string;
  /** Skills this host shows and loads (OS and environment gates passed), first name wins, in root then path order. */
  entries: SkillEntry[];
  /**
   * Every skill on disk: `entries`, then the skills the OS or environment gate hides here (their
   * `hiddenBy` set) under names no shown skill has. The curator works on these: the host decides what
   * is shown and loaded, never a skill's lifecycle.
   */
  onDisk: SkillEntry[];
  /** `entries` sorted by (category or "", name), the listing order. */
  listOrder: SkillEntry[];
}
