/**
 * The leader's lease renewals on a thread of their own. A leader's event loop can stall for seconds on a
 * busy host (a curator pass over a large library, a garbage collection, two cores shared by several
 * processes); renewals made on it would stall too, and the lease would pass to another replica although
 * this one is alive. Here a small worker thread with a Redis connection of its own renews the lease every
 * renewal period and writes when the last renewal that succeeded was *sent* into memory both threads
 * share, on one monotonic clock (`process.hrtime`, the same in every thread of a process). The main
 * thread judges the lease from that time exactly as before: a process that was paused as a whole (its
 * worker too) knows at once that its lease is no longer surely its own.
 *
 * The worker's connection also tells the other replicas that this process is alive: each renewal records
 * which connection made it (the server's run id and the connection's client id), and a standby that
 * finds that connection gone from the same server takes the lease at once instead of waiting for it to
 * lapse (see `lease.ts`). So the moment this connection closes, for whatever reason, the leader counts
 * as not surely leading (`connectionLost`) until a renewal on a new connection succeeds; the worker
 * reconnects and renews at once.
 *
 * The worker renews only while the main thread still beats (a heartbeat it writes every renewal period):
 * a main thread stuck for `STALL_LIMIT_MS` lets the lease lapse, so a hung leader does not hold it for
 * ever. A renewal that finds the lease another's, or the home's generation changed, is reported to the
 * main thread, which steps down.
 *
 * The worker speaks RESP over `node:net`/`node:tls` itself (AUTH, SELECT, EVAL): it loads no client
 * library (`node:tls` only for a `rediss://` URL), so it costs little beyond the ~10 MB any Node worker
 * thread does, and every call has the same deadline as the main client's.
 */
import type { Worker } from "node:worker_threads";
import type { Logger } from "../../core/logger.js";
import { startWorker } from "../../core/workers.js";
import { REDIS_COMMAND_TIMEOUT_MS } from "./redis.js";

/** How long the main thread may go without a heartbeat before the worker stops renewing (ms). */
export const STALL_LIMIT_MS = 15_000;

/** This process's monotonic clock in ms, the same in every thread (what the lease and the worker use). */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1_000n) / 1_000;
}

/** Slots of the shared memory (BigInt64, nanoseconds of `process.hrtime`). */
const RENEWED_AT = 0;
const ANSWERED_AT = 1;
const MAIN_BEAT = 2;
/** 1 while the worker should renew (the main thread leads), else 0. */
const ACTIVE = 3;
/** 1 from the moment the renewal connection closed until a renewal on a new one succeeded, else 0. */
const CONNECTION_LOST = 4;

/** What the worker reports: a renewal found the lease lost (0) or the generation changed (-1). */
interface Verdict {
  verdict: 0 | -1;
  token: string;
}

/** The lease renewal the worker is asked to repeat. */
export interface PumpedLease {
  token: string;
  generation: string;
  /** The lease's keys: leader, leader-epoch, generation, leader-conn. */
  keys: [string, string, string, string];
  ttlMs: number;
}

/** The worker's source: plain JavaScript with Node's built-ins only, so it runs from `src` and `dist` alike. */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const net = require("node:net");
const shared = new BigInt64Array(workerData.buffer);
const { url, script, renewMs, stallLimitMs, deadlineMs } = workerData;
const now = () => process.hrtime.bigint();
let lease = null;
let socket = null;
// "<run id>:<client id>" of the open connection ("" when the server would not say).
let identity = "";
let buffered = Buffer.alloc(0);
let waiting = [];
let renewing = false;
let timer = null;

parentPort.on("message", (message) => {
  lease = message.lease;
  // A new lead: renew at once, so the other replicas learn which connection to watch.
  if (lease && !renewing) soon(0);
});

function encode(args) {
  let out = "*" + args.length + "\r\n";
  for (const arg of args) out += "$" + Buffer.byteLength(String(arg)) + "\r\n" + arg + "\r\n";
  return out;
}

// One RESP2 value at offset, or undefined when the buffer does not hold all of it yet.
function parse(buf, offset) {
  const end = buf.indexOf("\r\n", offset);
  if (end < 0) return undefined;
  const type = String.fromCharCode(buf[offset]);
  const line = buf.toString("utf8", offset + 1, end);
  const next = end + 2;
  if (type === "+") return { value: line, next };
  if (type === "-") return { value: new Error(line), next };
  if (type === ":") return { value: Number(line), next };
  if (type === "$") {
    const length = Number(line);
    if (length < 0) return { value: null, next };
    if (buf.length < next + length + 2) return undefined;
    return { value: buf.toString("utf8", next, next + length), next: next + length + 2 };
  }
  if (type === "*") {
    const count = Number(line);
    const items = [];
    let at = next;
    for (let index = 0; index < count; index++) {
      const item = parse(buf, at);
      if (!item) return undefined;
      items.push(item.value);
      at = item.next;
    }
    return { value: items, next: at };
  }
  return { value: new Error("unexpected reply from Redis"), next: buf.length };
}

// The connection is gone (closed by Redis, the network or a deadline): the lease is not surely this
// process's until a renewal on a new connection succeeds, and a leader reconnects at once.
function drop(error) {
  if (!socket) return;
  Atomics.store(shared, 4, 1n);
  socket.destroy();
  socket = null;
  identity = "";
  buffered = Buffer.alloc(0);
  for (const pending of waiting.splice(0)) pending.reject(error);
  if (!renewing && Atomics.load(shared, 3) === 1n) soon(0);
}

function send(args) {
  return new Promise((resolve, reject) => {
    waiting.push({ resolve, reject });
    socket.write(encode(args));
  });
}

async function connect() {
  const target = new URL(url);
  const port = Number(target.port || 6379);
  const host = target.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1";
  const secure = target.protocol === "rediss:";
  socket = secure
    ? require("node:tls").connect({ host, port, ...(net.isIP(host) ? {} : { servername: host }) })
    : net.connect({ host, port });
  socket.setNoDelay(true);
  socket.on("data", (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const item = buffered.length > 0 ? parse(buffered, 0) : undefined;
      if (!item) break;
      buffered = buffered.subarray(item.next);
      const pending = waiting.shift();
      if (!pending) continue;
      if (item.value instanceof Error) pending.reject(item.value);
      else pending.resolve(item.value);
    }
  });
  // A socket dropped before may still report its end: only the open one's counts.
  const own = socket;
  own.on("error", (error) => {
    if (socket === own) drop(error);
  });
  own.on("close", () => {
    if (socket === own) drop(new Error("the connection closed"));
  });
  await new Promise((resolve, reject) => {
    socket.once(secure ? "secureConnect" : "connect", resolve);
    socket.once("error", reject);
  });
  const password = decodeURIComponent(target.password);
  const user = decodeURIComponent(target.username);
  if (password) await send(user ? ["AUTH", user, password] : ["AUTH", password]);
  const db = Number(target.pathname.replace(/^\//, "") || 0);
  if (db > 0) await send(["SELECT", db]);
  identity = await connectionIdentity();
}

// This connection as the other replicas can look it up: the server's run id and the client id.
async function connectionIdentity() {
  try {
    const id = await send(["CLIENT", "ID"]);
    const runId = /^run_id:(\S+)/m.exec(String(await send(["INFO", "server"])))?.[1];
    return runId ? runId + ":" + id : "";
  } catch {
    // An ACL user without CLIENT ID or INFO: the lease then passes on only when it lapses.
    return "";
  }
}

function withinDeadline(promise) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error("no answer within " + deadlineMs + " ms")), deadlineMs);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

async function renew() {
  const current = lease;
  if (!current || Atomics.load(shared, 3) !== 1n) return;
  if (Number(now() - Atomics.load(shared, 2)) / 1e6 > stallLimitMs) return;
  const started = now();
  try {
    if (!socket) await withinDeadline(connect());
    const held = Number(
      await withinDeadline(
        send(["EVAL", script, 4, ...current.keys, current.token, current.ttlMs, current.generation, identity]),
      ),
    );
    Atomics.store(shared, 1, now());
    if (lease !== current || Atomics.load(shared, 3) !== 1n) return;
    if (held === 1) {
      Atomics.store(shared, 0, started);
      if (socket) Atomics.store(shared, 4, 0n);
    } else parentPort.postMessage({ verdict: held === -1 ? -1 : 0, token: current.token });
  } catch (error) {
    drop(error);
  }
}

function soon(ms) {
  clearTimeout(timer);
  timer = setTimeout(loop, ms);
}

function loop() {
  const started = Date.now();
  renewing = true;
  renew().finally(() => {
    renewing = false;
    soon(Math.max(0, renewMs - (Date.now() - started)));
  });
}
loop();
`;

/** The renewal worker of one replica's lease (see the file's comment). */
export class RenewalPump {
  private readonly shared = new BigInt64Array(new SharedArrayBuffer(5 * 8));
  private readonly worker: Worker;
  private readonly beat: NodeJS.Timeout;
  private token: string | undefined;
  /**
   * Settles once the worker runs, or once it failed or ended without running. Work that allocates much
   * waits for it: until the worker's heap exists, V8 lets this thread's young generation grow again
   * (see `reapplyYoungGrowth`).
   */
  readonly started: Promise<void>;

  /**
   * Starts the worker for the Redis at `url`; `script` is the renewal script (KEYS: leader,
   * leader-epoch, generation, leader-conn; ARGV: token, TTL, generation, the connection's identity;
   * 1 renewed, 0 another holds it, -1 wiped).
   * `onLost` hears a renewal that found the lease lost.
   */
  constructor(
    url: string,
    script: string,
    renewMs: number,
    stallLimitMs: number,
    private readonly onLost: (verdict: 0 | -1) => void,
    logger: Logger,
  ) {
    this.beatNow();
    this.worker = startWorker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        buffer: this.shared.buffer,
        url,
        script,
        renewMs,
        stallLimitMs,
        deadlineMs: REDIS_COMMAND_TIMEOUT_MS,
      },
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
      // Plain JavaScript: none of this process's loaders (a test's TypeScript hooks) are needed.
      execArgv: [],
      stdout: false,
      stderr: false,
    });
    this.worker.unref();
    this.started = new Promise((resolve) => {
      this.worker.once("online", resolve);
      this.worker.once("error", () => resolve());
      this.worker.once("exit", () => resolve());
    });
    this.worker.on("message", (message: Verdict) => {
      if (message.token === this.token) this.onLost(message.verdict);
    });
    this.worker.on("error", (error) => {
      // Its connection closed with it: the lease is no longer surely this process's.
      Atomics.store(this.shared, CONNECTION_LOST, 1n);
      logger.error({ err: error }, "coordination: the lease renewal thread failed");
    });
    this.beat = setInterval(() => this.beatNow(), renewMs);
    this.beat.unref();
  }

  private beatNow(): void {
    Atomics.store(this.shared, MAIN_BEAT, process.hrtime.bigint());
  }

  /** Starts renewing `lease`, last renewed (sent) at `renewedAt` on `monotonicMs`'s clock. */
  begin(lease: PumpedLease, renewedAt: number): void {
    this.token = lease.token;
    Atomics.store(this.shared, RENEWED_AT, BigInt(Math.floor(renewedAt * 1e6)));
    // Taken on the main connection, which no one watches (acquiring clears the watched one).
    Atomics.store(this.shared, CONNECTION_LOST, 0n);
    Atomics.store(this.shared, ACTIVE, 1n);
    this.worker.postMessage({ lease });
  }

  /** Stops renewing (this replica stepped down); the next `begin` starts again. */
  end(): void {
    this.token = undefined;
    Atomics.store(this.shared, ACTIVE, 0n);
    this.worker.postMessage({ lease: null });
  }

  /**
   * True from the moment the renewal connection closed until a renewal on a new one succeeded: the
   * other replicas may take the lease meanwhile (see the file's comment).
   */
  get connectionLost(): boolean {
    return Atomics.load(this.shared, CONNECTION_LOST) === 1n;
  }

  /** When the last renewal that succeeded was sent (`monotonicMs`'s clock). */
  get renewedAt(): number {
    return Number(Atomics.load(this.shared, RENEWED_AT)) / 1e6;
  }

  /** When a renewal last got an answer (`monotonicMs`'s clock; -Infinity before the first). */
  get answeredAt(): number {
    const at = Atomics.load(this.shared, ANSWERED_AT);
    return at === 0n ? Number.NEGATIVE_INFINITY : Number(at) / 1e6;
  }

  /** Stops the worker. */
  async close(): Promise<void> {
    clearInterval(this.beat);
    this.end();
    await this.worker.terminate();
  }
}
