/**
 * Deciding, after a consolidation pass, what happened to each skill that left the curated set: merged
 * into an umbrella, or pruned. The model's word is not trusted on its own (reference B7, (e)14): a
 * declaration at delete time (`absorbed_into`) wins when its umbrella exists; then the YAML summary block
 * of the final message, checked against the library; then an audit of the tool calls (a write to another
 * skill that mentions the removed one). A claimed umbrella that does not exist is never reported as one.
 */
import { YAML } from "../core/yaml.js";

/** A skill merged into an umbrella by the consolidation pass. */
export interface ConsolidatedEntry {
  name: string;
  into: string;
  source: string;
  reason: string;
  evidence?: string;
  model_claimed_into?: string;
}

/** A skill the consolidation pass archived without an umbrella. */
export interface PrunedEntry {
  name: string;
  source: string;
  reason: string;
}

/** One recorded tool call: its name and parsed arguments (`{_raw}` when they were not JSON). */
export interface RecordedCall {
  name: string;
  args: Record<string, unknown>;
}

/** The YAML summary block: proposed merges and prunings. */
export interface StructuredSummary {
  consolidations: { from: string; into: string; reason: string }[];
  prunings: { name: string; reason: string }[];
}

/** What classification needs. */
export interface ClassifyInput {
  /** Curated names before and after the pass. */
  before: string[];
  after: string[];
  calls: RecordedCall[];
  /** The model's final message. */
  final: string;
}

/** The classification of a pass. */
export interface Classification {
  removed: string[];
  added: string[];
  consolidated: ConsolidatedEntry[];
  pruned: PrunedEntry[];
}

const EMPTY: StructuredSummary = { consolidations: [], prunings: [] };

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/**
 * Reads the first ```yaml (or ```yml) fence of the final message. A missing block or malformed YAML gives
 * empty lists; bare strings and entries missing their required fields are dropped.
 */
export function parseStructuredSummary(final: string): StructuredSummary {
  const match = /```ya?ml[^\n]*\n([\s\S]*?)```/i.exec(final);
  if (!match) return EMPTY;
  let data: unknown;
  try {
    data = YAML.parse(match[1] ?? "");
  } catch {
    return EMPTY;
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) return EMPTY;
  const root = data as Record<string, unknown>;
  const list = (value: unknown) =>
    (Array.isArray(value)
      ? value.filter((item) => item !== null && typeof item === "object" && !Array.isArray(item))
      : []) as Record<string, unknown>[];
  const consolidations = list(root.consolidations).flatMap((item) => {
    const from = text(item.from);
    const into = text(item.into);
    return from && into ? [{ from, into, reason: text(item.reason) ?? "" }] : [];
  });
  const prunings = list(root.prunings).flatMap((item) => {
    const name = text(item.name);
    return name ? [{ name, reason: text(item.reason) ?? "" }] : [];
  });
  return { consolidations, prunings };
}

/** Normalises `_`/`-` and case so `foo_bar` and `Foo-Bar` compare equal. */
function normal(name: string): string {
  return name.toLowerCase().replace(/_/g, "-");
}

/** True when a path component of `filePath` (a folder name or a file stem) is `name`. */
export function pathMentions(filePath: string, name: string): boolean {
  const target = normal(name);
  return filePath
    .replace(/\\/g, "/")
    .split("/")
    .some((part) => {
      const stem = part.replace(/\.[^.]+$/, "");
      return normal(part) === target || normal(stem) === target;
    });
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Where `name` occurs in `body` as a whole word (`-`/`_` interchangeable), or -1. */
export function wordIndex(body: string, name: string): number {
  const pattern = name.split(/[-_]/).map(escapeRegExp).join("[-_]");
  const match = new RegExp(`(?<![A-Za-z0-9_-])${pattern}(?![A-Za-z0-9_-])`, "i").exec(body);
  return match ? match.index : -1;
}

/** Evidence that a tool call moved `removed` into another skill. */
export interface AuditHit {
  target: string;
  evidence: string;
}

const TEXT_FIELDS = ["file_content", "content", "new_string", "_raw"] as const;

/**
 * The earliest `skill_manage` call on a different destination skill whose `file_path` names the removed
 * skill as a path component, or whose written text mentions it as a whole word.
 */
export function auditToolCalls(
  removed: string,
  calls: RecordedCall[],
  destinations: ReadonlySet<string>,
): AuditHit | undefined {
  for (const call of calls) {
    if (call.name !== "skill_manage") continue;
    const target = text(call.args.name);
    const action = text(call.args.action) ?? "?";
    if (!target || target === removed || !destinations.has(target) || action === "delete") continue;
    const filePath = text(call.args.file_path);
    if (filePath && pathMentions(filePath, removed)) {
      return {
        target,
        evidence: `skill_manage action=${action} on '${target}' referenced '${removed}' in ${filePath.slice(0, 80)}`,
      };
    }
    for (const field of TEXT_FIELDS) {
      const body = call.args[field];
      if (typeof body !== "string") continue;
      const at = wordIndex(body, removed);
      if (at < 0) continue;
      const excerpt = body
        .slice(Math.max(0, at - 30), at + 50)
        .replace(/\s+/g, " ")
        .trim();
      return {
        target,
        evidence: `skill_manage action=${action} on '${target}' referenced '${removed}' in ${excerpt.slice(0, 80)}`,
      };
    }
  }
  return undefined;
}

/** `absorbed_into` values declared on delete calls, by skill (the last declaration wins). */
export function declaredAbsorptions(calls: RecordedCall[]): Map<string, string> {
  const declared = new Map<string, string>();
  for (const call of calls) {
    if (call.name !== "skill_manage" || call.args.action !== "delete") continue;
    const name = text(call.args.name);
    if (!name || !Object.hasOwn(call.args, "absorbed_into") || typeof call.args.absorbed_into !== "string")
      continue;
    declared.set(name, call.args.absorbed_into.trim());
  }
  return declared;
}

/** Classifies every removed skill (reference B7 "Reconcile"; the first rule that applies wins). */
export function classifyPass(input: ClassifyInput): Classification {
  const beforeSet = new Set(input.before);
  const afterSet = new Set(input.after);
  const removed = input.before.filter((name) => !afterSet.has(name));
  const added = input.after.filter((name) => !beforeSet.has(name));
  const destinations = afterSet;
  const declared = declaredAbsorptions(input.calls);
  const summary = parseStructuredSummary(input.final);
  const claimed = new Map(summary.consolidations.map((item) => [item.from, item]));
  const prunedClaims = new Map(summary.prunings.map((item) => [item.name, item]));
  const consolidated: ConsolidatedEntry[] = [];
  const pruned: PrunedEntry[] = [];

  for (const name of removed) {
    const declaredInto = declared.get(name);
    const claim = claimed.get(name);
    const reason = claim?.reason || prunedClaims.get(name)?.reason || "";
    if (declaredInto !== undefined && declaredInto !== "" && destinations.has(declaredInto)) {
      consolidated.push({
        name,
        into: declaredInto,
        source: "absorbed_into (model-declared at delete)",
        reason: reason || `merged into ${declaredInto}`,
      });
      continue;
    }
    if (declaredInto === "") {
      pruned.push({
        name,
        source: 'absorbed_into="" (model-declared prune)',
        reason: reason || "pruned as obsolete",
      });
      continue;
    }
    const hit = auditToolCalls(name, input.calls, destinations);
    if (claim && destinations.has(claim.into)) {
      const agrees = hit?.target === claim.into;
      consolidated.push({
        name,
        into: claim.into,
        source: agrees ? "model+audit" : "model",
        reason: claim.reason || `merged into ${claim.into}`,
        ...(agrees && hit ? { evidence: hit.evidence } : {}),
      });
      continue;
    }
    if (claim && hit) {
      consolidated.push({
        name,
        into: hit.target,
        source: "tool-call audit (model named missing umbrella)",
        reason: claim.reason || `merged into ${hit.target}`,
        evidence: hit.evidence,
        model_claimed_into: claim.into,
      });
      continue;
    }
    if (claim) {
      pruned.push({
        name,
        source: "fallback (model named missing umbrella, no tool-call evidence)",
        reason: claim.reason || `model claimed a merge into missing '${claim.into}'`,
      });
      continue;
    }
    if (hit) {
      consolidated.push({
        name,
        into: hit.target,
        source: "tool-call audit (model omitted from structured block)",
        reason: `merged into ${hit.target}`,
        evidence: hit.evidence,
      });
      continue;
    }
    pruned.push({
      name,
      source: prunedClaims.has(name) ? "model" : "no-evidence fallback",
      reason: reason || "archived without a named umbrella",
    });
  }
  return { removed, added, consolidated, pruned };
}
