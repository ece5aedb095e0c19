/**
 * Versions a chat notices. When a chat loads a skill, its session records the skill's `version`, a digest
 * of SKILL.md and its linked files, their stamps and the SKILL.md text. On the chat's next message (and so
 * before the agent's next model call) the stamps are checked — a `stat` per file, no reading unless one
 * moved — and a skill whose digest changed is announced in one line (name, old → new version, or
 * "changed"), with a "What changed" button showing the SKILL.md line diff. Whatever changed it — an edit
 * on disk, the curator's consolidation, a restore or a rollback — is noticed the same way, and the agent
 * reads the skill's current text, since it views loaded skills afresh on every message.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { invocation, runAction } from "../src/core/actions.js";
import { type Text, t } from "../src/core/i18n/messages.js";
import { errorReply, type Reply, type ReplyBlock, reply } from "../src/core/reply.js";
import type { LoadedSkillVersion } from "../src/core/stores.js";
import type { SkillEntry } from "../src/skills/types.js";
import { withButtons } from "./buttons.js";
import { type CommandContext, defineCommand } from "./types.js";

/** Files of a skill folder taken into its digest at most (SKILL.md first). */
const MAX_FILES = 200;
/** SKILL.md characters kept for the diff. */
const KEPT_TEXT = 64_000;
/** Lines of a diff shown at most. */
const MAX_DIFF_LINES = 120;
/** Unchanged lines kept around each change. */
const CONTEXT_LINES = 2;

/** SKILL.md then every other file under the skill's folder (no dot folders), relative paths sorted. */
function skillFiles(entry: SkillEntry): string[] {
  const found: string[] = [];
  const walk = (dir: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (found.length >= MAX_FILES || name.startsWith(".")) continue;
      const full = path.join(dir, name);
      const relative = rel ? `${rel}/${name}` : name;
      let isDir = false;
      try {
        isDir = statSync(full).isDirectory();
      } catch {
        continue;
      }
      if (isDir) walk(full, relative);
      else if (relative !== "SKILL.md") found.push(relative);
    }
  };
  if (path.basename(entry.skillFile) === "SKILL.md") walk(entry.dir, "");
  return ["SKILL.md", ...found];
}

function fileOf(entry: SkillEntry, relative: string): string {
  return relative === "SKILL.md" ? entry.skillFile : path.join(entry.dir, ...relative.split("/"));
}

/** Path, mtime and size of each file of the skill (cheap: one `stat` each). */
function stampOf(entry: SkillEntry, files: string[]): string {
  return files
    .map((relative) => {
      try {
        const stat = statSync(fileOf(entry, relative));
        return `${relative}:${stat.mtimeMs}:${stat.size}`;
      } catch {
        return `${relative}:-`;
      }
    })
    .join("\n");
}

function versionField(entry: SkillEntry): string | null {
  const version = entry.frontmatter.version;
  return typeof version === "string" || typeof version === "number" ? String(version) : null;
}

/** The version record of a skill as it is on disk now. */
export function captureVersion(entry: SkillEntry): LoadedSkillVersion {
  const files = skillFiles(entry);
  const stamp = stampOf(entry, files);
  const hash = createHash("sha256");
  let text = "";
  for (const relative of files) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(fileOf(entry, relative));
    } catch {
      bytes = Buffer.alloc(0);
    }
    if (relative === "SKILL.md") text = bytes.toString("utf8");
    hash.update(`${relative}\0${bytes.length}\0`).update(bytes);
  }
  return {
    version: versionOf(text) ?? versionField(entry),
    digest: hash.digest("hex"),
    stamp,
    text: text.slice(0, KEPT_TEXT),
  };
}

/** The `version:` line of a SKILL.md's frontmatter (read from the text itself, which may be newer). */
function versionOf(text: string): string | null {
  const front = /^---\n([\s\S]*?)\n---/.exec(text.replace(/\r\n/g, "\n"));
  const line = front?.[1] ? /^version:\s*["']?([^"'\n#]+?)["']?\s*(?:#.*)?$/m.exec(front[1]) : null;
  return line?.[1]?.trim() || null;
}

/** Records the version of each skill a chat just loaded. */
export async function recordLoadedVersions(ctx: CommandContext, entries: SkillEntry[]): Promise<void> {
  if (!ctx.sessionKey || !ctx.sessions?.setSkillVersions) return;
  const records: Record<string, LoadedSkillVersion> = {};
  for (const entry of entries) records[entry.name] = captureVersion(entry);
  await ctx.sessions.setSkillVersions(ctx.sessionKey, records);
}

/** One told change of a loaded skill. */
export interface SkillChange {
  name: string;
  from: string | null;
  to: string | null;
}

/**
 * Checks the skills loaded in this chat against their records; a changed one is recorded anew (its old
 * text kept as `previous`) and returned. Cheap when nothing moved: a `stat` per file.
 */
export async function detectSkillChanges(ctx: CommandContext): Promise<SkillChange[]> {
  const sessions = ctx.sessions;
  const key = ctx.sessionKey;
  if (!key || !sessions?.skillVersions || !sessions.setSkillVersions) return [];
  const records = await sessions.skillVersions(key);
  const names = Object.keys(records);
  if (names.length === 0) return [];
  const changes: SkillChange[] = [];
  const updated: Record<string, LoadedSkillVersion> = {};
  for (const name of names) {
    const record = records[name] as LoadedSkillVersion;
    const entry = await ctx.library.find(name);
    if (!entry) continue;
    if (stampOf(entry, skillFiles(entry)) === record.stamp) continue;
    const now = captureVersion(entry);
    if (now.digest === record.digest) {
      // Touched, not changed: remember the new stamps so the next check is cheap again.
      updated[name] = { ...record, stamp: now.stamp };
      continue;
    }
    updated[name] = { ...now, previous: { version: record.version, text: record.text } };
    changes.push({ name, from: record.version, to: now.version });
  }
  if (Object.keys(updated).length > 0) await sessions.setSkillVersions(key, updated);
  return changes;
}

/** The one-line notice of a change. */
export function changeLine(change: SkillChange): Text {
  return change.from !== null && change.to !== null && change.from !== change.to
    ? t("skill.changedVersion", { name: change.name, from: change.from, to: change.to })
    : t("skill.changed", { name: change.name });
}

/** Puts the notices of changed loaded skills (with their "What changed" buttons) before `answer`. */
export function withChangeNotices(answer: Reply, changes: SkillChange[]): Reply {
  if (changes.length === 0) return answer;
  const blocks: ReplyBlock[] = changes.map((change) => ({ kind: "paragraph", text: changeLine(change) }));
  const buttons = changes.slice(0, 4).map((change) =>
    runAction(
      t("button.whatChanged", { name: change.name }),
      invocation(["skills", "changes"], [change.name]),
      {
        placement: "reply",
      },
    ),
  );
  const noticed = { ...answer, blocks: [...blocks, ...answer.blocks] };
  return withButtons(noticed, [buttons]);
}

/** A line diff of two texts (longest common subsequence), unchanged runs shortened to their edges. */
export function lineDiff(before: string, after: string): string[] {
  const a = before.replace(/\r\n/g, "\n").split("\n");
  const b = after.replace(/\r\n/g, "\n").split("\n");
  // Common head and tail first: most edits touch a few lines.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const lengths: Uint32Array[] = [];
  for (let i = 0; i <= midA.length; i++) lengths.push(new Uint32Array(midB.length + 1));
  for (let i = midA.length - 1; i >= 0; i--)
    for (let j = midB.length - 1; j >= 0; j--)
      (lengths[i] as Uint32Array)[j] =
        midA[i] === midB[j]
          ? ((lengths[i + 1] as Uint32Array)[j + 1] as number) + 1
          : Math.max(
              (lengths[i + 1] as Uint32Array)[j] as number,
              (lengths[i] as Uint32Array)[j + 1] as number,
            );
  const lines: [mark: " " | "-" | "+", text: string][] = a.slice(0, head).map((line) => [" ", line]);
  let i = 0;
  let j = 0;
  while (i < midA.length || j < midB.length) {
    if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
      lines.push([" ", midA[i] as string]);
      i++;
      j++;
    } else if (
      j < midB.length &&
      (i >= midA.length ||
        ((lengths[i] as Uint32Array)[j + 1] as number) >= ((lengths[i + 1] as Uint32Array)[j] as number))
    ) {
      lines.push(["+", midB[j] as string]);
      j++;
    } else {
      lines.push(["-", midA[i] as string]);
      i++;
    }
  }
  for (const line of a.slice(a.length - tail)) lines.push([" ", line]);
  const near = lines.map((_, index) =>
    lines.slice(Math.max(0, index - CONTEXT_LINES), index + CONTEXT_LINES + 1).some(([mark]) => mark !== " "),
  );
  const shown: string[] = [];
  lines.forEach(([mark, text], index) => {
    if (near[index]) shown.push(`${mark} ${text}`);
    else if (shown[shown.length - 1] !== "…") shown.push("…");
  });
  return shown.length > MAX_DIFF_LINES ? [...shown.slice(0, MAX_DIFF_LINES), "…"] : shown;
}

async function showChanges(ctx: CommandContext, name: string): Promise<Reply> {
  const records = ctx.sessionKey ? await ctx.sessions?.skillVersions?.(ctx.sessionKey) : undefined;
  const record = records?.[name];
  if (!record?.previous)
    return errorReply(t("skill.noChangeRecorded", { name, command: ctx.commandPrefix(["skill"]) }), 1);
  const diff = lineDiff(record.previous.text, record.text);
  const change = { name, from: record.previous.version, to: record.version };
  return reply(
    [
      { kind: "paragraph", text: changeLine(change) },
      { kind: "code", text: diff.join("\n"), lang: "diff" },
    ],
    { json: { success: true, name, from: change.from, to: change.to, diff } },
  );
}

/** `skills changes <name>`: the SKILL.md diff of the last change told in this chat (the button's command). */
export const skillChangesCommand = defineCommand({
  path: ["skills", "changes"],
  summary: t("cmd.summary.skillsChanges"),
  args: [{ name: "name", description: t("cmd.arg.skillName"), required: true }],
  mutating: false,
  hidden: true,
  run: (ctx, input) => showChanges(ctx, input.args[0] ?? ""),
});
