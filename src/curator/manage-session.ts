/**
 * The state and shapes of `skill_manage`: who is writing (its session, what it viewed), the context it
 * needs, its arguments and its result.
 */

import type { SkillgateConfig } from "../config/config.js";
import type { SkillLibrary } from "../skills/types.js";
import type { LedgerActor } from "./ledger.js";

/** Who is writing: a person's agent in a conversation, or the curator's background review. */
export type WriteOrigin = "foreground" | "background_review";

/** The actions `skill_manage` accepts. */
export const MANAGE_ACTIONS = ["create", "edit", "patch", "write_file", "remove_file", "delete"] as const;

/** One of `MANAGE_ACTIONS`. */
export type ManageAction = (typeof MANAGE_ACTIONS)[number];

/** Longest SKILL.md accepted (characters). */
export const MAX_SKILL_CHARS = 200_000;
/** Longest support file accepted (characters). */
export const MAX_FILE_CHARS = 1_000_000;

/**
 * Per-run (or per-conversation) state: the origin, the ledger actor, and what was viewed, which
 * read-before-write checks. Create one per consolidation run or chat session.
 */
export interface ManageSession {
  readonly origin: WriteOrigin;
  readonly actor: LedgerActor;
  /** Recorded in ledger evidence. */
  readonly id: string;
  /** Viewed skills (`name`) and files (`name\u0000relative/path`). */
  readonly viewed: Set<string>;
}

/** Starts a session. The actor defaults to `curator` for background review, else `agent`. */
export function createManageSession(options: {
  origin: WriteOrigin;
  actor?: LedgerActor;
  id?: string;
}): ManageSession {
  return {
    origin: options.origin,
    actor: options.actor ?? (options.origin === "background_review" ? "curator" : "agent"),
    id: options.id ?? `session-${Date.now().toString(36)}`,
    viewed: new Set(),
  };
}

/** Records a successful `skill_view` of a skill (and of one of its files when `filePath` is given). */
export function recordView(session: ManageSession, skill: string, filePath?: string): void {
  if (filePath) session.viewed.add(`${skill}\u0000${normalizeRel(filePath)}`);
  else session.viewed.add(skill);
}

/** What `skill_manage` needs. */
export interface ManageContext {
  home: string;
  config: SkillgateConfig;
  library: SkillLibrary;
  session: ManageSession;
  now?: () => Date;
}

/** Arguments as the tool schema names them. */
export interface SkillManageArgs {
  action: ManageAction;
  name: string;
  content?: string;
  category?: string;
  old_string?: string;
  new_string?: string;
  replace_all?: boolean;
  file_path?: string;
  file_content?: string;
  absorbed_into?: string;
}

/** The tool result: JSON handed back to the model. */
export type SkillManageResult =
  | { success: true; message: string; path?: string; archived?: boolean; absorbed_into?: string }
  | { success: false; error: string };

/** A file path as the session keys it: forward slashes, no leading `./`. */
export function normalizeRel(filePath: string): string {
  return filePath.replace(/\\/g, "/").replace(/^\.\/+/, "");
}
