/** Home fixtures shared by the platform end-to-end tests: skills on disk and a curator that is due. */
import { access, mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { writeSkill } from "../gateway/helpers.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Writes `skills/<category>/<name>/SKILL.md` with a test description; returns the skill's folder. */
export async function writeTestSkill(
  home: string,
  category: string,
  name: string,
  extraFrontmatter = "",
  body = "Do the thing.",
): Promise<string> {
  const dir = path.join(home, "skills", category, name);
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${name} skill for tests\n${extraFrontmatter}---\n\n# ${name}\n\n${body}\n`,
  );
  return dir;
}

/**
 * The two skills every platform's end-to-end test needs: `research/arxiv` (the config disables it on the
 * platform under test) and `tools/weather`, which requires the unset variable `missingSecret`.
 */
export async function writeArxivAndWeather(home: string, missingSecret: string): Promise<void> {
  await writeTestSkill(home, "research", "arxiv");
  await writeTestSkill(
    home,
    "tools",
    "weather",
    `required_environment_variables:\n  - name: ${missingSecret}\n    prompt: Weather API key\n`,
  );
}

/** Makes the curator due on `home`: a stale agent-created skill `old-stale` and a last run a month ago. */
export async function makeCuratorDue(home: string): Promise<void> {
  await writeTestSkill(home, "notes", "old-stale");
  const longAgo = new Date(Date.now() - 200 * DAY_MS).toISOString();
  const usage = {
    "old-stale": {
      created_by: "agent",
      use_count: 1,
      view_count: 0,
      patch_count: 0,
      last_used_at: longAgo,
      last_viewed_at: null,
      last_patched_at: null,
      created_at: longAgo,
      state: "active",
      pinned: false,
      archived_at: null,
    },
  };
  await writeFile(path.join(home, "skills", ".usage.json"), `${JSON.stringify(usage, null, 2)}\n`);
  await writeCuratorLastRun(home, 30);
}

/** Writes `skills/.curator_state` recording one run `daysAgo` days ago (so a 7-day interval is due). */
export async function writeCuratorLastRun(home: string, daysAgo: number): Promise<void> {
  const state = {
    last_run_at: new Date(Date.now() - daysAgo * DAY_MS).toISOString(),
    last_run_duration_seconds: 1,
    last_run_summary: "auto: no changes; llm: skipped",
    last_run_summary_shown_at: null,
    last_report_path: null,
    paused: false,
    run_count: 1,
  };
  await writeFile(path.join(home, "skills", ".curator_state"), `${JSON.stringify(state, null, 2)}\n`);
}

/** The command `devops/deployer` needs; no machine has it on PATH. */
export const MISSING_COMMAND = "skillgate-test-no-such-tool";

/**
 * `devops/deployer`: declares a system command nobody has (`MISSING_COMMAND`) and a setting with no
 * default (`deployer.region`), so its readiness lists both.
 */
export async function writeDeployer(home: string): Promise<void> {
  await writeTestSkill(
    home,
    "devops",
    "deployer",
    `prerequisites:\n  commands: [${MISSING_COMMAND}]\nmetadata:\n  hermes:\n    config:\n      - key: deployer.region\n        description: Region to deploy to\n        prompt: Which region?\n`,
  );
}

/** About 1 MB of numbered lines, so the first and last can be found in what arrives. */
export const BIG_FILE = Array.from(
  { length: 16_000 },
  (_, index) => `line ${String(index).padStart(5, "0")}: ${"lorem ipsum dolor ".repeat(3)}`,
).join("\n");

/** `docs/bigdoc` linking `references/big.md` (`content`), and a `.env` holding `secret` for the scrubber. */
export async function writeBigdoc(home: string, secret: string, content = BIG_FILE): Promise<void> {
  await writeFile(path.join(home, ".env"), `OPENROUTER_API_KEY=${secret}\n`);
  await writeSkill(home, { name: "bigdoc", category: "docs", files: { "references/big.md": content } });
}

/** Every regular file below `dir`, recursively. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** `documents/pdf-tools/SKILL.md` in `home`. */
export const pdfToolsFile = (home: string): string =>
  path.join(home, "skills", "documents", "pdf-tools", "SKILL.md");

/** The file exists. */
export const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );
