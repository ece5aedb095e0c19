import { promises as fs } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import YAML from "yaml";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { main } from "../../src/cli/main.js";
import { loadConfig } from "../../src/config/config.js";
import { homePaths } from "../../src/config/home.js";
import { listSnapshots } from "../../src/curator/snapshot.js";
import { createGateway, type Gateway } from "../../src/gateway/gateway.js";
import { finalText, type OpenAIEmulator, startOpenAIEmulator, toolCalls } from "../emulators/openai.js";
import { makeHome, removeHome, skillMd, writeSkill, writeUsage } from "./helpers.js";

const KEY = "sk-wiring-HIDDEN-1234";

let home: string;
let emulator: OpenAIEmulator;
let gateway: Gateway | undefined;

const YAML_SUMMARY =
  "Merged.\n```yaml\nconsolidations:\n  - from: pdf-extract\n    into: pdf-tools\n    reason: same PDF work\nprunings: []\n```";

function mergeScript() {
  return [
    toolCalls({ name: "skill_view", arguments: { name: "pdf-extract" } }),
    toolCalls({
      name: "skill_manage",
      arguments: { action: "create", name: "pdf-tools", content: skillMd("pdf-tools", "All PDF work.") },
    }),
    toolCalls({
      name: "skill_manage",
      arguments: { action: "delete", name: "pdf-extract", absorbed_into: "pdf-tools" },
    }),
    finalText(YAML_SUMMARY),
  ];
}

beforeEach(async () => {
  home = await makeHome();
  emulator = await startOpenAIEmulator();
  await writeSkill(home, "pdf-extract", { description: "Extract text from PDFs." });
  await writeSkill(home, "pdf-merge", { description: "Merge PDFs." });
  const recent = new Date(Date.now() - 86_400_000).toISOString();
  await writeUsage(home, {
    "pdf-extract": { created_by: "agent", use_count: 1, last_used_at: recent },
    "pdf-merge": { created_by: "agent", use_count: 1, last_used_at: recent },
  });
  await fs.writeFile(homePaths(home).env, `CURATOR_LLM_KEY=${KEY}\n`);
  await fs.writeFile(
    homePaths(home).config,
    YAML.stringify({
      auxiliary: {
        curator: { provider: "custom", model: "m", base_url: emulator.baseUrl, api_key: "CURATOR_LLM_KEY" },
      },
      gateway: {
        admins: ["mock:admin"],
        allowed_users: ["mock:reader"],
        health: { enabled: false },
        maintenance: { check_minutes: 600 },
      },
    }),
  );
});

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await emulator.close();
  await removeHome(home);
});

describe("skillgate curator run --consolidate", () => {
  it("--json prints one clean JSON document; progress goes to stderr; a snapshot is named", async () => {
    emulator.push(...mergeScript());
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    stdout.on("data", (chunk: Buffer) => out.push(chunk));
    stderr.on("data", (chunk: Buffer) => err.push(chunk));
    const stdin = Object.assign(new PassThrough(), { isTTY: false });
    const code = await main(["--home", home, "curator", "run", "--consolidate", "--json"], {
      stdin,
      stdout,
      stderr,
      env: {},
    });
    const stdoutText = Buffer.concat(out).toString("utf8");
    const stderrText = Buffer.concat(err).toString("utf8");
    expect(code).toBe(0);
    const doc = JSON.parse(stdoutText);
    expect(doc.consolidated).toEqual([expect.objectContaining({ name: "pdf-extract", into: "pdf-tools" })]);
    expect(doc.snapshot_id).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect((await listSnapshots(home)).map((snapshot) => snapshot.id)).toEqual([doc.snapshot_id]);
    expect(stderrText).toMatch(/\[\d+s\] skill_manage\(action="create", name="pdf-tools"\)/);
    expect(stdoutText + stderrText).not.toContain(KEY);
  });
});

describe("chat preview of a consolidating run", () => {
  it("/curator run --consolidate shows the dry run's proposals and asks for -y; with -y it merges", async () => {
    const config = loadConfig(homePaths(home).config);
    const adapter = createMockAdapter();
    gateway = createGateway({ home, config, adapters: [adapter] });
    await gateway.start();
    emulator.push(
      toolCalls({ name: "skill_view", arguments: { name: "pdf-extract" } }),
      finalText(YAML_SUMMARY),
    );
    const preview = await adapter.shouldReply(
      "/curator run --consolidate",
      ["Consolidation preview", "pdf-extract → pdf-tools — same PDF work", "/curator run --consolidate -y"],
      { user: "admin" },
    );
    expect(preview).not.toContain(KEY);
    // The dry run offered no writing tool and nothing changed.
    expect(emulator.requests[0]?.body.tools?.map((tool) => tool.function.name)).toEqual([
      "skills_list",
      "skills_search",
      "skill_view",
    ]);
    expect(await fs.stat(path.join(homePaths(home).skills, "pdf-extract/SKILL.md"))).toBeTruthy();
    expect(await fs.stat(homePaths(home).archive).catch(() => null)).toBeNull();

    // A reader may not run it at all.
    await adapter.shouldReply("/curator run --consolidate", "admins only", { user: "reader" });

    emulator.push(...mergeScript());
    await adapter.shouldReply(
      "/curator run --consolidate -y",
      ["pdf-extract → pdf-tools", "/curator pin pdf-tools"],
      { user: "admin" },
    );
    expect(await fs.stat(path.join(homePaths(home).skills, "pdf-extract")).catch(() => null)).toBeNull();
    expect(await fs.stat(path.join(homePaths(home).archive, "pdf-extract/SKILL.md"))).toBeTruthy();
    expect(await fs.stat(path.join(homePaths(home).skills, "pdf-tools/SKILL.md"))).toBeTruthy();
  });

  it("a prune-only /curator run needs no preview", async () => {
    const config = loadConfig(homePaths(home).config);
    const adapter = createMockAdapter();
    gateway = createGateway({ home, config, adapters: [adapter] });
    await gateway.start();
    const text = await adapter.shouldReply("/curator run", "prune-only", { user: "admin" });
    expect(text).not.toContain("Consolidation preview");
    expect(emulator.requests).toHaveLength(0);
  });
});
