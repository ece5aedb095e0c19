/**
 * The persistent scan index (`<home>/.cache/skillgate/skills-index.json`): each fresh `openLibrary` acts
 * as a new process would. Every change must be seen with the index present, and an index-backed library
 * must answer exactly like a full scan without one.
 */
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { SkillgateConfig } from "../../src/config/config.js";
import { indexPath } from "../../src/skills/index-cache.js";
import { type ManagedSkillLibrary, openLibrary } from "../../src/skills/library.js";
import { UsageStore } from "../../src/skills/usage.js";
import { config, type tempHome, tempHomeEachTest, writeFile, writeSkill } from "./helpers.js";

/** Short settle time for tests; `settle()` waits past it so recorded stamps become trusted. */
const RACY_MS = 40;
const settle = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 30));

let env: ReturnType<typeof tempHome>;
const opened = tempHomeEachTest((made) => {
  env = made;
});

/** A new library on the same home, as a new process would open it (no watchers). */
function fresh(cfg: SkillgateConfig = config()): ManagedSkillLibrary {
  const library = openLibrary(env.home, cfg, { watch: false, env: {}, racyMs: RACY_MS });
  opened.push(library);
  return library;
}

/** The ground truth: a full scan that neither reads nor writes the index. */
function fullScan(cfg: SkillgateConfig = config()): ManagedSkillLibrary {
  const library = openLibrary(env.home, cfg, { watch: false, env: {}, persistIndex: false });
  opened.push(library);
  return library;
}

/** Opens fresh libraries until one is served entirely from the index (at most three). */
async function primeIndex(cfg: SkillgateConfig = config()): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const library = fresh(cfg);
    await library.list();
    const last = library.lastScan();
    if (last?.fromIndex && last.dirsListed === 0 && last.headsRead === 0) return;
    await settle();
  }
  throw new Error("the index never settled");
}

/** Lists with a fresh index-backed library and checks it against a full scan; returns the names. */
async function namesChecked(cfg: SkillgateConfig = config()): Promise<string[]> {
  const library = fresh(cfg);
  const list = await library.list();
  expect(library.lastScan()?.fromIndex).toBe(true);
  const truth = fullScan(cfg);
  expect(list).toEqual(await truth.list());
  expect(await library.all()).toEqual(await truth.all());
  return (list.skills ?? []).map((skill) => skill.name).sort();
}

/** The parts of an index file, split where its header says (the stamps block is binary). */
interface IndexParts {
  id: string;
  stamps: Buffer;
  listings: string;
  descriptions: string;
  frontmatters: string;
}

const INDEX_HEADER = /^skillgate-skills-index v4 ([0-9a-f]{16}) (\d{12}) (\d{12}) (\d{12})\n/;

function readIndex(file: string): IndexParts {
  const bytes = readFileSync(file);
  const header = INDEX_HEADER.exec(bytes.toString("latin1", 0, 100));
  if (!header) throw new Error("not an index file");
  const [stamps, listings, descriptions] = header.slice(2).map(Number) as [number, number, number];
  let at = header[0].length;
  const take = (length: number, separator: number) => {
    const part = bytes.subarray(at, at + length);
    at += length + separator;
    return part;
  };
  return {
    id: header[1] as string,
    stamps: take(stamps, 0),
    listings: take(listings, 1).toString("utf8"),
    descriptions: take(descriptions, 1).toString("utf8"),
    frontmatters: bytes.subarray(at).toString("utf8"),
  };
}

/** The bytes of an index made of `parts`, its header's lengths computed from them. */
function indexBytes(parts: IndexParts): Buffer {
  const lengths = [
    parts.stamps.length,
    Buffer.byteLength(parts.listings),
    Buffer.byteLength(parts.descriptions),
  ];
  const header = `skillgate-skills-index v4 ${parts.id} ${lengths.map((n) => String(n).padStart(12, "0")).join(" ")}\n`;
  return Buffer.concat([
    Buffer.from(header),
    parts.stamps,
    Buffer.from(`${parts.listings}\n${parts.descriptions}\n${parts.frontmatters}`),
  ]);
}

beforeEach(async () => {
  writeSkill(env.skills, "cat/alpha", "description: first");
  writeSkill(env.skills, "cat/beta", "name: beta\ndescription: second");
  writeSkill(env.skills, "gamma", "name: gamma\ndescription: third");
  writeFile(path.join(env.skills, "cat", "alpha", "references", "notes.md"), "# notes\n");
  await settle();
});

describe("the scan index", () => {
  it("is written outside skills/ and serves an unchanged tree without reading it", async () => {
    await primeIndex();
    expect(existsSync(indexPath(env.home))).toBe(true);
    expect(indexPath(env.home).startsWith(env.skills)).toBe(false);
    const library = fresh();
    const list = await library.list();
    expect(library.lastScan()).toEqual({ dirsListed: 0, headsRead: 0, fromIndex: true, indexWritten: false });
    expect(list).toEqual(await fullScan().list());
    expect(await namesChecked()).toEqual(["alpha", "beta", "gamma"]);
  });

  it("sees an added skill, also one nested inside an existing skill folder", async () => {
    await primeIndex();
    writeSkill(env.skills, "cat/delta", "name: delta\ndescription: added");
    writeSkill(env.skills, "cat/alpha/inner", "name: inner\ndescription: nested");
    expect(await namesChecked()).toEqual(["alpha", "beta", "delta", "gamma", "inner"]);
    await settle();
    await primeIndex();
    expect(await namesChecked()).toEqual(["alpha", "beta", "delta", "gamma", "inner"]);
  });

  it("sees a removed and a renamed skill", async () => {
    await primeIndex();
    rmSync(path.join(env.skills, "cat", "beta"), { recursive: true });
    renameSync(path.join(env.skills, "cat", "alpha"), path.join(env.skills, "cat", "alpha-two"));
    expect(await namesChecked()).toEqual(["alpha-two", "gamma"]);
  });

  it("sees an in-place edit of the same size and an atomic replace", async () => {
    await primeIndex();
    const alpha = path.join(env.skills, "cat", "alpha", "SKILL.md");
    const before = readFileSync(alpha, "utf8");
    writeFileSync(alpha, before.replace("first", "FIRST"));
    let library = fresh();
    let skills = (await library.list()).skills ?? [];
    expect(skills.find((skill) => skill.name === "alpha")?.description).toBe("FIRST");
    expect(library.lastScan()?.headsRead).toBe(1);

    const beta = path.join(env.skills, "cat", "beta", "SKILL.md");
    writeFileSync(`${beta}.tmp`, "---\nname: beta\ndescription: replaced\n---\n");
    renameSync(`${beta}.tmp`, beta);
    library = fresh();
    skills = (await library.list()).skills ?? [];
    expect(skills.find((skill) => skill.name === "beta")?.description).toBe("replaced");
    expect(await namesChecked()).toEqual(["alpha", "beta", "gamma"]);
  });

  it("sees an edit right after the index was written (entries too recent are not trusted)", async () => {
    const gamma = path.join(env.skills, "gamma", "SKILL.md");
    writeFileSync(gamma, "---\nname: gamma\ndescription: v1\n---\n");
    await fresh().list(); // indexes a file changed moments ago
    // Not trusted yet: a later change in the same clock tick would leave its stamp as it was.
    const again = fresh();
    await again.list();
    expect(again.lastScan()?.headsRead).toBe(1);
    writeFileSync(gamma, "---\nname: gamma\ndescription: v2\n---\n"); // same size, maybe same clock tick
    const skills = (await fresh().list()).skills ?? [];
    expect(skills.find((skill) => skill.name === "gamma")?.description).toBe("v2");
  });

  it("follows a retargeted symlink, also through a chain of links", async () => {
    const outside = path.join(env.home, "outside");
    writeSkill(outside, "a/from-a", "name: from-a\ndescription: a");
    writeSkill(outside, "b/from-b", "name: from-b\ndescription: b");
    symlinkSync(path.join(outside, "a"), path.join(outside, "current"));
    symlinkSync(path.join(outside, "current"), path.join(env.skills, "linked"));
    await settle();
    await primeIndex();
    expect(await namesChecked()).toContain("from-a");

    // Only the second link changes: skills/ itself is untouched.
    unlinkSync(path.join(outside, "current"));
    symlinkSync(path.join(outside, "b"), path.join(outside, "current"));
    let names = await namesChecked();
    expect(names).toContain("from-b");
    expect(names).not.toContain("from-a");

    // The link inside skills/ is replaced.
    unlinkSync(path.join(env.skills, "linked"));
    symlinkSync(path.join(outside, "a"), path.join(env.skills, "linked"));
    names = await namesChecked();
    expect(names).toContain("from-a");
    expect(names).not.toContain("from-b");
  });

  it("follows changes of skills.external_dirs", async () => {
    const one = path.join(env.home, "ext-one");
    const two = path.join(env.home, "ext-two");
    writeSkill(one, "tools/from-one", "name: from-one\ndescription: one");
    writeSkill(two, "from-two", "name: from-two\ndescription: two");
    await settle();
    const withOne = config({ skills: { external_dirs: [one] } });
    await primeIndex(withOne);
    expect(await namesChecked(withOne)).toEqual(["alpha", "beta", "from-one", "gamma"]);
    expect(await namesChecked(config())).toEqual(["alpha", "beta", "gamma"]);
    expect(await namesChecked(config({ skills: { external_dirs: [two] } }))).toEqual([
      "alpha",
      "beta",
      "from-two",
      "gamma",
    ]);
    // An external dir nested in another root gives its skills another category there.
    const nested = config({ skills: { external_dirs: [path.join(one, "tools"), one] } });
    const library = fresh(nested);
    expect(await library.all()).toEqual(await fullScan(nested).all());
  });

  it("keeps every entry field and frontmatter value exact across processes", async () => {
    writeSkill(env.skills, "gated/windows-only", "name: windows-only\nplatforms: [windows]");
    writeSkill(env.skills, "gated/linux-mac", "name: linux-mac\nplatforms: [linux, macos]\ndescription: d");
    writeSkill(env.skills, "gated/docker", "name: in-docker\nenvironments: [docker]");
    writeSkill(env.skills, "odd/numeric", "name: 123\ndescription: 4.5");
    writeSkill(env.skills, "odd/from-body", "name: from-body", "# Title\n\nThe first body line.\n");
    writeSkill(env.skills, "odd/long", `name: long\ndescription: ${"x".repeat(1100)}`);
    writeSkill(env.skills, "odd/renamed-folder", `name: ${"N".repeat(70)}\ndescription: long name`);
    writeSkill(env.skills, "odd/inexact", "name: inexact\nratio: .inf\nzero: -0.0\nbad: .nan");
    writeSkill(env.skills, "odd/nested", "name: nested\nmetadata:\n  hermes:\n    tags: [a, b]\n    n: 1");
    writeSkill(env.skills, "odd/broken", "name: broken\ndescription: [unclosed\nkey: value");
    writeSkill(env.skills, "odd/none", null, "No frontmatter here.\n");
    writeSkill(env.skills, "odd/unicode", "name: ünïcode\ndescription: 説明 ✓");
    writeFile(path.join(env.skills, "legacy.md"), "# legacy single-file skill\n");
    await settle();
    await primeIndex();
    await namesChecked();
    const library = fresh();
    expect((await library.find("inexact"))?.frontmatter).toEqual({
      name: "inexact",
      ratio: Number.POSITIVE_INFINITY,
      zero: -0,
      bad: Number.NaN,
    });
    expect(Object.is((await library.find("inexact"))?.frontmatter.zero, -0)).toBe(true);
    expect(await library.view("legacy")).toEqual(await fullScan().view("legacy"));
    expect(await library.view("nested")).toEqual(await fullScan().view("nested"));
  });

  it("applies the disabled lists to index-backed entries, by frontmatter and folder name", async () => {
    writeSkill(env.skills, "folder-name", "name: Pretty Name\ndescription: p");
    await settle();
    await primeIndex();
    for (const disabled of [["Pretty Name"], ["folder-name"], ["alpha"]]) {
      const cfg = config({ skills: { disabled } });
      const names = await namesChecked(cfg);
      expect(names).not.toContain(disabled[0] === "alpha" ? "alpha" : "Pretty Name");
    }
  });

  it("ignores a corrupt, truncated or foreign index and replaces it", async () => {
    await primeIndex();
    const file = indexPath(env.home);
    const good = readIndex(file);
    expect(indexBytes(good)).toEqual(readFileSync(file));
    const firstHeadDir = /"headDir":\[(\d+)/.exec(good.listings)?.[1] as string;
    const whole = readFileSync(file);
    const header = whole.subarray(0, whole.indexOf(0x0a) + 1);
    for (const bad of [
      "not json",
      "",
      whole.subarray(0, Math.floor(whole.length / 3)),
      Buffer.from(whole.toString("latin1").replace(" v4 ", " v9 "), "latin1"),
      // A listings line that does not end where the header says.
      Buffer.concat([
        header,
        good.stamps,
        Buffer.from(`${good.listings} \n${good.descriptions}\n${good.frontmatters}`),
      ]),
      // One that does, with a head in a folder row that does not exist.
      indexBytes({
        ...good,
        listings: good.listings.replace(
          `"headDir":[${firstHeadDir}`,
          `"headDir":[${"9".repeat(firstHeadDir.length)}`,
        ),
      }),
      // With a folder under a root that does not exist.
      indexBytes({ ...good, listings: good.listings.replace('"dirRoot":[0', '"dirRoot":[7') }),
      // With a stamps block one row short.
      indexBytes({ ...good, stamps: good.stamps.subarray(40) }),
      // The lengths claim more than the file holds.
      Buffer.concat([whole.subarray(0, 56), Buffer.from("999999999999"), whole.subarray(68)]),
      '{"format":"skillgate-skills-index","version":2,"dirs":{},"heads":[]}\n[]',
    ]) {
      writeFileSync(file, bad);
      const library = fresh();
      expect(await library.list()).toEqual(await fullScan().list());
      expect(library.lastScan()?.fromIndex).toBe(false);
      expect(library.lastScan()?.indexWritten).toBe(true);
    }
  });

  it("does not trust the entries of an index whose home moved, though the inodes stayed", async () => {
    await primeIndex();
    const moved = `${env.home}-moved`;
    renameSync(env.home, moved);
    const original = env.home;
    env.home = moved;
    env.skills = path.join(moved, "skills");
    try {
      const library = fresh();
      expect(await library.all()).toEqual(await fullScan().all());
      expect((await library.all()).every((entry) => entry.dir.startsWith(`${moved}${path.sep}`))).toBe(true);
      // The index was read, but no entry recorded under the old path was reused.
      expect(library.lastScan()).toMatchObject({ fromIndex: true, headsRead: 3, indexWritten: true });
      expect(library.lastScan()?.dirsListed).toBeGreaterThanOrEqual(5);
    } finally {
      renameSync(moved, original);
      env.home = original;
      env.skills = path.join(original, "skills");
    }
  });

  it("reads the frontmatter from the files when only the frontmatter line is damaged", async () => {
    await primeIndex();
    const file = indexPath(env.home);
    writeFileSync(file, indexBytes({ ...readIndex(file), frontmatters: '[{"broken' }));
    const library = fresh();
    expect(await library.all()).toEqual(await fullScan().all());
    expect(library.lastScan()?.fromIndex).toBe(true);
  });

  it("reads descriptions and frontmatter from the files when the index is replaced after it was loaded", async () => {
    await primeIndex();
    const file = indexPath(env.home);
    const library = fresh();
    const entries = await library.all();
    expect(library.lastScan()).toMatchObject({ fromIndex: true, headsRead: 0 });
    // Another process rewrites the index with a description and a frontmatter that are not the file's:
    // neither must be used (the records were built, but no description was read yet).
    const loaded = readIndex(file);
    const other = {
      ...loaded,
      id: "ffffffffffffffff",
      // Same lengths, so only the id tells the two files apart.
      descriptions: loaded.descriptions.replace('"first"', '"FIRST"'),
      frontmatters: loaded.frontmatters.replace('"description":"first"', '"description":"FIRST"'),
    };
    expect(other.descriptions).not.toBe(loaded.descriptions);
    expect(other.frontmatters).not.toBe(loaded.frontmatters);
    writeFileSync(`${file}.new`, indexBytes(other));
    renameSync(`${file}.new`, file);
    const alpha = entries.find((entry) => entry.name === "alpha");
    expect(alpha?.description).toBe("first");
    expect(alpha?.frontmatter.description).toBe("first");
    expect(await library.all()).toEqual(await fullScan().all());
  });

  it("a library that rewrites the index it loaded reads a frontmatter it had not needed from the new one", async () => {
    await primeIndex();
    const file = indexPath(env.home);
    const library = fresh();
    await library.list();
    expect(library.lastScan()).toMatchObject({ fromIndex: true, headsRead: 0 });
    writeSkill(env.skills, "cat/delta", "name: delta\ndescription: fourth");
    library.invalidate();
    await library.list();
    expect(library.lastScan()).toMatchObject({ headsRead: 1, indexWritten: true });
    // The rewrite read every frontmatter once; none was kept. The heads loaded from the old file now
    // read from the file just written: marked (same id, same length), the mark shows where a frontmatter
    // asked for afterwards comes from. Kept from the rewrite, or read from the file, it would be "first".
    const written = readIndex(file);
    expect(written.frontmatters).toContain('"description":"first"');
    writeFileSync(
      file,
      indexBytes({
        ...written,
        frontmatters: written.frontmatters.replace('"description":"first"', '"description":"FIRST"'),
      }),
    );
    const alpha = await library.find("alpha");
    expect(alpha?.frontmatter.description).toBe("FIRST");
    // alpha declares no name: its frontmatter gains none (a `name: undefined` key would make JSON, and so
    // the next index, drop the whole frontmatter).
    expect(Object.keys(alpha?.frontmatter ?? {})).toEqual(["description"]);
    // What the rewrite read is still the head's own.
    expect(alpha?.description).toBe("first");
    // Replaced by another process (another id), the heads read their files again.
    writeFileSync(file, indexBytes({ ...readIndex(file), id: "ffffffffffffffff" }));
    expect((await library.find("beta"))?.frontmatter).toEqual({ name: "beta", description: "second" });
  });

  it("reads the descriptions from the files when only the descriptions line is damaged", async () => {
    await primeIndex();
    const file = indexPath(env.home);
    const parts = readIndex(file);
    // The same length, so the header still holds: only the line itself is unusable.
    writeFileSync(file, indexBytes({ ...parts, descriptions: `{${parts.descriptions.slice(1)}` }));
    const library = fresh();
    expect(await library.list()).toEqual(await fullScan().list());
    expect(library.lastScan()).toMatchObject({ fromIndex: true, headsRead: 0 });
  });

  it("keeps the head of a skill whose folder is still settling when the index is written", async () => {
    await primeIndex();
    const folder = path.join(env.skills, "cat", "alpha");
    writeFile(path.join(folder, "notes.md"), "# notes\n");
    // A folder stamp in the future is never settled, however slow the machine is.
    const later = new Date(Date.now() + 3_600_000);
    utimesSync(folder, later, later);
    await settle();
    const first = fresh();
    expect(await first.list()).toEqual(await fullScan().list());
    expect(first.lastScan()).toMatchObject({ fromIndex: true, headsRead: 0, indexWritten: true });
    const second = fresh();
    expect(await second.list()).toEqual(await fullScan().list());
    // Only the unsettled folder is listed again; its SKILL.md is still served from the index.
    expect(second.lastScan()).toMatchObject({ fromIndex: true, headsRead: 0, dirsListed: 1 });
  });

  it("works when the index cannot be written", async () => {
    mkdirSync(path.join(env.home, ".cache"), { recursive: true });
    writeFileSync(path.join(env.home, ".cache", "skillgate"), "a file where the folder should be");
    const library = fresh();
    expect(await library.list()).toEqual(await fullScan().list());
    expect(existsSync(indexPath(env.home))).toBe(false);
    if (process.getuid?.() !== 0) {
      rmSync(path.join(env.home, ".cache"), { recursive: true });
      chmodSync(env.home, 0o555);
      try {
        expect((await fresh().list()).count).toBe(3);
      } finally {
        chmodSync(env.home, 0o755);
      }
    }
  });

  it("a long-running library writes what it refreshed, so the next process starts from it", async () => {
    const gateway = fresh();
    await gateway.list();
    await settle();
    appendFileSync(path.join(env.skills, "gamma", "SKILL.md"), "\nmore\n");
    writeSkill(env.skills, "cat/epsilon", "name: epsilon\ndescription: new");
    gateway.invalidate();
    expect(((await gateway.list()).skills ?? []).map((skill) => skill.name)).toContain("epsilon");
    await settle();
    await primeIndex();
    expect(await namesChecked()).toEqual(["alpha", "beta", "epsilon", "gamma"]);
  });

  it("a library that read its SKILL.md files gives the same frontmatters after writing the index", async () => {
    writeSkill(env.skills, "cat/tagged", "name: tagged\ndescription: t\ntags: [a, b]\nversion: 1.2.0");
    writeSkill(env.skills, "cat/nested", "name: nested\nmetadata:\n  hermes:\n    related_skills: [tagged]");
    await settle();
    const gateway = fresh();
    const expected = (await fullScan().all()).map((entry) => [entry.name, entry.frontmatter]);
    // The first scan reads every file; once settled, a refresh writes the index from those heads.
    await gateway.list();
    await settle();
    gateway.invalidate();
    await gateway.list();
    expect(gateway.lastScan()?.indexWritten || existsSync(indexPath(env.home))).toBe(true);
    const tagged = await gateway.find("tagged");
    expect(tagged?.frontmatter).toEqual({
      name: "tagged",
      description: "t",
      tags: ["a", "b"],
      version: "1.2.0",
    });
    // Asked twice, the same parsed value comes back.
    expect(tagged?.frontmatter).toBe(tagged?.frontmatter);
    expect((await gateway.all()).map((entry) => [entry.name, entry.frontmatter])).toEqual(expected);
  });

  it("is not rewritten for a usage write, yet sees a skill folder added right after one", async () => {
    await primeIndex();
    const before = readFileSync(indexPath(env.home));
    // A view count renames a new .usage.json into skills/, which changes that folder's stamp.
    await new UsageStore(env.skills).bump("gamma", "view");
    expect(existsSync(path.join(env.skills, ".usage.json"))).toBe(true);
    const library = fresh();
    expect(((await library.list()).skills ?? []).map((skill) => skill.name).sort()).toEqual([
      "alpha",
      "beta",
      "gamma",
    ]);
    expect(library.lastScan()).toEqual({ dirsListed: 1, headsRead: 0, fromIndex: true, indexWritten: false });
    expect(readFileSync(indexPath(env.home)).equals(before)).toBe(true);
    // The same folder stamp change, this time with a new skill folder in it: it must be seen.
    await new UsageStore(env.skills).bump("gamma", "view");
    writeSkill(env.skills, "delta", "name: delta\ndescription: after a usage write");
    expect(await namesChecked()).toEqual(["alpha", "beta", "delta", "gamma"]);
    // And a removed one, right after another usage write.
    await new UsageStore(env.skills).bump("gamma", "view");
    rmSync(path.join(env.skills, "gamma"), { recursive: true });
    expect(await namesChecked()).toEqual(["alpha", "beta", "delta"]);
  });

  it("a long-running library keeps the new folder stamp after a usage write and still sees new skills", async () => {
    const gateway = fresh();
    await gateway.list();
    await settle();
    await new UsageStore(env.skills).bump("gamma", "view");
    gateway.invalidate();
    await gateway.list();
    expect(gateway.lastScan()?.dirsListed).toBe(1);
    // Listed again until the new stamp has settled, then trusted: nothing is listed any more.
    await settle();
    gateway.invalidate();
    await gateway.list();
    gateway.invalidate();
    await gateway.list();
    expect(gateway.lastScan()?.dirsListed).toBe(0);
    expect(gateway.lastScan()?.indexWritten).toBe(false);
    await new UsageStore(env.skills).bump("gamma", "view");
    writeSkill(env.skills, "delta", "name: delta\ndescription: after a usage write");
    gateway.invalidate();
    expect(((await gateway.list()).skills ?? []).map((skill) => skill.name)).toContain("delta");
  });
});
