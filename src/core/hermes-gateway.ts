/**
 * Whether Hermes' own gateway is running and which bots it holds, read from the records Hermes' gateway
 * keeps (its `gateway/status.py`); skillgate reads them and never writes or removes them:
 *
 * - `<home>/gateway.pid`: `{"pid", "kind": "hermes-gateway", "argv", "start_time", "hermes_home"}` (an
 *   older gateway wrote the bare pid);
 * - `<home>/gateway.lock`: the same record, `flock(2)`-held by the running gateway for its whole life;
 * - `<home>/gateway_state.json`: the runtime status, with `gateway_state` and one entry per platform;
 * - `<lock dir>/<scope>-<first 16 hex of sha256(identity)>.lock`: a machine-wide claim on one credential
 *   (a Telegram or Discord bot token, a Feishu app id) by whichever home's gateway uses it; the lock dir is
 *   `$HERMES_GATEWAY_LOCK_DIR`, else `$XDG_STATE_HOME/hermes/gateway-locks` (`~/.local/state/…`).
 *
 * A record counts as a running process by Hermes' own rules: its pid exists and is not a zombie, and when the record and `/proc/<pid>/stat` (field 22, start time in clock ticks since boot) both
 * give a start time they agree, so a pid reused by another process does not count. Where Hermes would
 * also ask whether the process's command line looks like its gateway, skillgate does not: a record that
 * passes the checks above is enough to leave the bot alone (the owner can still give skillgate a bot of
 * its own, or stop Hermes' gateway).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isLockHeld } from "./flock.js";

/** A Hermes gateway record: the pid and the start time it was written with (when it has one). */
export interface HermesRecord {
  pid: number;
  startTime?: number;
}

/** A running Hermes gateway that holds a bot skillgate would use. */
export interface HermesHold {
  /** What shows it: the credential's machine-wide lock, or the shared home's gateway. */
  via: "token-lock" | "home-gateway";
  /** The gateway's pid, when a record names one. */
  pid?: number;
}

/** The directory of Hermes' token-scoped gateway locks. */
export function hermesLockDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HERMES_GATEWAY_LOCK_DIR) return env.HERMES_GATEWAY_LOCK_DIR;
  const stateHome = env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state");
  return path.join(stateHome, "hermes", "gateway-locks");
}

/** The lock file Hermes' gateway creates for one credential (`scope`, e.g. `telegram-bot-token`). */
export function hermesTokenLockFile(scope: string, identity: string, env?: NodeJS.ProcessEnv): string {
  const hash = createHash("sha256").update(identity, "utf8").digest("hex").slice(0, 16);
  return path.join(hermesLockDir(env), `${scope}-${hash}.lock`);
}

/** `/proc/<pid>/stat`'s fields after the command name (the first is the state), or undefined. */
function procStat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** A process's start time in clock ticks since boot (`/proc/<pid>/stat` field 22), or undefined. */
export function processStartTime(pid: number): number | undefined {
  const value = Number(procStat(pid)?.[19]);
  return Number.isInteger(value) ? value : undefined;
}

/** True when the pid names a running process: it exists and is not a zombie (an exited, unreaped one). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const state = procStat(pid)?.[0];
  return state !== "Z" && state !== "X";
}

/** True when the record's process is running: alive, and the same process its start time names. */
export function recordIsLive(record: HermesRecord | undefined): boolean {
  if (!record || !processRuns(record.pid)) return false;
  if (record.startTime === undefined) return true;
  const now = processStartTime(record.pid);
  return now === undefined || now === record.startTime;
}

/** Reads a Hermes record: a JSON object with a positive integer `pid`, or a bare pid; else undefined. */
export function readHermesRecord(
  file: string,
): (HermesRecord & { raw: Record<string, unknown> }) | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8")
      .replace(/^\uFEFF/, "")
      .trim();
  } catch {
    return undefined;
  }
  if (/^\d+$/.test(text)) return { pid: Number(text), raw: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined;
  const fields = raw as Record<string, unknown>;
  const pid = Number(fields.pid);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const start = fields.start_time;
  return {
    pid,
    startTime: typeof start === "number" && Number.isInteger(start) ? start : undefined,
    raw: fields,
  };
}

/** Gateway states of `gateway_state.json` that mean the gateway is not running. */
const STOPPED_STATES = new Set(["stopped", "startup_failed"]);
/** Platform states of `gateway_state.json` that mean the gateway does not hold that platform's bot. */
const PLATFORM_RELEASED = new Set(["fatal", "stopped", "disabled", "disconnected"]);

/** The running Hermes gateway of `home`: its pid and what its runtime status says of each platform. */
export interface HomeGateway {
  pid?: number;
  /** `gateway_state.json`'s platform entries (name → state), when it has any. */
  platforms?: Record<string, string>;
}

/**
 * The Hermes gateway running on `home`, or undefined: `gateway.lock` held by a process, a live
 * `gateway.pid` record, or a live `gateway_state.json` whose state is not stopped.
 */
export function homeGateway(home: string): HomeGateway | undefined {
  const pidRecord = readHermesRecord(path.join(home, "gateway.pid"));
  const lockRecord = readHermesRecord(path.join(home, "gateway.lock"));
  const state = readHermesRecord(path.join(home, "gateway_state.json"));
  const stateRunning =
    state !== undefined &&
    typeof state.raw.gateway_state === "string" &&
    !STOPPED_STATES.has(state.raw.gateway_state) &&
    recordIsLive(state);
  const live = [pidRecord, lockRecord].find(recordIsLive) ?? (stateRunning ? state : undefined);
  // A held kernel lock is proof enough: its holder may run in another pid namespace (a container).
  if (!live && !isLockHeld(path.join(home, "gateway.lock"))) return undefined;
  return { pid: live?.pid, platforms: stateRunning ? platformStates(state.raw.platforms) : undefined };
}

function platformStates(value: unknown): Record<string, string> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const states: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    const state = (entry as { state?: unknown } | null)?.state;
    if (!name.includes(":")) states[name] = typeof state === "string" ? state : "unknown";
  }
  return Object.keys(states).length > 0 ? states : undefined;
}

/** One platform's credential as skillgate would use it. */
export interface BotCredential {
  platform: string;
  /** Hermes' lock scope for it (`telegram-bot-token`, `discord-bot-token`, `feishu-app-id`). */
  scope: string;
  /** The lock identity: the token, or Feishu's app id. */
  identity: string;
  /** True when the value comes from Hermes' own variable name (the shared `.env`'s bot), false for skillgate's own name. */
  hermesName: boolean;
}

/**
 * Whether a running Hermes gateway holds this bot: a live token-scoped lock for the credential, or — for
 * a credential under Hermes' own variable name — the shared home's running gateway, unless its runtime
 * status shows it runs other platforms and not this one (or gave this one up).
 */
export function hermesHold(
  credential: BotCredential,
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  gateway: HomeGateway | undefined = homeGateway(home),
): HermesHold | undefined {
  const lock = readHermesRecord(hermesTokenLockFile(credential.scope, credential.identity, env));
  if (recordIsLive(lock)) return { via: "token-lock", pid: lock?.pid };
  if (!credential.hermesName || !gateway) return undefined;
  const state = gateway.platforms?.[credential.platform];
  if (gateway.platforms && (state === undefined || PLATFORM_RELEASED.has(state))) return undefined;
  return { via: "home-gateway", pid: gateway.pid };
}
