/** Locating skillgate's home (shared with Hermes): `--home`, then `HERMES_HOME`, then `~/.hermes`. */
import os from "node:os";
import path from "node:path";

/** Resolves the home directory from a `--home` flag, the environment, or the default. */
export function resolveHome(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? env.HERMES_HOME ?? path.join(os.homedir(), ".hermes");
  return path.resolve(expandUser(chosen));
}

/** Who named the home: `--home`, `HERMES_HOME`, or nobody (the default `~/.hermes`). */
export function homeSource(
  flag?: string,
  env: NodeJS.ProcessEnv = process.env,
): "--home" | "HERMES_HOME" | undefined {
  if (flag !== undefined) return "--home";
  return env.HERMES_HOME !== undefined ? "HERMES_HOME" : undefined;
}

/** Expands a leading `~` to the user's home directory. */
export function expandUser(value: string): string {
  if (value === "~") return os.homedir();
  if (value.startsWith("~/")) return path.join(os.homedir(), value.slice(2));
  return value;
}

/** The paths of the homes asked about, computed once each (a gateway asks several times per message). */
const pathsByHome = new Map<string, HomePaths>();

/** Standard paths under a home (one frozen object per home string). */
export function homePaths(home: string): HomePaths {
  let paths = pathsByHome.get(home);
  if (!paths) {
    paths = Object.freeze(buildHomePaths(home));
    // A process meets a handful of homes (tests: thousands); keep the cache from growing without end.
    if (pathsByHome.size >= 256) pathsByHome.clear();
    pathsByHome.set(home, paths);
  }
  return paths;
}

function buildHomePaths(home: string) {
  const skills = path.join(home, "skills");
  return {
    home,
    config: path.join(home, "config.yaml"),
    env: path.join(home, ".env"),
    skills,
    usage: path.join(skills, ".usage.json"),
    /** Lock file of `.usage.json`, flocked by skillgate and Hermes alike; kept, never removed. */
    usageLock: path.join(skills, ".usage.json.lock"),
    curatorState: path.join(skills, ".curator_state"),
    bundledManifest: path.join(skills, ".bundled_manifest"),
    hubLock: path.join(skills, ".hub", "lock.json"),
    suppressed: path.join(skills, ".curator_suppressed"),
    archive: path.join(skills, ".archive"),
    backups: path.join(skills, ".curator_backups"),
    ledger: path.join(skills, ".curator_ledger.jsonl"),
    blobs: path.join(home, ".curator_backups", "blobs"),
    locks: path.join(skills, ".locks"),
    curatorLogs: path.join(home, "logs", "curator"),
    cronJobs: path.join(home, "cron", "jobs.json"),
    /** Lock file of `cron/jobs.json`, flocked by skillgate processes (Hermes takes none); kept, never removed. */
    cronJobsLock: path.join(home, "cron", ".jobs.lock"),
    gateway: path.join(home, "gateway"),
  };
}

/** The paths `homePaths` returns. */
export type HomePaths = Readonly<ReturnType<typeof buildHomePaths>>;
