import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import type { SkillgateConfig } from "../../src/config/config.js";
import { homePaths } from "../../src/config/home.js";
import { stableJson } from "../../src/core/fsutil.js";
import { english } from "../../src/core/i18n/messages.js";
import { createConsolidator } from "../../src/curator/consolidate.js";
import { listEntries } from "../../src/curator/ledger.js";
import { DRY_RUN_BANNER, REVIEW_RULES } from "../../src/curator/review-prompt.js";
import { runCurator } from "../../src/curator/run.js";
import { listSnapshots } from "../../src/curator/snapshot.js";
import type { Consolidator } from "../../src/curator/types.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { createModelClient } from "../../src/llm/client.js";
import type { SkillLibrary } from "../../src/skills/types.js";
import { finalText, type OpenAIEmulator, startOpenAIEmulator, toolCalls } from "../emulators/openai.js";
import {
  config,
  library,
  makeHome,
  readUsage,
  removeHome,
  skillMd,
  treeOf,
  writeSkill,
  writeUsage,
} from "./helpers.js";

const KEY = "sk-curator-TOPSECRET-42";
const ENV = { CURATOR_LLM_KEY: KEY };

let home: string;
let emulator: OpenAIEmulator;
let cfg: SkillgateConfig;
let lib: SkillLibrary;
let progress: string[];

function makeConfig(
  extra: Record<string, unknown> = {},
  curator: Record<string, unknown> = {},
): SkillgateConfig {
  return config({
    auxiliary: {
      curator: {
        provider: "custom",
        model: "curator-model",
        base_url: emulator.baseUrl,
        api_key: "CURATOR_LLM_KEY",
        extra_body: { temperature: 0 },
      },
    },
    curator: { consolidate: true, ...curator },
    ...extra,
  });
}

function consolidator(options: { timeoutSeconds?: number } = {}): Consolidator {
  return createConsolidator({
    env: ENV,
    createClient: (model) =>
      createModelClient(
        options.timeoutSeconds ? { ...model, timeoutSeconds: options.timeoutSeconds } : model,
        { maxRetries: 0 },
      ),
  });
}

function run(opts: { dryRun?: boolean; consolidate?: boolean; consolidator?: Consolidator } = {}) {
  return runCurator({
    home,
    config: cfg,
    library: lib,
    trigger: "manual",
    dryRun: opts.dryRun,
    consolidate: opts.consolidate,
    consolidator: opts.consolidator ?? consolidator(),
    progress: (line) => progress.push(english(line)),
  });
}

/** Two overlapping managed PDF skills, a pinned one, an unmanaged one, and a cron job using one of them. */
async function seedLibrary(): Promise<void> {
  await writeSkill(home, "docs/pdf-extract", {
    description: "Extract text from PDF files.",
    files: { "references/ocr.md": "Use OCR for scanned pages.", "scripts/extract.sh": 'pdftotext "$1"' },
  });
  await writeSkill(home, "docs/pdf-merge", { description: "Merge several PDF files into one." });
  await writeSkill(home, "keeper", { description: "A pinned skill the curator must not touch." });
  await writeSkill(home, "handmade", { description: "Written by a person; unmanaged." });
  const recent = new Date(Date.now() - 86_400_000).toISOString();
  await writeUsage(home, {
    "pdf-extract": { created_by: "agent", use_count: 4, last_used_at: recent },
    "pdf-merge": { created_by: "agent", use_count: 2, last_used_at: recent },
    keeper: { created_by: "agent", pinned: true, use_count: 1, last_used_at: recent },
    handmade: { created_by: null, use_count: 9, last_used_at: recent },
  });
  await fs.mkdir(path.dirname(homePaths(home).cronJobs), { recursive: true });
  await fs.writeFile(
    homePaths(home).cronJobs,
    JSON.stringify({
      jobs: [
        { id: "job-1", name: "nightly pdfs", skills: ["pdf-extract", "handmade"], schedule: "0 2 * * *" },
      ],
    }),
  );
}

const UMBRELLA = skillMd(
  "pdf-tools",
  "Everything about PDF files, from extracting text to merging documents.",
  "# PDF tools\n\nSee references/pdf-extract.md and references/pdf-merge.md.\n",
);

const YAML_SUMMARY = [
  "Merged the two PDF skills into one umbrella.",
  "",
  "## Structured summary (required)",
  "```yaml",
  "consolidations:",
  "  - from: pdf-extract",
  "    into: pdf-tools",
  "    reason: same class of task",
  "  - from: pdf-merge",
  "    into: pdf-tools",
  "    reason: same class of task",
  "prunings: []",
  "```",
].join("\n");

/** The model's side of a good merge. */
function scriptMerge(): void {
  emulator.push(
    toolCalls({ name: "skills_list", arguments: {} }),
    toolCalls(
      { name: "skill_view", arguments: { name: "pdf-extract" } },
      { name: "skill_view", arguments: { name: "pdf-merge" } },
    ),
    toolCalls(
      {
        name: "skill_manage",
        arguments: { action: "create", name: "pdf-tools", category: "docs", content: UMBRELLA },
      },
      {
        name: "skill_manage",
        arguments: {
          action: "write_file",
          name: "pdf-tools",
          file_path: "references/pdf-extract.md",
          file_content: "Extraction notes; OCR for scans.",
        },
      },
      {
        name: "skill_manage",
        arguments: {
          action: "write_file",
          name: "pdf-tools",
          file_path: "scripts/extract.sh",
          file_content: 'pdftotext "$1"',
        },
      },
      {
        name: "skill_manage",
        arguments: {
          action: "write_file",
          name: "pdf-tools",
          file_path: "references/pdf-merge.md",
          file_content: "Merging notes.",
        },
      },
    ),
    toolCalls(
      {
        name: "skill_manage",
        arguments: { action: "delete", name: "pdf-extract", absorbed_into: "pdf-tools" },
      },
      {
        name: "skill_manage",
        arguments: { action: "delete", name: "pdf-merge", absorbed_into: "pdf-tools" },
      },
    ),
    finalText(YAML_SUMMARY),
  );
}

beforeEach(async () => {
  home = await makeHome();
  emulator = await startOpenAIEmulator();
  cfg = makeConfig();
  lib = library(home, cfg);
  progress = [];
  await seedLibrary();
});

afterEach(async () => {
  await emulator.close();
  await removeHome(home);
});

describe("consolidation pass", () => {
  it("merges two overlapping skills into an umbrella: ledgered, archived, cron re-pointed, reported", async () => {
    scriptMerge();
    const result = await run();

    // What the client sent.
    const first = emulator.requests[0]?.body;
    expect(emulator.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(first?.model).toBe("curator-model");
    expect(first?.temperature).toBe(0);
    expect(first?.tools?.map((tool) => tool.function.name)).toEqual([
      "skills_list",
      "skills_search",
      "skill_view",
      "skill_manage",
    ]);
    const prompt = String(first?.messages?.find((message) => message.role === "user")?.content);
    expect(prompt).toContain(REVIEW_RULES.split("\n")[0]);
    expect(prompt).toMatch(/- pdf-extract {2}state=active {2}pinned=no {2}cron=yes/);
    expect(prompt).toMatch(/- pdf-merge {2}state=active {2}pinned=no {2}cron=no/);
    expect(prompt).not.toMatch(/- keeper\b/);
    expect(prompt).not.toMatch(/- handmade\b/);
    // Tool results went back to the model.
    const toolMessages =
      emulator.requests.at(-1)?.body.messages?.filter((message) => message.role === "tool") ?? [];
    expect(toolMessages).toHaveLength(9);
    expect(
      toolMessages
        .filter((message) => !String(message.content).includes('"success":true'))
        .map((m) => String(m.content).slice(0, 300)),
    ).toEqual([]);

    // The library.
    expect(result.llm.error).toBeNull();
    expect(result.consolidated).toEqual([
      expect.objectContaining({
        name: "pdf-extract",
        into: "pdf-tools",
        source: "absorbed_into (model-declared at delete)",
      }),
      expect.objectContaining({
        name: "pdf-merge",
        into: "pdf-tools",
        source: "absorbed_into (model-declared at delete)",
      }),
    ]);
    expect(result.added).toEqual(["pdf-tools"]);
    expect(result.changed).toBe(true);
    const skills = homePaths(home).skills;
    expect(await treeOf(path.join(skills, "docs/pdf-tools"))).toMatchObject({
      "SKILL.md": UMBRELLA,
      "references/pdf-extract.md": expect.any(String),
      "scripts/extract.sh": expect.any(String),
    });
    expect(await treeOf(path.join(homePaths(home).archive, "pdf-extract"))).toMatchObject({
      "references/ocr.md": "Use OCR for scanned pages.",
    });
    expect(await fs.stat(path.join(skills, "docs/pdf-merge")).catch(() => null)).toBeNull();
    const usage = await readUsage(home);
    expect(usage["pdf-tools"]?.created_by).toBe("agent");
    expect(usage["pdf-extract"]).toMatchObject({ state: "archived", use_count: 4 });
    // Views by the curator are maintenance, not use.
    expect(usage["pdf-merge"]?.view_count).toBe(0);
    expect(await fs.readFile(path.join(skills, "keeper/SKILL.md"), "utf8")).toContain("A pinned skill");

    // The ledger: every mutation, by the curator.
    const entries = await listEntries(home);
    expect(entries.map((entry) => `${entry.actor}:${entry.action}:${entry.skill}`).reverse()).toEqual([
      "curator:create:pdf-tools",
      "curator:write_file:pdf-tools",
      "curator:write_file:pdf-tools",
      "curator:write_file:pdf-tools",
      "curator:archive:pdf-extract",
      "curator:archive:pdf-merge",
    ]);
    expect(entries[0]?.evidence).toMatchObject({ absorbed_into: "pdf-tools" });

    // Cron references and the report.
    const jobs = JSON.parse(await fs.readFile(homePaths(home).cronJobs, "utf8"));
    expect(jobs.jobs[0]).toMatchObject({
      id: "job-1",
      skills: ["pdf-tools", "handmade"],
      skill: "pdf-tools",
      schedule: "0 2 * * *",
    });
    expect(result.cronRewrites).toMatchObject({ jobs_updated: 1, jobs_scanned: 1 });
    const reportDir = path.dirname(result.reportPath ?? "");
    const rewrites = JSON.parse(await fs.readFile(path.join(reportDir, "cron_rewrites.json"), "utf8"));
    expect(rewrites.rewrites[0]).toMatchObject({ job_id: "job-1", mapped: { "pdf-extract": "pdf-tools" } });
    const report = await fs.readFile(result.reportPath ?? "", "utf8");
    expect(report).toMatch(/^# Curator run — /);
    expect(report).toContain("Model: `curator-model` via `custom`");
    expect(report).toContain("`pdf-extract` → merged into `pdf-tools`");
    expect(report).toContain("### Cron job skill references rewritten");
    expect(report).toContain("## LLM final summary");
    expect(report).toContain(YAML_SUMMARY);
    const runJson = JSON.parse(await fs.readFile(path.join(reportDir, "run.json"), "utf8"));
    expect(runJson).toMatchObject({ model: "curator-model", provider: "custom", llm_error: null });
    expect(runJson.counts).toMatchObject({
      consolidated_this_run: 2,
      added_this_run: 1,
      cron_jobs_rewritten: 1,
      tool_calls_total: 9,
    });
    expect(runJson.tool_call_counts).toEqual({ skills_list: 1, skill_view: 2, skill_manage: 6 });
    expect(result.summary).toContain("pdf-extract → pdf-tools");
    expect(result.summary).toContain("curator pin pdf-tools");

    // A snapshot was taken first, and the terminal saw progress without the key.
    const snapshots = await listSnapshots(home);
    expect(snapshots.map((snapshot) => snapshot.manifest?.reason)).toEqual(["pre-curator-run"]);
    expect(result.snapshotId).toBe(snapshots[0]?.id);
    expect(report).toContain(`curator rollback --id ${result.snapshotId}`);
    expect(progress.some((line) => /^\[\d+s\] skill_view\(name="pdf-extract"\)/.test(line))).toBe(true);
    expect(progress.join("\n")).not.toContain(KEY);
    expect(await fs.readFile(path.join(reportDir, "run.json"), "utf8")).not.toContain(KEY);
  });

  it("a delete without absorbed_into, or into a hallucinated umbrella, is refused and nothing is archived", async () => {
    emulator.push(
      toolCalls({ name: "skill_manage", arguments: { action: "delete", name: "pdf-merge" } }),
      toolCalls({
        name: "skill_manage",
        arguments: { action: "delete", name: "pdf-merge", absorbed_into: "pdf-universe" },
      }),
      finalText(
        "Done.\n```yaml\nconsolidations:\n  - from: pdf-merge\n    into: pdf-universe\n    reason: overlap\n```",
      ),
    );
    const result = await run();
    const tools = emulator.requests.at(-1)?.body.messages?.filter((message) => message.role === "tool") ?? [];
    expect(String(tools[0]?.content)).toContain("absorbed_into");
    expect(String(tools[1]?.content)).toContain("'pdf-universe' does not exist");
    expect(result.consolidated).toEqual([]);
    expect(result.pruned).toEqual([]);
    expect(result.changed).toBe(false);
    expect(await fs.stat(path.join(homePaths(home).skills, "docs/pdf-merge/SKILL.md"))).toBeTruthy();
    expect(await fs.stat(homePaths(home).archive).catch(() => null)).toBeNull();
    expect(progress.some((line) => line.includes("claimed 'pdf-merge' → 'pdf-universe'"))).toBe(true);
  });

  it("a pinned skill stays untouched even when the model goes after it", async () => {
    const before = await fs.readFile(path.join(homePaths(home).skills, "keeper/SKILL.md"), "utf8");
    emulator.push(
      toolCalls({ name: "skill_view", arguments: { name: "keeper" } }),
      toolCalls(
        {
          name: "skill_manage",
          arguments: { action: "patch", name: "keeper", old_string: "How to", new_string: "HACKED" },
        },
        { name: "skill_manage", arguments: { action: "delete", name: "keeper", absorbed_into: "" } },
      ),
      finalText("nothing"),
    );
    const result = await run();
    const tools = emulator.requests.at(-1)?.body.messages?.filter((message) => message.role === "tool") ?? [];
    expect(String(tools[1]?.content)).toContain("pinned");
    expect(String(tools[2]?.content)).toContain("pinned");
    expect(await fs.readFile(path.join(homePaths(home).skills, "keeper/SKILL.md"), "utf8")).toBe(before);
    expect(result.pruned).toEqual([]);
    expect((await listEntries(home)).filter((entry) => entry.skill === "keeper")).toEqual([]);
  });

  it("a model timeout mid-pass leaves the library consistent and the report names the error", async () => {
    emulator.push(
      toolCalls({ name: "skill_view", arguments: { name: "pdf-extract" } }),
      toolCalls({
        name: "skill_manage",
        arguments: { action: "create", name: "pdf-tools", content: UMBRELLA },
      }),
      { kind: "hang" },
    );
    const result = await run({ consolidator: consolidator({ timeoutSeconds: 0.4 }) });
    expect(result.llm.error).toMatch(/did not answer within 0.4s/);
    expect(result.llm.status).toMatch(/^error \(/);
    expect(result.summary).toContain("llm: error (");
    const report = await fs.readFile(result.reportPath ?? "", "utf8");
    expect(report).toContain("> ⚠ LLM pass error: The model curator-model");
    // Everything the model finished is complete; nothing is half-done.
    const skills = homePaths(home).skills;
    for (const name of ["docs/pdf-extract", "docs/pdf-merge", "pdf-tools", "keeper", "handmade"]) {
      expect(await fs.readFile(path.join(skills, name, "SKILL.md"), "utf8")).toMatch(/^---\nname: /);
    }
    expect(result.added).toEqual(["pdf-tools"]);
    expect(result.consolidated).toEqual([]);
    expect((await readUsage(home))["pdf-tools"]?.created_by).toBe("agent");
    expect(JSON.parse(await fs.readFile(homePaths(home).cronJobs, "utf8")).jobs[0].skills).toEqual([
      "pdf-extract",
      "handmade",
    ]);
  });

  it("a dry run sends the report-only banner, offers no writing tool and changes no skill, usage record or archive", async () => {
    const watched = async () => {
      const tree = await treeOf(homePaths(home).skills);
      return Object.fromEntries(
        Object.entries(tree).filter(
          ([file]) => !file.startsWith(".curator_state") && !file.startsWith(".locks"),
        ),
      );
    };
    const before = await watched();
    emulator.push(
      toolCalls({ name: "skill_view", arguments: { name: "pdf-extract" } }),
      toolCalls({
        name: "skill_manage",
        arguments: { action: "delete", name: "pdf-extract", absorbed_into: "" },
      }),
      finalText(YAML_SUMMARY),
    );
    const result = await run({ dryRun: true });
    const first = emulator.requests[0]?.body;
    const prompt = String(first?.messages?.find((message) => message.role === "user")?.content);
    expect(prompt.startsWith(DRY_RUN_BANNER)).toBe(true);
    expect(first?.tools?.map((tool) => tool.function.name)).toEqual([
      "skills_list",
      "skills_search",
      "skill_view",
    ]);
    const refused = emulator.requests.at(-1)?.body.messages?.filter((message) => message.role === "tool")[1];
    expect(String(refused?.content)).toContain("unknown tool 'skill_manage'");
    expect(result.dryRun).toBe(true);
    expect(result.changed).toBe(false);
    expect(result.consolidated.map((item) => `${item.name}→${item.into}`)).toEqual([
      "pdf-extract→pdf-tools",
      "pdf-merge→pdf-tools",
    ]);
    expect(result.consolidated[0]?.source).toBe("dry-run proposal (model)");
    expect(await watched()).toEqual(before);
    expect(await fs.stat(homePaths(home).archive).catch(() => null)).toBeNull();
    expect(await listEntries(home)).toEqual([]);
    expect(await listSnapshots(home)).toEqual([]);
    expect(JSON.parse(await fs.readFile(homePaths(home).cronJobs, "utf8")).jobs[0].skills).toEqual([
      "pdf-extract",
      "handmade",
    ]);
  });

  it("scenario 20: consolidation off or no candidates → no model call; config or flag on → called", async () => {
    cfg = makeConfig({}, { consolidate: false });
    lib = library(home, cfg);
    const off = await run();
    expect(off.llm.status).toBe("skipped (consolidation off)");
    expect(emulator.requests).toHaveLength(0);

    emulator.push(finalText("Nothing to merge.\n```yaml\nconsolidations: []\nprunings: []\n```"));
    const forced = await run({ consolidate: true });
    expect(emulator.requests).toHaveLength(1);
    expect(forced.llm.status).toBe("no change");
    // No change → no cron section and no cron_rewrites.json.
    const report = await fs.readFile(forced.reportPath ?? "", "utf8");
    expect(report).not.toContain("Cron job skill references");
    expect(
      await fs.stat(path.join(path.dirname(forced.reportPath ?? ""), "cron_rewrites.json")).catch(() => null),
    ).toBeNull();

    await writeUsage(home, { keeper: { created_by: "agent", pinned: true } });
    cfg = makeConfig();
    lib = library(home, cfg);
    const none = await run();
    expect(emulator.requests).toHaveLength(1);
    expect(none.llm.status).toMatch(/no candidates/);
  });

  it("stops at curator.max_iterations and reports why", async () => {
    cfg = makeConfig({}, { max_iterations: 2 });
    lib = library(home, cfg);
    emulator.push(
      toolCalls({ name: "skills_list", arguments: {} }),
      toolCalls({ name: "skills_list", arguments: {} }),
      toolCalls({ name: "skills_list", arguments: {} }),
    );
    const result = await run();
    expect(emulator.requests).toHaveLength(2);
    expect(result.llm.error).toMatch(/max_iterations/);
  });

  it("stops at curator.max_seconds even while the model hangs", async () => {
    cfg = makeConfig({}, { max_seconds: 1 });
    lib = library(home, cfg);
    emulator.push(toolCalls({ name: "skills_list", arguments: {} }), { kind: "hang" });
    const result = await run({ consolidator: consolidator({ timeoutSeconds: 30 }) });
    expect(result.llm.error).toMatch(/max_seconds/);
    expect(result.changed).toBe(false);
  });

  it("without a resolvable model the pass reports what to configure and changes nothing", async () => {
    cfg = config({ curator: { consolidate: true } });
    lib = library(home, cfg);
    const result = await run();
    expect(emulator.requests).toHaveLength(0);
    expect(result.llm.error).toMatch(/no model configured/);
    expect(result.changed).toBe(false);
  });

  it("scenario 22: the prompt keeps the invariants and names only the three tools", () => {
    const text = REVIEW_RULES;
    expect(text).toMatch(/pinned/);
    expect(text).toMatch(/Nothing is ever destroyed/);
    expect(text).toMatch(/archive/);
    expect(text).toMatch(/absorbed_into/);
    expect(text).toMatch(/Never pin or unpin/);
    expect(text).toMatch(/Umbrellas first/);
    expect(text).toMatch(/references\/, templates\/, scripts\/ and assets\//);
    expect(text).toMatch(/write_file/);
    expect(text).toMatch(/cron=yes/);
    expect(text).toMatch(/use=0/);
    const toolish = new Set(text.match(/\bskills?_[a-z_]+/g));
    expect([...toolish].sort()).toEqual(["skill_manage", "skill_view", "skills_list"]);
    expect(text).not.toMatch(/terminal/i);
  });
});

describe("maintenance tick with consolidation on", () => {
  /**
   * Starts a gateway over a mock adapter whose curator last ran 30 days ago (so a tick is due), posting to
   * `mock:home-chat`, with these `curator` settings.
   */
  async function startDueGateway(curator: Record<string, unknown>) {
    cfg = makeConfig(
      {
        gateway: {
          home_channel: "mock:home-chat",
          health: { enabled: false },
          maintenance: { check_minutes: 600 },
        },
      },
      curator,
    );
    const longAgo = new Date(Date.now() - 30 * 86_400_000).toISOString();
    await fs.writeFile(
      homePaths(home).curatorState,
      stableJson({ last_run_at: longAgo, paused: false, run_count: 1 }),
    );
    const adapter = createMockAdapter();
    const gateway = createGateway({ home, config: cfg, adapters: [adapter], consolidator: consolidator() });
    await gateway.start();
    return { adapter, gateway };
  }

  it("consolidates when due and posts the rename map to the home chat", async () => {
    scriptMerge();
    const { adapter, gateway } = await startDueGateway({ min_idle_hours: 0 });
    try {
      const outcome = await gateway.runMaintenanceTick();
      expect(outcome).toMatchObject({ ran: true, posted: true });
      const posted = adapter.sent.filter((sent) => sent.target.chatId === "home-chat");
      expect(posted).toHaveLength(1);
      const text = posted[0]?.text ?? "";
      expect(text).toContain("archived 2 skill(s):");
      expect(text).toContain("pdf-extract → pdf-tools");
      expect(text).toContain("pdf-merge → pdf-tools");
      expect(text).toContain("/curator pin pdf-tools");
      expect(text).not.toContain(KEY);
      expect(JSON.parse(await fs.readFile(homePaths(home).cronJobs, "utf8")).jobs[0].skills).toEqual([
        "pdf-tools",
        "handmade",
      ]);
    } finally {
      await gateway.stop();
    }
  });

  it("never consolidates when curator.consolidate is off", async () => {
    const { gateway } = await startDueGateway({ min_idle_hours: 0, consolidate: false });
    try {
      const outcome = await gateway.runMaintenanceTick();
      expect(outcome.ran).toBe(true);
      expect(emulator.requests).toHaveLength(0);
      expect(await fs.stat(path.join(homePaths(home).skills, "docs/pdf-extract/SKILL.md"))).toBeTruthy();
    } finally {
      await gateway.stop();
    }
  });
});
