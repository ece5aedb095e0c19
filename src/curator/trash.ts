/**
 * The trash of whole-tree rollbacks and purges. A committed rollback moves the old library into
 * `.curator_backups/.trash/`, where a detached process deletes it; a purge moves a package into a
 * `.purge-trash*` folder before its ledger line. Recovery empties what a dead deleter left, and puts back
 * a purged package whose line was never written.
 */
import { spawn } from "node:child_process";
import { promises as fs, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { homePaths } from "../config/home.js";
import { type Text, t } from "../core/i18n/messages.js";
import { pidAlive } from "../core/temp-files.js";
import { readEntries } from "./ledger.js";
import { PURGE_ORIGIN } from "./purge.js";

/**
 * Where old libraries wait for their background deletion: inside the backups folder, which no library
 * view, snapshot or rollback includes, on the same file system as the library (one rename).
 */
export function rollbackTrashDir(home: string): string {
  return path.join(homePaths(home).backups, ".trash");
}

/**
 * Starts a detached process that deletes `dir` (purge trash) and outlives this one; false when it could
 * not be started. `<dir>.deleter` holds its pid, so recovery leaves the dir to it while it lives
 * (`emptyPurgeTrash`); the deleter removes that file last.
 */
export function deleteInBackground(dir: string): boolean {
  const script =
    "const fs = require('node:fs'); const dir = process.argv[1];" +
    " try { fs.rmSync(dir, { recursive: true, force: true }); fs.rmSync(dir + '.deleter', { force: true }); } catch {}";
  try {
    const child = spawn(process.execPath, ["-e", script, dir], { detached: true, stdio: "ignore" });
    child.on("error", () => undefined);
    child.unref();
    if (child.pid === undefined) return false;
    writeFileSync(`${dir}.deleter`, String(child.pid));
    return true;
  } catch {
    return false;
  }
}

/** True when an old library is waiting in the rollback trash (its deleter may have died). */
export async function hasRollbackTrash(home: string): Promise<boolean> {
  const names = await fs.readdir(rollbackTrashDir(home)).catch(() => [] as string[]);
  return names.some((name) => !name.endsWith(".deleter"));
}

/** True when a purge left its trash dir behind. */
export async function hasPurgeTrash(home: string): Promise<boolean> {
  const names = await fs.readdir(homePaths(home).skills).catch(() => [] as string[]);
  return names.some((name) => name.startsWith(".purge-trash"));
}

/**
 * Deletes leftovers of interrupted purges (their packages were ledgered before being moved there) and
 * old libraries in the rollback trash whose background deleter died (a live deleter's are left to it).
 */
export async function emptyPurgeTrash(home: string): Promise<Text[]> {
  const skills = homePaths(home).skills;
  const names = await fs.readdir(skills).catch(() => [] as string[]);
  const trash = rollbackTrashDir(home);
  const notes: Text[] = [];
  for (const name of await fs.readdir(trash).catch(() => [] as string[])) {
    if (deleterAlive(path.join(trash, name))) continue;
    await fs.rm(path.join(trash, name), { recursive: true, force: true }).catch(() => undefined);
    if (!name.endsWith(".deleter")) notes.push(t("recovery.rollbackTrashDeleted", { name, trash }));
  }
  for (const name of names) {
    if (!name.startsWith(".purge-trash")) continue;
    const restored = await putBackUnledgeredPurge(home, path.join(skills, name));
    if (restored === "kept") continue;
    if (restored !== null) notes.push(t("recovery.purgeUndone", { name: restored }));
    else {
      await fs.rm(path.join(skills, name), { recursive: true, force: true });
      notes.push(t("recovery.purgeTrashRemoved", { name }));
    }
  }
  return notes;
}

/**
 * A purge trash whose package has no `purge` ledger line written after the trash was made (a purge
 * killed between its move and its line): the package goes back where the trash says it came from, so
 * the ledger never names a purge that did not happen. Returns the package's folder (relative to the
 * library) when put back, "kept" when its place is taken (the trash stays for a person to look at), or
 * null when the trash is to be emptied (its line was written, or there is no package or origin).
 */
async function putBackUnledgeredPurge(home: string, trash: string): Promise<string | "kept" | null> {
  const originFile = path.join(trash, PURGE_ORIGIN);
  const [text, stat] = await Promise.all([
    fs.readFile(originFile, "utf8").catch(() => undefined),
    fs.stat(originFile).catch(() => undefined),
  ]);
  const origin = text === undefined ? undefined : parsedOrigin(text);
  const packageDir = path.join(trash, "package");
  const hasPackage = (await fs.stat(packageDir).catch(() => undefined)) !== undefined;
  // An origin that does not parse (a purge killed while writing it, before its move) with no package
  // is emptied; beside a package it is kept for a person to look at, never deleted on a guess.
  if (origin === null) return hasPackage ? "kept" : null;
  if (!stat || typeof origin?.dir !== "string" || !hasPackage) return null;
  const made = stat.mtimeMs;
  const ledgered = (await readEntries(home)).some(
    (entry) =>
      entry.action === "purge" &&
      entry.evidence.archived_as === origin.archived_as &&
      Date.parse(entry.ts) >= made - 1000,
  );
  if (ledgered) return null;
  const skills = homePaths(home).skills;
  const dest = path.resolve(skills, origin.dir);
  if (!dest.startsWith(`${skills}${path.sep}`) || (await fs.lstat(dest).catch(() => undefined)))
    return "kept";
  await fs.mkdir(path.dirname(dest), { recursive: true });
  await fs.rename(packageDir, dest);
  await fs.rm(trash, { recursive: true, force: true });
  return origin.dir;
}

/** A purge trash's origin record, or null when it is not one (cut short, or damaged). */
function parsedOrigin(text: string): { dir?: unknown; archived_as?: unknown } | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" ? value : null;
  } catch {
    return null;
  }
}

/** True when `trash` (or the trash a `.deleter` file belongs to) is being deleted by a live process. */
function deleterAlive(trash: string): boolean {
  const marker = trash.endsWith(".deleter") ? trash : `${trash}.deleter`;
  try {
    const pid = Number(readFileSync(marker, "utf8"));
    return Number.isInteger(pid) && pid > 0 && pidAlive(pid);
  } catch {
    return false;
  }
}
