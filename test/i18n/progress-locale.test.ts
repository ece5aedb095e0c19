/**
 * A curator run's progress lines follow LANG. The built CLI (`dist/src/cli/main.js`: `npm run build`
 * first) runs `curator run` on two copies of a home whose run archives a stale agent-created skill:
 * under zh_CN the progress lines on stderr are Chinese (no English sentence outside names and ids),
 * under en_US they are the lines skillgate always printed, byte for byte, and the `--json` document on
 * stdout is the same bytes under both (the home's path and the clock aside). The consolidation pass's
 * lines (a model's tool calls, their refusals, the deprecated block's note, backups off, a claimed merge
 * not done, cron jobs re-pointed, the pass's end and its stop reason) are collected from a run against
 * the scripted model server and resolved in both locales; a write the fence refuses reads the same way.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { SkillgateConfig } from "../../src/config/config.js";
import { homePaths } from "../../src/config/home.js";
import { FencedError, setWriteFence } from "../../src/core/fence.js";
import { english, resolveText, type Text } from "../../src/core/i18n/messages.js";
import { silentLogger } from "../../src/core/logger.js";
import { createConsolidator } from "../../src/curator/consolidate.js";
import { runCurator } from "../../src/curator/run.js";
import { leadershipFence, recordLeadership } from "../../src/gateway/coordination/leadership.js";
import { createModelClient } from "../../src/llm/client.js";
import { finalText, type OpenAIEmulator, startOpenAIEmulator, toolCalls } from "../emulators/openai.js";
import { config, library, makeHome, removeHome, skillMd, writeSkill, writeUsage } from "../llm/helpers.js";
import { makeCuratorDue } from "../support/platform-home.js";
import { expectChinese, runCli } from "./complete-support.js";

// Each test spawns the CLI a few times (with a full test run beside it on two cores).
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

/** The lines of a stream, without the last newline. */
function linesOf(text: string): string[] {
  return text.replace(/\n$/, "").split("\n");
}

/**
 * A `--json` document with the home's path and the clock's marks masked: times, snapshot and run ids
 * (with the `-2` a second id within the same second gets).
 */
function comparable(json: string, home: string): string {
  return json
    .split(home)
    .join("<home>")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}(?:\.\d+)?(?:Z(?:-\d+)?|\+00:00)/g, "<time>")
    .replace(/\d{8}-\d{6}(?:-\d+)?/g, "<run>");
}

const SNAPSHOT_ID = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z(?:-\d+)?$/;

describe("curator run's progress on the command line", () => {
  let dir = "";
  let homes: { en: string; zh: string };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "skillgate-progress-"));
    const template = path.join(dir, "template");
    await makeCuratorDue(template);
    // Two copies of one home; paths of one length.
    homes = { en: path.join(dir, "home-en"), zh: path.join(dir, "home-zh") };
    await cp(template, homes.en, { recursive: true, preserveTimestamps: true });
    await cp(template, homes.zh, { recursive: true, preserveTimestamps: true });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a dry run, then a run that archives: Chinese lines under zh_CN, today's English under en_US, the same --json", async () => {
    for (const args of [
      ["curator", "run", "--dry-run", "--json"],
      ["curator", "run", "--json"],
    ]) {
      const [en, zh] = await Promise.all([
        runCli(["--home", homes.en, ...args], "en_US.UTF-8", 90_000),
        runCli(["--home", homes.zh, ...args], "zh_CN.UTF-8", 90_000),
      ]);
      const label = args.join(" ");
      expect(en.code, `${label}: ${en.stderr}`).toBe(0);
      expect(zh.code, `${label}: ${zh.stderr}`).toBe(0);
      expect(comparable(zh.stdout, homes.zh), label).toBe(comparable(en.stdout, homes.en));
      const enDoc = JSON.parse(en.stdout) as { snapshot_id: string | null; archived: string[] };
      const zhDoc = JSON.parse(zh.stdout) as { snapshot_id: string | null };
      const dryRun = args.includes("--dry-run");
      if (dryRun) {
        expect(en.stderr).toBe("running DRY-RUN (report only, no mutations)...\n");
        expect(enDoc.snapshot_id).toBeNull();
      } else {
        // The run changed something: the stale skill was archived after a snapshot.
        expect(enDoc.archived).toEqual(["old-stale"]);
        expect(enDoc.snapshot_id).toMatch(SNAPSHOT_ID);
        expect(en.stderr).toBe(`running review pass...\nsnapshot created (${enDoc.snapshot_id})\n`);
        expect(zh.stderr).toContain(String(zhDoc.snapshot_id));
      }
      const zhLines = linesOf(zh.stderr);
      expect(zhLines, label).toHaveLength(linesOf(en.stderr).length);
      for (const line of zhLines) expectChinese(line);
    }
  });
});

describe("the consolidation pass's progress lines", () => {
  const KEY_VAR = { CURATOR_LLM_KEY: "sk-progress-test" };
  let home: string;
  let emulator: OpenAIEmulator;

  beforeEach(async () => {
    home = await makeHome();
    emulator = await startOpenAIEmulator();
    await writeSkill(home, "docs/pdf-extract", { description: "Extract text from PDF files." });
    await writeSkill(home, "docs/pdf-merge", { description: "Merge several PDF files into one." });
    const recent = new Date(Date.now() - 86_400_000).toISOString();
    await writeUsage(home, {
      "pdf-extract": { created_by: "agent", use_count: 4, last_used_at: recent },
      "pdf-merge": { created_by: "agent", use_count: 2, last_used_at: recent },
    });
    await mkdir(path.dirname(homePaths(home).cronJobs), { recursive: true });
    await writeFile(
      homePaths(home).cronJobs,
      JSON.stringify({
        jobs: [{ id: "job-1", name: "nightly", skills: ["pdf-extract"], schedule: "0 2 * * *" }],
      }),
    );
  });
  afterEach(async () => {
    setWriteFence(home, undefined);
    await emulator.close();
    await removeHome(home);
  });

  /** Runs the curator with the scripted model and returns the progress texts it produced. */
  async function progressOf(cfg: SkillgateConfig): Promise<Text[]> {
    const texts: Text[] = [];
    await runCurator({
      home,
      config: cfg,
      library: library(home, cfg),
      trigger: "manual",
      consolidate: true,
      consolidator: createConsolidator({
        env: KEY_VAR,
        createClient: (model) => createModelClient(model, { maxRetries: 0 }),
      }),
      progress: (line) => texts.push(line),
    });
    return texts;
  }

  /**
   * Each text in English and in Chinese: the English as skillgate always printed it (matching `english`),
   * the Chinese with no English sentence left besides `names` and the data a line carries (a tool call
   * as the model made it, the tool's refusal the model read).
   */
  function resolved(texts: Text[], names: readonly string[]): { en: string[]; zh: string[] } {
    const en = texts.map((text) => resolveText(text, "en"));
    const zh = texts.map((text) => resolveText(text, "zh-CN"));
    en.forEach((line, index) => {
      expect(line).toBe(english(texts[index] ?? ""));
      const call = /^\[\d+s\] (.+?)(?: → refused: (.*))?$/.exec(line);
      const data = call ? [call[1] ?? "", call[2] ?? ""].filter(Boolean) : [];
      expectChinese(zh[index] ?? "", [...names, ...data]);
    });
    return { en, zh };
  }

  it("a merge: the snapshot, each tool call, a claimed merge not done, cron re-pointed, the pass's end", async () => {
    emulator.push(
      toolCalls({ name: "skills_list", arguments: {} }),
      toolCalls(
        {
          name: "skill_manage",
          arguments: {
            action: "create",
            name: "pdf-tools",
            category: "docs",
            content: skillMd("pdf-tools", "PDFs."),
          },
        },
        { name: "skill_manage", arguments: { action: "delete", name: "pdf-merge" } },
        { name: "skill_view", arguments: "{not json" },
      ),
      toolCalls({
        name: "skill_manage",
        arguments: { action: "delete", name: "pdf-extract", absorbed_into: "pdf-tools" },
      }),
      finalText(
        [
          "Merged.",
          "```yaml",
          "consolidations:",
          "  - from: pdf-extract",
          "    into: pdf-tools",
          "    reason: same task",
          "  - from: pdf-merge",
          "    into: pdf-tools",
          "    reason: same task",
          "prunings: []",
          "```",
        ].join("\n"),
      ),
    );
    const cfg = config({
      auxiliary: {
        curator: { provider: "custom", model: "m", base_url: emulator.baseUrl, api_key: "CURATOR_LLM_KEY" },
      },
      curator: { consolidate: true },
    });
    const texts = await progressOf(cfg);
    const { en, zh } = resolved(texts, ["pdf-extract", "pdf-merge", "pdf-tools"]);
    const snapshot = /^snapshot created \((\S+)\)$/.exec(en[1] ?? "")?.[1] ?? "";
    expect(snapshot).toMatch(SNAPSHOT_ID);
    const lines = en.map((line) => line.replace(/^\[\d+s\]/, "[Ns]"));
    expect(lines).toEqual([
      "running review pass...",
      `snapshot created (${snapshot})`,
      "[Ns] skills_list()",
      '[Ns] skill_manage(action="create", name="pdf-tools", category="docs")',
      expect.stringMatching(
        /^\[Ns\] skill_manage\(action="delete", name="pdf-merge"\) → refused: .*absorbed_into/,
      ),
      "[Ns] skill_view(<unparsable arguments>) → refused: arguments were not a JSON object; call the tool again with valid JSON",
      '[Ns] skill_manage(action="delete", name="pdf-extract", absorbed_into="pdf-tools")',
      "[Ns] model pass finished: 5 tool call(s)",
      "note: the model claimed 'pdf-merge' → 'pdf-tools', but 'pdf-merge' is still in the library",
      "cron: 1 job(s) re-pointed",
    ]);
    expect(zh[0]).toBe("正在审查……");
    expect(zh[1]).toBe(`已创建快照（${snapshot}）`);
    expect(zh[4]).toContain("→ 被拒绝：");
    expect(zh[5]).toMatch(/^\[\d+ 秒\] skill_view\(<无法解析的参数>\) → 被拒绝：arguments were not/);
    expect(zh[7]).toMatch(/^\[\d+ 秒\] 模型处理结束：5 次工具调用$/);
    expect(zh[8]).toContain("'pdf-merge'");
    expect(zh[9]).toContain("1");
  });

  it("the deprecated block's note, backups off, and a pass stopped by curator.max_iterations", async () => {
    emulator.push(
      toolCalls({ name: "skills_list", arguments: {} }),
      toolCalls({ name: "skill_view", arguments: { name: "pdf-merge" } }),
    );
    const cfg = config({
      curator: {
        consolidate: true,
        max_iterations: 2,
        backup: { enabled: false },
        auxiliary: { provider: "custom", model: "m", base_url: emulator.baseUrl, api_key: "CURATOR_LLM_KEY" },
      },
    });
    const texts = await progressOf(cfg);
    const { en, zh } = resolved(texts, ["pdf-merge"]);
    expect(en.map((line) => line.replace(/^\[\d+s\]/, "[Ns]"))).toEqual([
      "running review pass...",
      "using the deprecated `curator.auxiliary` block; move it to `auxiliary.curator` (same keys)",
      "backups are disabled (curator.backup.enabled: false); consolidating without a snapshot",
      "[Ns] skills_list()",
      '[Ns] skill_view(name="pdf-merge")',
      "[Ns] model pass finished: 2 tool call(s), error: stopped after 2 model turns (curator.max_iterations) before the model finished; raise it or run again",
    ]);
    expect(zh[5]).toMatch(/^\[\d+ 秒\] 模型处理结束：2 次工具调用，错误：.*curator\.max_iterations/);
  });

  it("a write the fence refuses: the same English message, the write named in the reader's words", async () => {
    await recordLeadership(home, 5, "b");
    setWriteFence(home, leadershipFence(home, { epoch: 4, valid: () => true }, silentLogger()));
    const cfg = config({ curator: { enabled: true } });
    const error = await runCurator({
      home,
      config: cfg,
      library: library(home, cfg),
      trigger: "manual",
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FencedError);
    const fenced = error as FencedError;
    const reason = `the library's leader record holds epoch 5 (b on ${os.hostname()}), not this replica's 4`;
    expect(fenced.message).toBe(
      `a curator run was refused: ${reason}. Another replica writes this library now; nothing was changed here.`,
    );
    expect(english(fenced.text)).toBe(fenced.message);
    // The reason is in the reader's words too: only the host and replica names stay as they are.
    const zh = resolveText(fenced.text, "zh-CN");
    expect(zh.startsWith("管理器的一次运行被拒绝：技能库的领导者记录是任期 5")).toBe(true);
    expectChinese(zh, [os.hostname()]);
  });
});
