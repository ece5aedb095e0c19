import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rewriteCronReferences, rewriteJob } from "../../src/curator/cron-rewrite.js";
import { buildRenameMap, renameMapText } from "../../src/curator/report.js";
import {
  auditToolCalls,
  classifyPass,
  declaredAbsorptions,
  parseStructuredSummary,
  pathMentions,
  type RecordedCall,
  wordIndex,
} from "../../src/llm/classify.js";

const manage = (args: Record<string, unknown>): RecordedCall => ({ name: "skill_manage", args });
const yamlBlock = (body: string) =>
  `Done.\n\n## Structured summary (required)\n\`\`\`yaml\n${body}\n\`\`\`\n`;

describe("scenario 28: before/after sets", () => {
  it("before {old-thing, keeper}, after {keeper, new-umbrella} → removed old-thing, added new-umbrella", () => {
    const result = classifyPass({
      before: ["old-thing", "keeper"],
      after: ["keeper", "new-umbrella"],
      calls: [
        manage({ action: "create", name: "new-umbrella", content: "umbrella for old-thing" }),
        manage({ action: "delete", name: "old-thing", absorbed_into: "new-umbrella" }),
        { name: "skill_view", args: { name: "keeper" } },
      ],
      final: "",
    });
    expect(result.removed).toEqual(["old-thing"]);
    expect(result.added).toEqual(["new-umbrella"]);
    expect(result.consolidated).toEqual([
      {
        name: "old-thing",
        into: "new-umbrella",
        source: "absorbed_into (model-declared at delete)",
        reason: "merged into new-umbrella",
      },
    ]);
    expect(result.pruned).toEqual([]);
  });
});

describe("scenario 31: the tool-call heuristic", () => {
  const destinations = new Set(["umbrella", "keeper"]);

  it("write_file references/foo.md on the umbrella → consolidated; no reference → pruned", () => {
    const calls = [
      manage({ action: "write_file", name: "umbrella", file_path: "references/foo.md", file_content: "x" }),
    ];
    const result = classifyPass({
      before: ["foo", "bar", "umbrella"],
      after: ["umbrella"],
      calls,
      final: "",
    });
    expect(result.consolidated).toMatchObject([
      { name: "foo", into: "umbrella", source: "tool-call audit (model omitted from structured block)" },
    ]);
    expect(result.consolidated[0]?.evidence).toContain(
      "skill_manage action=write_file on 'umbrella' referenced 'foo'",
    );
    expect(result.pruned).toMatchObject([{ name: "bar", source: "no-evidence fallback" }]);
  });

  it("a newly created umbrella counts as a destination", () => {
    const calls = [
      manage({ action: "create", name: "new-umb", content: "---\nname: new-umb\n---\nCovers foo and more." }),
    ];
    const result = classifyPass({ before: ["foo"], after: ["new-umb"], calls, final: "" });
    expect(result.added).toEqual(["new-umb"]);
    expect(result.consolidated[0]?.into).toBe("new-umb");
  });

  it("`_` and `-` variants match; a self reference is ignored", () => {
    expect(pathMentions("references/foo_bar.md", "foo-bar")).toBe(true);
    expect(wordIndex("see FOO_BAR for details", "foo-bar")).toBeGreaterThanOrEqual(0);
    const self = [manage({ action: "patch", name: "foo", new_string: "foo is great" })];
    expect(auditToolCalls("foo", self, new Set(["foo", "umbrella"]))).toBeUndefined();
  });

  it("`api` vs `api-design.md` and `test` vs `latest` do not match", () => {
    expect(pathMentions("references/api-design.md", "api")).toBe(false);
    expect(wordIndex("the latest version", "test")).toBe(-1);
    const calls = [
      manage({
        action: "write_file",
        name: "umbrella",
        file_path: "references/api-design.md",
        file_content: "the latest notes",
      }),
    ];
    expect(auditToolCalls("api", calls, destinations)).toBeUndefined();
    expect(auditToolCalls("test", calls, destinations)).toBeUndefined();
  });

  it("the earliest matching call wins and non-destination targets are ignored", () => {
    const calls = [
      manage({ action: "patch", name: "gone-elsewhere", new_string: "foo" }),
      manage({ action: "patch", name: "keeper", new_string: "merged foo here" }),
      manage({ action: "write_file", name: "umbrella", file_path: "references/foo.md", file_content: "" }),
    ];
    expect(auditToolCalls("foo", calls, destinations)?.target).toBe("keeper");
  });
});

describe("scenario 32: the YAML block", () => {
  it("reads the happy path", () => {
    const final = yamlBlock(
      "consolidations:\n  - from: a\n    into: u\n    reason: same thing\nprunings:\n  - name: b\n    reason: obsolete",
    );
    expect(parseStructuredSummary(final)).toEqual({
      consolidations: [{ from: "a", into: "u", reason: "same thing" }],
      prunings: [{ name: "b", reason: "obsolete" }],
    });
  });

  it("missing block, malformed YAML or empty lists → empty", () => {
    const empty = { consolidations: [], prunings: [] };
    expect(parseStructuredSummary("no block here")).toEqual(empty);
    expect(parseStructuredSummary(yamlBlock("consolidations: [\n  - from: a"))).toEqual(empty);
    expect(parseStructuredSummary(yamlBlock("consolidations: []\nprunings: []"))).toEqual(empty);
  });

  it("bare strings are ignored and entries missing required fields are dropped", () => {
    const final = yamlBlock(
      "consolidations:\n  - just-a-string\n  - from: a\n  - into: u\n  - from: c\n    into: u\nprunings:\n  - b\n  - reason: none\n  - name: d",
    );
    expect(parseStructuredSummary(final)).toEqual({
      consolidations: [{ from: "c", into: "u", reason: "" }],
      prunings: [{ name: "d", reason: "" }],
    });
  });
});

describe("scenario 33: reconcile", () => {
  it("the model wins when its umbrella exists (model+audit when the tool calls agree)", () => {
    const final = yamlBlock("consolidations:\n  - from: a\n    into: u\n    reason: overlap\nprunings: []");
    const agrees = classifyPass({
      before: ["a", "u"],
      after: ["u"],
      calls: [manage({ action: "write_file", name: "u", file_path: "references/a.md", file_content: "" })],
      final,
    });
    expect(agrees.consolidated).toMatchObject([
      { name: "a", into: "u", source: "model+audit", reason: "overlap" },
    ]);
    const alone = classifyPass({ before: ["a", "u"], after: ["u"], calls: [], final });
    expect(alone.consolidated).toMatchObject([{ name: "a", into: "u", source: "model" }]);
  });

  it("a hallucinated umbrella → the heuristic target with model_claimed_into", () => {
    const final = yamlBlock("consolidations:\n  - from: a\n    into: ghost-umbrella\n    reason: overlap");
    const result = classifyPass({
      before: ["a", "keeper"],
      after: ["keeper"],
      calls: [manage({ action: "patch", name: "keeper", old_string: "x", new_string: "now also covers a" })],
      final,
    });
    expect(result.consolidated).toEqual([
      expect.objectContaining({
        name: "a",
        into: "keeper",
        source: "tool-call audit (model named missing umbrella)",
        model_claimed_into: "ghost-umbrella",
      }),
    ]);
  });

  it("a hallucinated umbrella without tool-call evidence → pruned (fallback)", () => {
    const final = yamlBlock("consolidations:\n  - from: a\n    into: ghost-umbrella");
    const result = classifyPass({ before: ["a"], after: [], calls: [], final });
    expect(result.consolidated).toEqual([]);
    expect(result.pruned).toMatchObject([
      { name: "a", source: "fallback (model named missing umbrella, no tool-call evidence)" },
    ]);
  });

  it("omissions from the YAML block are caught by the heuristic; YAML prunings are `model`", () => {
    const final = yamlBlock("consolidations: []\nprunings:\n  - name: b\n    reason: dead");
    const result = classifyPass({
      before: ["a", "b", "u"],
      after: ["u"],
      calls: [
        manage({ action: "write_file", name: "u", file_path: "references/a/notes.md", file_content: "" }),
      ],
      final,
    });
    expect(result.consolidated).toMatchObject([
      { name: "a", into: "u", source: "tool-call audit (model omitted from structured block)" },
    ]);
    expect(result.pruned).toEqual([{ name: "b", source: "model", reason: "dead" }]);
  });
});

describe("scenario 34: absorbed_into declarations", () => {
  it("absorbed_into beats everything, including a YAML claim and tool-call evidence", () => {
    const final = yamlBlock("consolidations:\n  - from: a\n    into: other");
    const result = classifyPass({
      before: ["a", "u", "other"],
      after: ["u", "other"],
      calls: [
        manage({ action: "write_file", name: "other", file_path: "references/a.md", file_content: "" }),
        manage({ action: "delete", name: "a", absorbed_into: "u" }),
      ],
      final,
    });
    expect(result.consolidated).toMatchObject([
      { name: "a", into: "u", source: "absorbed_into (model-declared at delete)" },
    ]);
  });

  it('"" is an explicit prune', () => {
    const result = classifyPass({
      before: ["a"],
      after: [],
      calls: [manage({ action: "delete", name: "a", absorbed_into: "" })],
      final: "",
    });
    expect(result.pruned).toMatchObject([{ name: "a", source: 'absorbed_into="" (model-declared prune)' }]);
  });

  it("a target that no longer exists falls through; non-delete and malformed calls are ignored", () => {
    const calls: RecordedCall[] = [
      manage({ action: "delete", name: "a", absorbed_into: "vanished" }),
      manage({ action: "patch", name: "b", absorbed_into: "u" }),
      { name: "skill_manage", args: { _raw: "{not json" } },
      manage({ action: "delete", name: "c", absorbed_into: 42 }),
    ];
    expect([...declaredAbsorptions(calls)]).toEqual([["a", "vanished"]]);
    const result = classifyPass({ before: ["a", "b", "c"], after: [], calls, final: "" });
    expect(result.pruned.map((item) => [item.name, item.source])).toEqual([
      ["a", "no-evidence fallback"],
      ["b", "no-evidence fallback"],
      ["c", "no-evidence fallback"],
    ]);
  });
});

describe("scenario 35: the rename map", () => {
  const prefix = (parts: string[]) => `skillgate ${parts.join(" ")}`;

  it('is "" when nothing was archived', () => {
    expect(renameMapText(buildRenameMap([], [], []), prefix)).toBe("");
  });

  it("caps at 10 lines with `… and K more`, consolidations first", () => {
    const consolidated = Array.from({ length: 8 }, (_, i) => ({
      name: `old-${i}`,
      into: "umb",
      source: "model",
      reason: "",
    }));
    const pruned = Array.from({ length: 4 }, (_, i) => ({ name: `dead-${i}`, source: "model", reason: "" }));
    const text = renameMapText(buildRenameMap(consolidated, pruned, []), prefix);
    const lines = text.split("\n");
    expect(lines[0]).toBe("archived 12 skill(s):");
    expect(lines[1]).toBe("  • old-0 → umb");
    expect(lines).toContain("  • dead-0 — pruned (stale)");
    expect(lines.filter((line) => /→|pruned \(stale\)/.test(line))).toHaveLength(10);
    expect(lines.some((line) => line.trim().endsWith("… and 2 more"))).toBe(true);
    expect(text).toContain("keep an umbrella stable: skillgate curator pin umb");
  });

  it("has the pin hint only after a consolidation", () => {
    const text = renameMapText(
      buildRenameMap([], [{ name: "dead", source: "model", reason: "" }], []),
      prefix,
    );
    expect(text).toContain("dead — pruned (stale)");
    expect(text).not.toContain("curator pin");
  });
});

describe("scenario 30: cron rewrites", () => {
  let home: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-cron-"));
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  it("a merged skill is replaced by its umbrella (deduplicated), a pruned one dropped, skill = first", () => {
    const job: Record<string, unknown> = {
      id: "j1",
      skills: ["a", "b", "keep", "/abs/skills/cat/c/SKILL.md"],
      skill: "a",
    };
    const change = rewriteJob(
      job,
      new Map([
        ["a", "u"],
        ["b", "u"],
      ]),
      new Set(["c"]),
    );
    expect(job.skills).toEqual(["u", "keep"]);
    expect(job.skill).toBe("u");
    expect(change).toEqual({
      before: ["a", "b", "keep", "/abs/skills/cat/c/SKILL.md"],
      after: ["u", "keep"],
      mapped: { a: "u", b: "u" },
      dropped: ["/abs/skills/cat/c/SKILL.md"],
    });
    const legacy: Record<string, unknown> = { id: "j2", skill: "b" };
    rewriteJob(legacy, new Map([["b", "u"]]), new Set());
    expect(legacy).toEqual({ id: "j2", skill: "u", skills: ["u"] });
    const untouched: Record<string, unknown> = { id: "j3", skills: ["x"] };
    expect(rewriteJob(untouched, new Map([["a", "u"]]), new Set(["a"]))).toBeNull();
    expect(untouched).toEqual({ id: "j3", skills: ["x"] });
  });

  it("a name in both maps counts as merged", () => {
    const job: Record<string, unknown> = { skills: ["a"] };
    rewriteJob(job, new Map([["a", "u"]]), new Set(["a"]));
    expect(job.skills).toEqual(["u"]);
  });

  it("rewrites jobs.json keeping every other field, and reports nothing when no job changes", async () => {
    const file = path.join(home, "cron", "jobs.json");
    await fs.mkdir(path.dirname(file), { recursive: true });
    const doc = {
      jobs: [
        { id: "1", name: "daily", prompt: "use a", schedule: "0 9 * * *", skills: ["a"], paused: true },
        { id: "2", name: "other", skills: ["x"] },
      ],
      updated_at: "2026-01-01T00:00:00+00:00",
    };
    await fs.writeFile(file, JSON.stringify(doc));
    const summary = await rewriteCronReferences(
      home,
      new Map([["a", "u"]]),
      new Set(),
      new Date("2026-02-02T00:00:00Z"),
    );
    expect(summary).toMatchObject({ jobs_updated: 1, jobs_scanned: 2 });
    expect(summary.rewrites).toEqual([
      { job_id: "1", job_name: "daily", before: ["a"], after: ["u"], mapped: { a: "u" }, dropped: [] },
    ]);
    const written = JSON.parse(await fs.readFile(file, "utf8"));
    expect(written.jobs[0]).toEqual({
      id: "1",
      name: "daily",
      prompt: "use a",
      schedule: "0 9 * * *",
      skills: ["u"],
      skill: "u",
      paused: true,
    });
    expect(written.jobs[1]).toEqual({ id: "2", name: "other", skills: ["x"] });
    expect(written.updated_at).toBe("2026-02-02T00:00:00.000000+00:00");
    const before = await fs.readFile(file, "utf8");
    const none = await rewriteCronReferences(home, new Map([["zzz", "u"]]), new Set());
    expect(none.jobs_updated).toBe(0);
    expect(await fs.readFile(file, "utf8")).toBe(before);
  });

  it("a corrupt jobs file is reported and left untouched; a missing one is nothing to do", async () => {
    expect(await rewriteCronReferences(home, new Map([["a", "u"]]), new Set())).toMatchObject({
      jobs_updated: 0,
      jobs_scanned: 0,
    });
    const file = path.join(home, "cron", "jobs.json");
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, "{broken");
    const summary = await rewriteCronReferences(home, new Map([["a", "u"]]), new Set());
    expect(summary.error).toMatch(/not valid JSON/);
    expect(await fs.readFile(file, "utf8")).toBe("{broken");
  });
});
