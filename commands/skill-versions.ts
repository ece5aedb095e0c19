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
import { lineDiff } from "../src/core/line-diff.js";
import { errorReply, type Reply, type ReplyBlock, reply } from "../src/core/reply.js";
import type { ChatSessions, LoadedSkillVersion } from "../src/core/stores.js";
import type { SkillEntry, SkillLibrary } from "../src/skills/types.js";
import { withButtons } from "./buttons.js";
import { type CommandContext, defineCommand } from "./types.js";

/** Files of a skill folder taken into its digest at most (SKILL.md first). */
const MAX_FILES = 200;
/** SKILL.md characters kept for the diff. */
const KEPT_TEXT = 64_000;

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

/** What made a change told as it happened (a change noticed at the next message has none). */
export type ChangeCause = "curator" | "restore" | "rollback";

/** One told change of a loaded skill. */
export interface SkillChange {
  name: string;
  from: string | null;
  to: string | null;
  cause?: ChangeCause;
}

/**
 * Checks the skills loaded in this chat against their records; a changed one is recorded anew (its old
 * text kept as `previous`) and returned. Cheap when nothing moved: a `stat` per file.
 */
export function detectSkillChanges(ctx: CommandContext): Promise<SkillChange[]> {
  if (!ctx.sessionKey || !ctx.sessions) return Promise.resolve([]);
  return detectSessionChanges(ctx.sessions, ctx.sessionKey, ctx.library);
}

/**
 * `detectSkillChanges` for any session key (the gateway tells chats of a change as it happens); `only`
 * limits the check to these skill names.
 */
export async function detectSessionChanges(
  sessions: ChatSessions,
  key: string,
  library: Pick<SkillLibrary, "find">,
  only?: ReadonlySet<string>,
): Promise<SkillChange[]> {
  if (!sessions.skillVersions || !sessions.setSkillVersions) return [];
  const records = await sessions.skillVersions(key);
  const names = Object.keys(records).filter((name) => !only || only.has(name));
  if (names.length === 0) return [];
  const changes: SkillChange[] = [];
  const updated: Record<string, LoadedSkillVersion> = {};
  for (const name of names) {
    const record = records[name] as LoadedSkillVersion;
    const entry = await library.find(name);
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
  const { name, from, to } = change;
  const moved = from !== null && to !== null && from !== to;
  switch (change.cause) {
    case "curator":
      return moved
        ? t("skill.changedByCuratorVersion", { name, from, to })
        : t("skill.changedByCurator", { name });
    case "restore":
      return moved
        ? t("skill.changedByRestoreVersion", { name, from, to })
        : t("skill.changedByRestore", { name });
    case "rollback":
      return moved
        ? t("skill.changedByRollbackVersion", { name, from, to })
        : t("skill.changedByRollback", { name });
    default:
      return moved ? t("skill.changedVersion", { name, from, to }) : t("skill.changed", { name });
  }
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
