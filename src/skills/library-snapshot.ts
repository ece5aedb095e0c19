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
  /** OS/environment-gated skills, first name wins, in root then path order. */
  entries: SkillEntry[];
  /** `entries` sorted by (category or "", name), the listing order. */
  listOrder: SkillEntry[];
  /** Per entry, its `frontmatter.name` when that is a string (for the disabled lists, without parsing). */
  frontmatterNames: Map<SkillEntry, string | undefined>;
}
