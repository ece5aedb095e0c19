import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { activityCount, lastActivityAt, UsageStore } from "../../src/skills/usage.js";
import { tempHome } from "./helpers.js";

let env: ReturnType<typeof tempHome>;
let store: UsageStore;
beforeEach(() => {
  env = tempHome();
  mkdirSync(env.skills);
  store = new UsageStore(env.skills);
});
afterEach(() => env.cleanup());

const usageFile = () => path.join(env.skills, ".usage.json");

describe("usage store (scenario 49)", () => {
  it("reads {} when empty, round-trips, backfills and writes Hermes' format", async () => {
    expect(await store.read()).toEqual({});
    writeFileSync(
      usageFile(),
      JSON.stringify({ partial: { use_count: 3, extra_key: "kept" }, junk: 5, list: [1] }),
    );
    const records = await store.read();
    expect(Object.keys(records)).toEqual(["partial"]);
    expect(records.partial).toMatchObject({
      use_count: 3,
      view_count: 0,
      patch_count: 0,
      state: "active",
      pinned: false,
      extra_key: "kept",
    });
    // A record without the provenance marker keeps lacking it ("pre-dates marker").
    expect(Object.hasOwn(records.partial ?? {}, "created_by")).toBe(false);
    await store.update(() => undefined);
    const text = readFileSync(usageFile(), "utf8");
    expect(text.startsWith('{\n  "partial": {\n    "archived_at": null,')).toBe(true);
    expect(JSON.parse(text).partial.extra_key).toBe("kept");
  });

  it("bumps counts and timestamps; an empty name is a no-op", async () => {
    const now = new Date("2026-05-01T10:00:00Z");
    await store.bump("s", "use", now);
    await store.bump("s", "view", now);
    await store.bump("s", "patch", new Date("2026-05-02T10:00:00Z"));
    await store.bump("", "use", now);
    const records = await store.read();
    expect(Object.keys(records)).toEqual(["s"]);
    const record = records.s!;
    expect([record.use_count, record.view_count, record.patch_count]).toEqual([1, 1, 1]);
    expect(record.last_used_at).toBe("2026-05-01T10:00:00.000000+00:00");
    expect(lastActivityAt(record)).toBe("2026-05-02T10:00:00.000000+00:00");
    expect(activityCount(record)).toBe(3);
  });

  it("reads a corrupt file as {} and keeps it aside instead of overwriting it", async () => {
    writeFileSync(usageFile(), "{not json");
    expect(await store.read()).toEqual({});
    const aside = readdirSync(env.skills).filter((name) => name.startsWith(".usage.json.corrupt-"));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(env.skills, aside[0]!), "utf8")).toBe("{not json");
    expect(store.warnings[0]).toContain("corrupt");
    await store.bump("after", "view");
    expect(Object.keys(JSON.parse(readFileSync(usageFile(), "utf8")))).toEqual(["after"]);
  });

  it("a bump on a corrupt file also keeps the old file", async () => {
    writeFileSync(usageFile(), "[1, 2");
    await store.bump("x", "use");
    expect(readdirSync(env.skills).some((name) => name.startsWith(".usage.json.corrupt-"))).toBe(true);
  });
});

describe("state and forget (scenario 50)", () => {
  it("archived sets archived_at, active clears it, stale keeps it; invalid state is a no-op; forget deletes", async () => {
    const t1 = new Date("2026-01-01T00:00:00Z");
    expect(await store.setState("s", "archived", t1)).toBe(true);
    expect((await store.read()).s?.archived_at).toBe("2026-01-01T00:00:00.000000+00:00");
    await store.setState("s", "stale");
    expect((await store.read()).s?.archived_at).toBe("2026-01-01T00:00:00.000000+00:00");
    await store.setState("s", "active");
    expect((await store.read()).s).toMatchObject({ state: "active", archived_at: null });
    expect(await store.setState("s", "deleted")).toBe(false);
    expect((await store.read()).s?.state).toBe("active");
    expect(await store.forget("s")).toBe(true);
    expect(await store.forget("s")).toBe(false);
    expect(await store.read()).toEqual({});
  });
});

/** Spawns `command` and resolves when it exits 0. */
function runChild(command: string, args: string[]): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited ${code}: ${stderr}`)),
    );
  });
}

const bumpWorker = path.join(import.meta.dirname, "bump-worker.ts");

/**
 * A Hermes-style writer: `fcntl.flock` on `.usage.json.lock`, read, bump `use_count` of `name`, write
 * `tmp` + `os.replace`, unlock; `count` times.
 */
function pythonBumper(skills: string, name: string, count: number): string {
  return [
    "import fcntl, json, os, sys",
    `skills, name, count = ${JSON.stringify(skills)}, ${JSON.stringify(name)}, ${count}`,
    "for _ in range(count):",
    "    with open(os.path.join(skills, '.usage.json.lock'), 'a+') as lock:",
    "        fcntl.flock(lock, fcntl.LOCK_EX)",
    "        try:",
    "            with open(os.path.join(skills, '.usage.json')) as f: data = json.load(f)",
    "        except FileNotFoundError:",
    "            data = {}",
    "        rec = data.setdefault(name, {})",
    "        rec['use_count'] = int(rec.get('use_count') or 0) + 1",
    "        tmp = os.path.join(skills, '.usage_py.tmp')",
    "        with open(tmp, 'w') as f: json.dump(data, f, indent=2, sort_keys=True)",
    "        os.replace(tmp, os.path.join(skills, '.usage.json'))",
    "        fcntl.flock(lock, fcntl.LOCK_UN)",
  ].join("\n");
}

describe("cross-process bumps (skillgate differs from Hermes: no lost updates)", () => {
  it("4 processes × 500 bumps lose nothing", async () => {
    await Promise.all(
      Array.from({ length: 4 }, () =>
        runChild(process.execPath, ["--import", "tsx", bumpWorker, env.skills, "raced", "500"]),
      ),
    );
    const records = JSON.parse(readFileSync(usageFile(), "utf8"));
    expect(records.raced.view_count).toBe(2000);
    // The lock file stays, as Hermes keeps it; nothing else is left behind.
    expect(readdirSync(env.skills).filter((name) => name.endsWith(".tmp") || name.endsWith(".lock"))).toEqual(
      [".usage.json.lock"],
    );
  }, 180_000);

  it("4 skillgate processes beside a Hermes-style flock writer lose no count on either side", async () => {
    await Promise.all([
      ...Array.from({ length: 4 }, () =>
        runChild(process.execPath, ["--import", "tsx", bumpWorker, env.skills, "raced", "150"]),
      ),
      runChild("python3", ["-c", pythonBumper(env.skills, "hermes-side", 400)]),
    ]);
    const records = JSON.parse(readFileSync(usageFile(), "utf8"));
    expect(records.raced.view_count).toBe(600);
    expect(records["hermes-side"].use_count).toBe(400);
  }, 180_000);

  it("a bump waits while a flock(1) holder has the usage lock, then lands", async () => {
    writeFileSync(path.join(env.skills, ".usage.json.lock"), "");
    const holder = spawn("flock", [path.join(env.skills, ".usage.json.lock"), "-c", "echo held; sleep 1"]);
    await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
    const started = Date.now();
    await store.bump("waited", "use");
    expect(Date.now() - started).toBeGreaterThan(300);
    expect((await store.read()).waited?.use_count).toBe(1);
  });
});
