/**
 * Kill trials on generated libraries: the real CLI (`dist/src/cli/main.js`, built by `npm test`'s pretest) is
 * killed at a crash point or after a delay, the next command runs, and `libraryProblems` lists every
 * invariant the home breaks — a package lost, doubled or changed; an archived package without its ledger
 * entry, origin or state; a ledger entry citing a missing blob; any leftover (journal, temp file, trash,
 * partial snapshot, run lock).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { promises as fs, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { atomicTempWriter } from "../../src/core/temp-files.js";
import { readArchiveOrigins } from "../../src/curator/archive-layout.js";
import { hasBlob } from "../../src/curator/blobs.js";
import { readEntries } from "../../src/curator/ledger.js";
import { SNAPSHOT_ARCHIVE, SNAPSHOT_ID_PATTERN } from "../../src/curator/snapshot-names.js";

const root = path.resolve(import.meta.dirname, "../..");
/** The built CLI the trials run (as a user runs it). */
export const CLI = path.join(root, "dist", "src", "cli", "main.js");

/**
 * A generated home: `n` skills from the maintainers' generator, its activity `agedDays` older than the
 * generator places it (so more of it is due for archiving), gateway listeners off, `config` merged in.
 */
export async function generatedHome(
  n: number,
  seed: number,
  config: Record<string, unknown> = {},
  agedDays = 0,
) {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-trial-"));
  const now = new Date(Date.now() - agedDays * 86_400_000).toISOString();
  const made = spawnSync(
    process.execPath,
    [path.join(root, "bench", "make-library.mjs"), home, String(n), "--seed", String(seed), "--now", now],
    { encoding: "utf8" },
  );
  if (made.status !== 0) throw new Error(`make-library failed: ${made.stderr}`);
  const file = path.join(home, "config.yaml");
  const doc = (YAML.parse(await fs.readFile(file, "utf8")) ?? {}) as Record<string, unknown>;
  // No listeners: trials run side by side with other tests on this machine's ports.
  const merged = merge(doc, {
    gateway: { health: { enabled: false }, console: { enabled: false } },
    ...config,
  });
  await fs.writeFile(file, YAML.stringify(merged));
  return home;
}

function merge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const old = out[key];
    out[key] =
      value && typeof value === "object" && !Array.isArray(value) && old && typeof old === "object"
        ? merge(old as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}

/** A copy of `home` for one trial (the generated one stays pristine), made by `cp -a`. */
export async function copyHome(home: string): Promise<string> {
  const copy = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-trial-"));
  const made = spawnSync("cp", ["-a", `${home}/.`, copy], { encoding: "utf8" });
  if (made.status !== 0) throw new Error(`cp -a failed: ${made.stderr}`);
  return copy;
}

/** How a CLI run ended. */
export interface TrialRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of `runCli`: kill it at a crash point, after a delay, or when `killWhen` says so. */
export interface KillOptions {
  crashStep?: number;
  killAfterMs?: number;
  trace?: boolean;
  /** Text written to stdin (kept open unless `endInput`). */
  input?: string;
  endInput?: boolean;
  /** Polled every few ms while it runs: resolves the signal to send, or undefined to wait on. */
  killWhen?: () => Promise<NodeJS.Signals | undefined>;
  /** The run is ended with SIGKILL after this long (a hung trial fails instead of hanging). */
  timeoutMs?: number;
}

/** Runs `skillgate --home <home> ...args` as its own process. */
export function runCli(home: string, args: string[], options: KillOptions = {}): Promise<TrialRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const key of ["SKILLGATE_CRASH_STEP", "SKILLGATE_CRASH_AT", "SKILLGATE_CRASH_TRACE", "HERMES_HOME"])
    delete env[key];
  for (const key of Object.keys(env)) if (/^(TELEGRAM|FEISHU|DISCORD)_/.test(key)) delete env[key];
  if (options.crashStep !== undefined) env.SKILLGATE_CRASH_STEP = String(options.crashStep);
  if (options.trace) env.SKILLGATE_CRASH_TRACE = "1";
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [CLI, "--home", home, ...args], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdin?.on("error", () => undefined);
    if (options.input !== undefined) child.stdin?.write(options.input);
    if (options.endInput !== false && options.input === undefined) child.stdin?.end();
    else if (options.endInput) child.stdin?.end();
    const timers: NodeJS.Timeout[] = [];
    if (options.killAfterMs !== undefined)
      timers.push(setTimeout(() => child.kill("SIGKILL"), options.killAfterMs));
    timers.push(setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000));
    let polling = options.killWhen !== undefined;
    const poll = async () => {
      while (polling) {
        const signal = await options.killWhen?.().catch(() => undefined);
        if (signal) {
          child.kill(signal);
          return;
        }
        await new Promise((wait) => setTimeout(wait, 3));
      }
    };
    void poll();
    child.on("error", reject);
    child.on("close", (code, signal) => {
      polling = false;
      for (const timer of timers) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** How many crash points a run passes through (from a traced, uninterrupted run on a copy of `home`). */
export async function crashSteps(home: string, args: string[], options: KillOptions = {}): Promise<number> {
  const copy = await copyHome(home);
  try {
    const run = await runCli(copy, args, { ...options, trace: true });
    if (run.code !== 0) throw new Error(`traced run failed (${run.code}): ${run.stderr.slice(-2000)}`);
    return run.stderr.split("\n").filter((line) => line.startsWith("crash-point")).length;
  } finally {
    await fs.rm(copy, { recursive: true, force: true });
  }
}

/** One skill package: where it is (relative to skills/) and a digest of all its files. */
export interface PackageState {
  where: string;
  digest: string;
}

/**
 * Every skill package under `skills/`, live and archived, with a digest of its files (synchronous reads:
 * thousands of small files).
 */
export async function packagesOf(home: string): Promise<PackageState[]> {
  const found: PackageState[] = [];
  const walk = (dir: string, rel: string): void => {
    const children = readdirSync(dir, { withFileTypes: true });
    if (rel !== "" && children.some((child) => child.isFile() && child.name === "SKILL.md")) {
      found.push({ where: rel, digest: packageDigest(dir) });
      return;
    }
    for (const child of children) {
      if (!child.isDirectory()) continue;
      // The archive is part of the library; every other dot folder (backups, hub, locks) is not.
      if (rel === "" && child.name.startsWith(".") && child.name !== ".archive") continue;
      walk(path.join(dir, child.name), rel === "" ? child.name : `${rel}/${child.name}`);
    }
  };
  walk(path.join(home, "skills"), "");
  return found.sort((a, b) => (a.where < b.where ? -1 : 1));
}

function packageDigest(dir: string): string {
  const hash = createHash("sha256");
  const walk = (at: string, rel: string): void => {
    for (const child of readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(at, child.name);
      if (child.isDirectory()) walk(full, `${rel}${child.name}/`);
      else
        hash.update(
          `${rel}${child.name}\0${createHash("sha256").update(readFileSync(full)).digest("hex")}\n`,
        );
    }
  };
  walk(dir, "");
  return hash.digest("hex");
}

/** The leftovers of interrupted work in `home` (none once recovery ran). */
export async function leftovers(home: string): Promise<string[]> {
  const skills = path.join(home, "skills");
  const list = (dir: string) => fs.readdir(dir).catch(() => [] as string[]);
  const found: string[] = [];
  for (const name of await list(skills)) {
    if ([".move-journal.jsonl", ".rollback-journal.json"].includes(name)) found.push(`skills/${name}`);
    if (/^\.(rollback-staging|rollback-side|purge-trash)/.test(name)) found.push(`skills/${name}`);
  }
  for (const dir of [
    home,
    skills,
    path.join(home, "gateway"),
    path.join(home, "cron"),
    path.join(skills, ".locks"),
  ])
    for (const name of await list(dir)) if (atomicTempWriter(name)) found.push(path.join(dir, name));
  for (const name of await list(path.join(home, ".curator_backups", "blobs")))
    if (name.startsWith(".tmp-")) found.push(`blobs/${name}`);
  const backups = path.join(skills, ".curator_backups");
  for (const name of await list(backups)) {
    if (name === ".trash" && (await list(path.join(backups, name))).length > 0) found.push("rollback trash");
    if (SNAPSHOT_ID_PATTERN.test(name) && !(await list(path.join(backups, name))).includes(SNAPSHOT_ARCHIVE))
      found.push(`unfinished snapshot ${name}`);
  }
  if ((await list(path.join(skills, ".locks"))).includes("curator-run")) found.push("curator run lock");
  return found;
}

/**
 * Everything wrong with `home` after a trial, given the packages before it: each package is found once,
 * whole, live where it was or in `.archive/`; each package archived since has its ledger entry (when the
 * ledger is on), its origin and its state; every ledger entry's blobs exist; nothing is left over.
 */
export async function libraryProblems(
  home: string,
  before: readonly PackageState[],
  options: { ledger: boolean } = { ledger: true },
): Promise<string[]> {
  const problems: string[] = [];
  const now = await packagesOf(home);
  const byDigest = new Map<string, PackageState[]>();
  for (const item of now) byDigest.set(item.digest, [...(byDigest.get(item.digest) ?? []), item]);
  const usage = JSON.parse(await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8")) as Record<
    string,
    { state?: string }
  >;
  const origins = await readArchiveOrigins(home);
  const entries = await readEntries(home);
  const archiveEntries = new Map(
    entries
      .filter((entry) => entry.action === "archive")
      .map((entry) => [String(entry.evidence.archived_as), entry] as const),
  );
  const wasArchived = new Set(
    before.filter((item) => item.where.startsWith(".archive/")).map((item) => item.where),
  );
  for (const old of before) {
    const matches = byDigest.get(old.digest) ?? [];
    if (matches.length !== 1) {
      problems.push(
        `${old.where}: found ${matches.length} times (${matches.map((m) => m.where).join(", ")})`,
      );
      continue;
    }
    const at = (matches[0] as PackageState).where;
    if (at === old.where) continue;
    const folder = at.startsWith(".archive/") ? at.slice(".archive/".length) : undefined;
    if (!folder || folder.includes("/") || wasArchived.has(old.where)) {
      problems.push(`${old.where}: moved to ${at}`);
      continue;
    }
    const name = path.posix.basename(old.where);
    if (origins[folder] !== old.where)
      problems.push(`${at}: origin ${origins[folder]} instead of ${old.where}`);
    if (usage[name]?.state !== "archived")
      problems.push(`${at}: state ${usage[name]?.state} instead of archived`);
    if (options.ledger && !archiveEntries.has(folder)) problems.push(`${at}: no ledger entry`);
  }
  if (now.length !== before.length) problems.push(`${now.length} packages instead of ${before.length}`);
  const ids = new Set<string>();
  for (const entry of entries) {
    if (ids.has(entry.id)) problems.push(`ledger: entry ${entry.id} written twice`);
    ids.add(entry.id);
    for (const file of [...entry.before, ...entry.after])
      if ("sha256" in file && !(await hasBlob(home, file.sha256)))
        problems.push(`ledger: entry ${entry.id} (${entry.action} ${entry.skill}) cites a missing blob`);
  }
  for (const left of await leftovers(home)) problems.push(`left over: ${left}`);
  return problems;
}

/** Deterministic pseudo-random numbers (mulberry32), so a failing trial can be replayed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
