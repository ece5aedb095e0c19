import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isoTimestamp, stableJson } from "../../src/core/fsutil.js";
import { UsageStore } from "../../src/skills/usage.js";
import {
  activityCount,
  emptyRecord,
  lastActivity,
  lastActivityAt,
  parseTimestamp,
  type UsageRecord,
} from "../../src/skills/usage-record.js";
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

  it("reads complete records as stored and still repairs ill-typed or partial ones beside them", async () => {
    const complete = {
      archived_at: null,
      created_at: "2026-01-01T00:00:00+00:00",
      created_by: "agent",
      last_patched_at: null,
      last_used_at: "2026-02-01T00:00:00+00:00",
      last_viewed_at: null,
      patch_count: 0,
      pinned: true,
      state: "stale",
      use_count: 4,
      view_count: 1,
      extra: { nested: [1] },
    };
    writeFileSync(
      usageFile(),
      JSON.stringify({
        complete,
        badCount: { ...complete, use_count: "4" },
        badState: { ...complete, state: "gone" },
        badPinned: { ...complete, pinned: 1 },
        missingKey: { ...complete, archived_at: undefined },
        nullRecord: null,
      }),
    );
    const records = await store.read();
    expect(Object.keys(records).sort()).toEqual([
      "badCount",
      "badPinned",
      "badState",
      "complete",
      "missingKey",
    ]);
    expect(records.complete).toEqual(complete);
    expect(records.badCount).toEqual({ ...complete, use_count: 0 });
    expect(records.badState).toEqual({ ...complete, state: "active" });
    expect(records.badPinned).toEqual({ ...complete, pinned: true });
    expect(records.missingKey).toEqual({ ...complete, archived_at: null });
    expect(Object.hasOwn(records.missingKey ?? {}, "archived_at")).toBe(true);
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

describe("usage bump fast path", () => {
  const timestamp = fc
    .date({
      min: new Date("2020-01-01T00:00:00Z"),
      max: new Date("2030-01-01T00:00:00Z"),
      noInvalidDate: true,
    })
    .map((date) => date.toISOString().replace("Z", "000+00:00"));
  const usageRecord = fc.record(
    {
      created_by: fc.constantFrom("agent", null, "user"),
      use_count: fc.nat(1000),
      view_count: fc.nat(1000),
      patch_count: fc.nat(50),
      last_used_at: fc.option(timestamp),
      last_viewed_at: fc.option(timestamp),
      last_patched_at: fc.option(timestamp),
      created_at: fc.option(timestamp),
      state: fc.constantFrom("active", "stale", "archived"),
      pinned: fc.boolean(),
      archived_at: fc.option(timestamp),
      extra: fc.dictionary(
        fc.string({ maxLength: 4 }),
        fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        {
          maxKeys: 3,
        },
      ),
    },
    {
      requiredKeys: [
        "use_count",
        "view_count",
        "patch_count",
        "state",
        "pinned",
        "archived_at",
        "created_at",
      ],
    },
  );
  // Digit-only names too: an object enumerates those first, whatever order the file has them in.
  const names = fc.uniqueArray(fc.stringMatching(/^([a-z][a-z0-9-]{0,12}|[0-9]{1,3})$/), {
    minLength: 1,
    maxLength: 8,
  });

  it("writes exactly the bytes the general update path writes, for canonical and non-canonical files alike", async () => {
    await fc.assert(
      fc.asyncProperty(
        names,
        fc.array(usageRecord, { minLength: 8, maxLength: 8 }),
        fc.boolean(),
        fc.constantFrom("use", "view", "patch"),
        fc.nat(7),
        fc.constantFrom("sorted", "reversed", "compact"),
        async (skillNames, records, canonical, kind, pick, layout) => {
          const doc: Record<string, unknown> = {};
          // A canonical file has complete records (what both writers produce); the other kind is sparse.
          skillNames.forEach((name, index) => {
            doc[name] = canonical ? { ...emptyRecord(), ...records[index] } : records[index];
          });
          // Complete records in Hermes' layout, in reverse name order, or on one line: only the first is
          // spliced record by record, the others must come out as the general path writes them.
          const reversed = Object.fromEntries(Object.entries(JSON.parse(stableJson(doc))).reverse());
          const text = !canonical
            ? JSON.stringify(doc)
            : layout === "sorted"
              ? stableJson(doc)
              : layout === "reversed"
                ? JSON.stringify(reversed, null, 2)
                : JSON.stringify(JSON.parse(stableJson(doc)));
          // Two bumps: the first from the file, the second from what this process just wrote.
          const bumped = [
            skillNames[pick % skillNames.length] as string,
            skillNames[(pick + 1) % skillNames.length] as string,
          ];
          const now = new Date("2031-02-03T04:05:06.789Z");
          writeFileSync(usageFile(), text);
          for (const name of bumped) await store.bump(name, kind as "use" | "view" | "patch", now);
          const fast = readFileSync(usageFile(), "utf8");
          // The general path, for the same starting file and the same bumps.
          writeFileSync(usageFile(), text);
          for (const name of bumped) {
            await store.update((all) => {
              const record = all[name] as UsageRecord;
              if (kind === "use") {
                record.use_count += 1;
                record.last_used_at = isoTimestamp(now);
              } else if (kind === "view") {
                record.view_count += 1;
                record.last_viewed_at = isoTimestamp(now);
              } else {
                record.patch_count += 1;
                record.last_patched_at = isoTimestamp(now);
              }
            });
          }
          const general = readFileSync(usageFile(), "utf8");
          if (canonical && layout === "sorted") {
            expect(fast).toBe(general);
            return;
          }
          // Any other layout: the bumped records are what the general path makes of them, and every
          // other record keeps its bytes and its place.
          const fastDoc = JSON.parse(fast) as Record<string, unknown>;
          const generalDoc = JSON.parse(general) as Record<string, unknown>;
          for (const name of bumped) expect(fastDoc[name]).toEqual(generalDoc[name]);
          const order = (body: string) =>
            skillNames
              .map((name) => ({ name, at: body.indexOf(`${JSON.stringify(name)}:`) }))
              .sort((a, b) => a.at - b.at)
              .map((item) => item.name);
          expect(order(fast)).toEqual(order(text));
          const original = JSON.parse(text) as Record<string, unknown>;
          const spacing = text.includes("\n") ? 2 : undefined;
          for (const name of skillNames.filter((one) => !bumped.includes(one))) {
            const own = JSON.stringify(original[name], null, spacing).replaceAll("\n", "\n  ");
            expect(fast).toContain(own);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a file out of name order, or with digit-only names, keeps its order: only the bumped record changes", async () => {
    const complete = JSON.parse(stableJson(emptyRecord())) as UsageRecord;
    const now = new Date("2031-02-03T04:05:06.789Z");
    // Each file lists its names in this order (built as text: an object would put "9" before "10").
    for (const order of [
      ["b", "a"],
      ["10", "9", "a"],
    ]) {
      const record = JSON.stringify(complete, null, 2).replaceAll("\n", "\n  ");
      const text = `{\n${order.map((name) => `  ${JSON.stringify(name)}: ${record}`).join(",\n")}\n}`;
      writeFileSync(usageFile(), text);
      await store.bump("a", "use", now);
      const bumped = { ...complete, use_count: 1, last_used_at: isoTimestamp(now) };
      const expected = text.replace(
        `"a": ${record}`,
        `"a": ${JSON.stringify(bumped, null, 2).replaceAll("\n", "\n  ")}`,
      );
      expect(readFileSync(usageFile(), "utf8")).toBe(expected);
    }
  });

  it("hand-edited numbers and legacy records elsewhere keep their bytes when one record is bumped", async () => {
    const text = `{\n  "float": {"use_count": 1.0, "view_count": 1e+20},\n  "legacy": {"use_count": 3},\n  "target": {\n    "use_count": 1.0\n  }\n}\n`;
    writeFileSync(usageFile(), text);
    await store.bump("target", "use", new Date("2031-02-03T04:05:06.789Z"));
    const after = readFileSync(usageFile(), "utf8");
    const untouched = `{\n  "float": {"use_count": 1.0, "view_count": 1e+20},\n  "legacy": {"use_count": 3},\n  "target": `;
    expect(after.startsWith(untouched)).toBe(true);
    expect(after.endsWith("\n}\n")).toBe(true);
    expect(JSON.parse(after).target).toMatchObject({
      use_count: 2,
      last_used_at: "2031-02-03T04:05:06.789000+00:00",
      state: "active",
    });
    // A record not there yet goes in its sorted place, the rest untouched.
    await store.bump("aaa", "view", new Date("2031-02-03T04:05:06.789Z"));
    const inserted = readFileSync(usageFile(), "utf8");
    expect(inserted.indexOf('"aaa"')).toBeLessThan(inserted.indexOf('"float"'));
    expect(inserted).toContain(
      '"float": {"use_count": 1.0, "view_count": 1e+20},\n  "legacy": {"use_count": 3},',
    );
  });

  it("a warm store sees a file replaced behind its back (another writer) and bumps on top of it", async () => {
    writeFileSync(usageFile(), stableJson({ a: emptyRecord(), b: emptyRecord() }));
    await store.bump("a", "use");
    await store.bump("a", "use");
    // Another process (Hermes, say) replaces the file: new inode, new content.
    const replaced = stableJson({ a: { ...emptyRecord(), use_count: 40 }, b: emptyRecord() });
    writeFileSync(`${usageFile()}.tmp`, replaced);
    renameSync(`${usageFile()}.tmp`, usageFile());
    await store.bump("a", "use");
    await store.bump("b", "view");
    const records = await store.read();
    expect(records.a?.use_count).toBe(41);
    expect(records.b?.view_count).toBe(1);
  });

  it("a bump of a skill without a record creates a complete one, and later bumps keep counting", async () => {
    writeFileSync(usageFile(), stableJson({ zeta: emptyRecord() }));
    await store.bump("alpha", "view");
    await store.bump("alpha", "view");
    const text = readFileSync(usageFile(), "utf8");
    expect(text.indexOf('"alpha"')).toBeLessThan(text.indexOf('"zeta"'));
    expect(JSON.parse(text).alpha).toMatchObject({ view_count: 2, use_count: 0, state: "active" });
  });
});

describe("timestamps", () => {
  it("reads the canonical form exactly as the general parser does, and other forms as before", () => {
    // Any instant, written as Hermes and skillgate write it (microseconds, +00:00).
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("1970-01-01T00:00:00Z"),
          max: new Date("9999-12-31T23:59:59Z"),
          noInvalidDate: true,
        }),
        fc.integer({ min: 0, max: 999 }),
        (date, micros) => {
          const canonical = isoTimestamp(date).replace(
            /000\+00:00$/,
            `${String(micros).padStart(3, "0")}+00:00`,
          );
          expect(canonical).toHaveLength(32);
          expect(parseTimestamp(canonical)).toBe(date.getTime());
        },
      ),
    );
    expect(parseTimestamp("2026-06-01T12:00:00.123456+02:00")).toBe(Date.parse("2026-06-01T10:00:00.123Z"));
    expect(parseTimestamp("2026-06-01T12:00:00")).toBe(Date.parse("2026-06-01T12:00:00Z"));
    expect(parseTimestamp(" 2026-06-01T12:00:00.5Z ")).toBe(Date.parse("2026-06-01T12:00:00.500Z"));
    // Right length and punctuation, but not a time: undefined, as from the general path.
    expect(parseTimestamp("2026-13-01T12:00:00.123456+00:00")).toBeUndefined();
    expect(parseTimestamp("abcd-ef-ghTij:kl:mn.opqrst+00:00")).toBeUndefined();
    expect(parseTimestamp("")).toBeUndefined();
  });

  it("lastActivity picks the latest of use, view and patch, parsed once, and ignores created_at", () => {
    const record = {
      ...emptyRecord("2020-01-01T00:00:00.000000+00:00"),
      last_used_at: "2026-01-02T00:00:00.000000+00:00",
      last_viewed_at: "2026-03-04T05:06:07.890123+00:00",
      last_patched_at: "not a time",
    };
    expect(lastActivity(record)).toEqual({
      iso: record.last_viewed_at,
      ms: Date.parse("2026-03-04T05:06:07.890Z"),
    });
    expect(lastActivity(emptyRecord("2020-01-01T00:00:00.000000+00:00"))).toBeNull();
  });
});
