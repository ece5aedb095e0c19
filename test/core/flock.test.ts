/**
 * The kernel lock every skillgate writer uses (`flock(2)`): it excludes holders in other processes
 * whatever they are written in (`flock(1)` from util-linux, Python's `fcntl.flock`, a skillgate in
 * another pid namespace), is free as soon as its holder dies, and never deletes a lock file someone holds.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireLock, claimTempName, LockBusyError, withLock } from "../../src/core/flock.js";
import { atomicTempWriter, HOST_TAG } from "../../src/core/temp-files.js";
import { acquireRunLock, runLockFile } from "../../src/curator/lock.js";
import { recoverHome } from "../../src/curator/recovery.js";
import { configWith, makeHome, removeHome } from "../safety/helpers.js";
import { mostInsideAtOnce } from "../support/until.js";

let dir: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "sg-flock-"));
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

/** Starts `command` and resolves once it printed `held` (it holds the lock from then on). */
function startHolder(command: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      if (out.includes("held")) resolve(child);
    });
    child.stderr?.on("data", (chunk) => {
      err += chunk;
    });
    child.on("exit", (code) => reject(new Error(`holder exited ${code} before holding: ${err}`)));
  });
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => child.once("exit", () => resolve()));

describe("flock locks", () => {
  it("excludes a second holder in this process and frees the lock on release; the file stays", async () => {
    const file = path.join(dir, "lock");
    const held = await acquireLock(file);
    expect((await readFile(file, "utf8")).startsWith(`${process.pid} ${os.hostname()} `)).toBe(true);
    const busy = await acquireLock(file, { waitMs: 0 }).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(LockBusyError);
    expect((busy as LockBusyError).holderPid).toBe(process.pid);
    await held.release();
    expect(await readFile(file, "utf8")).toBe("");
    const again = await acquireLock(file, { waitMs: 0 });
    await again.release();
  });

  it("is excluded by a flock(1) holder and waits for it", async () => {
    const file = path.join(dir, ".usage.json.lock");
    const holder = await startHolder("flock", [file, "-c", "echo held; sleep 1"]);
    await expect(acquireLock(file, { waitMs: 100 })).rejects.toBeInstanceOf(LockBusyError);
    const before = Date.now();
    const lock = await acquireLock(file, { waitMs: 10_000, recordHolder: false });
    expect(Date.now() - before).toBeGreaterThan(200);
    if (holder.exitCode === null) await exited(holder);
    expect(holder.exitCode).toBe(0);
    await lock.release();
  });

  it("is excluded by a Python fcntl.flock holder, and excludes Python in turn", async () => {
    const file = path.join(dir, "py.lock");
    const holder = await startHolder("python3", [
      "-c",
      `import fcntl,sys,time\nf=open(${JSON.stringify(file)},"a+")\nfcntl.flock(f,fcntl.LOCK_EX)\nprint("held",flush=True)\ntime.sleep(60)`,
    ]);
    await expect(acquireLock(file, { waitMs: 200 })).rejects.toBeInstanceOf(LockBusyError);
    holder.kill("SIGKILL");
    await exited(holder);
    // The kernel released the dead holder's lock: no pid check, no waiting for staleness.
    const lock = await acquireLock(file, { waitMs: 2_000 });
    const probe = spawn("python3", [
      "-c",
      `import fcntl\nf=open(${JSON.stringify(file)},"a+")\ntry:\n  fcntl.flock(f,fcntl.LOCK_EX|fcntl.LOCK_NB); print("free")\nexcept OSError: print("busy")`,
    ]);
    let out = "";
    probe.stdout.on("data", (chunk) => {
      out += chunk;
    });
    await exited(probe);
    expect(out.trim()).toBe("busy");
    await lock.release();
  });

  it("excludes Python's fcntl.flock both ways while both increment one counter: no update is lost", async () => {
    const lock = path.join(dir, "counter.lock");
    const counter = path.join(dir, "counter");
    await writeFile(counter, "0");
    const rounds = 150;
    // Each side reads, waits a moment and writes back +1 under the lock: without mutual exclusion
    // the two interleave and increments are lost.
    const python = spawn("python3", [
      "-c",
      [
        "import fcntl,time",
        `for _ in range(${rounds}):`,
        `  f=open(${JSON.stringify(lock)},"a+")`,
        "  fcntl.flock(f,fcntl.LOCK_EX)",
        `  n=int(open(${JSON.stringify(counter)}).read())`,
        "  time.sleep(0.0005)",
        `  open(${JSON.stringify(counter)},"w").write(str(n+1))`,
        "  fcntl.flock(f,fcntl.LOCK_UN)",
        "  f.close()",
      ].join("\n"),
    ]);
    children.push(python);
    let pythonError = "";
    python.stderr.on("data", (chunk) => {
      pythonError += chunk;
    });
    const pythonDone = exited(python);
    for (let round = 0; round < rounds; round++) {
      await withLock(
        lock,
        async () => {
          const value = Number(await readFile(counter, "utf8"));
          await new Promise((resolve) => setTimeout(resolve, 1));
          await writeFile(counter, String(value + 1));
        },
        { waitMs: 20_000, recordHolder: false },
      );
    }
    await pythonDone;
    expect(pythonError).toBe("");
    expect(python.exitCode).toBe(0);
    expect(Number(await readFile(counter, "utf8"))).toBe(2 * rounds);
  }, 60_000);

  it("respects a skillgate holder in another pid namespace", async () => {
    const file = path.join(dir, "ns.lock");
    const script = path.join(dir, "holder.mjs");
    const module = path.join(import.meta.dirname, "..", "..", "dist", "src", "core", "flock.js");
    await writeFile(
      script,
      `import { acquireLock } from ${JSON.stringify(module)};\nawait acquireLock(${JSON.stringify(file)});\nconsole.log("held", process.pid);\nsetTimeout(() => {}, 60000);\n`,
    );
    // unshare gives the holder its own pid namespace: the pid it records means nothing out here.
    const holder = await startHolder("unshare", [
      "--pid",
      "--fork",
      "--kill-child",
      process.execPath,
      script,
    ]);
    const recorded = Number((await readFile(file, "utf8")).split(" ")[0]);
    expect(recorded).toBe(1);
    await expect(acquireLock(file, { waitMs: 300 })).rejects.toBeInstanceOf(LockBusyError);
    holder.kill("SIGKILL");
    await exited(holder);
    const lock = await acquireLock(file, { waitMs: 5_000 });
    await lock.release();
  });

  it("never deletes a held lock file, however old or empty it is", async () => {
    const file = path.join(dir, ".usage.json.lock");
    await writeFile(file, "");
    const { ino } = await stat(file);
    const holder = await startHolder("flock", [file, "-c", "echo held; sleep 7"]);
    // The old protocol removed an empty lock as malformed after 5 s, even while it was held.
    await expect(acquireLock(file, { waitMs: 6_000, recordHolder: false })).rejects.toBeInstanceOf(
      LockBusyError,
    );
    expect((await stat(file)).ino).toBe(ino);
    holder.kill("SIGKILL");
    await exited(holder);
    await withLock(file, async () => undefined, { recordHolder: false });
    expect((await stat(file)).ino).toBe(ino);
    expect(await readFile(file, "utf8")).toBe("");
  }, 20_000);

  it("serialises concurrent critical sections", async () => {
    const file = path.join(dir, "lock");
    expect(await mostInsideAtOnce(20, (section) => withLock(file, section))).toBe(1);
  });
});

describe("curator run lock beside Hermes' claim file", () => {
  it("exists only while held, so Hermes' exclusive create sees a run in progress and nothing after", async () => {
    const lock = await acquireRunLock(dir);
    expect((await readFile(runLockFile(dir), "utf8")).startsWith(`${process.pid} `)).toBe(true);
    await expect(acquireRunLock(dir)).rejects.toMatchObject({ code: "curator.locked" });
    await lock.release();
    await expect(stat(runLockFile(dir))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("respects a fresh Hermes claim, takes over one older than an hour, and ignores a dead skillgate holder", async () => {
    const file = runLockFile(dir);
    await acquireRunLock(dir).then((lock) => lock.release());
    await writeFile(file, "4242");
    await expect(acquireRunLock(dir)).rejects.toMatchObject({ code: "curator.locked" });
    const { utimes } = await import("node:fs/promises");
    const old = new Date(Date.now() - 2 * 3_600_000);
    await utimes(file, old, old);
    await acquireRunLock(dir).then((lock) => lock.release());
    // A skillgate record this host's crash left: nobody holds its flock, so it is free at once.
    await writeFile(file, `4242 ${os.hostname()} 0123456789ab\n`);
    await acquireRunLock(dir).then((lock) => lock.release());
    // Another host's record is not judged by this host's kernel lock: it stays busy (see lock.ts).
    await writeFile(file, "4242 otherhost 0123456789ab\n");
    await expect(acquireRunLock(dir)).rejects.toMatchObject({ code: "curator.locked" });
  });

  it("is never seen empty: a reader polling the path finds skillgate's record or nothing", async () => {
    // An empty file is how a Hermes claim looks while Hermes writes its pid; were skillgate's own claim
    // ever visible empty, a racing skillgate would take it for Hermes' and both would refuse the run.
    const file = runLockFile(dir);
    const poller = spawn(
      "python3",
      [
        "-c",
        `import os, sys
path, stop = sys.argv[1], sys.argv[2]
seen = empty = 0
while not os.path.exists(stop):
    try:
        with open(path) as f:
            seen += 1
            if f.read() == "": empty += 1
    except FileNotFoundError:
        pass
print(seen, empty)`,
        file,
        path.join(dir, "stop"),
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    children.push(poller);
    let printed = "";
    poller.stdout?.on("data", (chunk) => {
      printed += chunk;
    });
    const exited = new Promise((resolve) => poller.on("exit", resolve));
    for (let round = 0; round < 400; round++) await acquireRunLock(dir).then((lock) => lock.release());
    await writeFile(path.join(dir, "stop"), "");
    await exited;
    const [seen, empty] = printed.trim().split(" ").map(Number);
    expect(seen).toBeGreaterThan(0);
    expect(empty).toBe(0);
  }, 60_000);
});

describe("a claim killed between its write and its link", () => {
  it("leaves a temporary file named as an atomic write's, which start-up recovery removes", async () => {
    const home = await makeHome();
    try {
      // A pid no process holds any more: a child that has exited.
      const gone = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
      await exited(gone);
      const lockFile = runLockFile(home);
      const temporary = claimTempName(lockFile, gone.pid as number);
      expect(atomicTempWriter(path.basename(temporary))).toEqual({ pid: gone.pid, host: HOST_TAG });
      await mkdir(path.dirname(temporary), { recursive: true });
      await writeFile(temporary, `${gone.pid} ${os.hostname()} 0123456789ab`);
      await recoverHome(home, configWith(), { atStart: true });
      await expect(stat(temporary)).rejects.toMatchObject({ code: "ENOENT" });
    } finally {
      await removeHome(home);
    }
  });
});
