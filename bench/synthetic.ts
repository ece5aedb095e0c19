/**
 * Synthetic skill libraries for benchmarks: categories, realistic SKILL.md files (frontmatter with
 * metadata, tags, some platform gates and env requirements, a few KB of markdown body) and the support
 * folders real skills carry. Deterministic for a given count.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const WORDS = [
  "parse",
  "render",
  "deploy",
  "review",
  "extract",
  "summarise",
  "convert",
  "monitor",
  "schedule",
  "index",
  "pdf",
  "kubernetes",
  "invoice",
  "postgres",
  "calendar",
  "slides",
  "spreadsheet",
  "email",
  "docker",
  "api",
  "report",
  "image",
  "audio",
  "backup",
  "metrics",
  "release",
  "changelog",
  "search",
  "translate",
  "notes",
];
const CATEGORIES = [
  "devops",
  "data",
  "documents",
  "research",
  "writing",
  "productivity",
  "mlops",
  "security",
  "media",
  "finance",
  "communication",
  "software-development",
  "databases",
  "cloud",
  "design",
  "automation",
  "analytics",
  "education",
  "health",
  "legal",
  "marketing",
  "ops",
  "testing",
  "web",
  "mobile",
];

function pick<T>(list: readonly T[], seed: number): T {
  return list[seed % list.length] as T;
}

function sentence(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(pick(WORDS, seed * 7 + i * 13 + ((i * i) % 11)));
  return out.join(" ");
}

function skillMarkdown(index: number, name: string): string {
  const tags = [pick(WORDS, index), pick(WORDS, index + 5)];
  const lines = [
    "---",
    `name: ${name}`,
    `description: ${sentence(index, 18)}. Use when the user asks to ${pick(WORDS, index + 3)} things.`,
    "version: 1.0.0",
    `author: Team ${pick(CATEGORIES, index)}`,
    "license: MIT",
  ];
  if (index % 17 === 0) lines.push("platforms: [linux, macos]");
  if (index % 23 === 0) {
    lines.push(
      "required_environment_variables:",
      `  - name: ${name.toUpperCase().replace(/-/g, "_")}_TOKEN`,
      "    prompt: API token",
    );
  }
  lines.push(
    "metadata:",
    "  hermes:",
    `    tags: [${tags.join(", ")}]`,
    `    related_skills: [${pick(WORDS, index + 1)}-helper]`,
    "---",
    "",
    `# ${name}`,
    "",
  );
  const sections = 4 + (index % 6);
  for (let s = 0; s < sections; s++) {
    lines.push(`## Step ${s + 1}: ${sentence(index + s, 4)}`, "");
    for (let p = 0; p < 3; p++) lines.push(`${sentence(index * 3 + s * 5 + p, 24)}.`);
    lines.push(
      "",
      "```bash",
      `${pick(WORDS, index + s)} --input data/${pick(WORDS, s)}.json --verbose`,
      "```",
      "",
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Writes `count` skills under `<dir>/skills` (about 90 % in category folders) and returns the skills
 * folder. `dir` acts as the home: it also gets an empty `config.yaml`.
 */
export function buildSyntheticLibrary(dir: string, count: number): string {
  const skills = path.join(dir, "skills");
  mkdirSync(skills, { recursive: true });
  writeFileSync(path.join(dir, "config.yaml"), "skills: {}\n");
  for (let index = 0; index < count; index++) {
    const name = `${pick(WORDS, index)}-${pick(WORDS, Math.floor(index / 7) + 3)}-${index}`;
    const parent = index % 10 === 9 ? skills : path.join(skills, pick(CATEGORIES, index));
    const skillDir = path.join(parent, name);
    mkdirSync(skillDir, { recursive: true });
    writeFileSync(path.join(skillDir, "SKILL.md"), skillMarkdown(index, name));
    if (index % 3 === 0) {
      mkdirSync(path.join(skillDir, "references"), { recursive: true });
      writeFileSync(path.join(skillDir, "references", "api.md"), `# API notes\n\n${sentence(index, 40)}\n`);
    }
    if (index % 5 === 0) {
      mkdirSync(path.join(skillDir, "scripts"), { recursive: true });
      writeFileSync(path.join(skillDir, "scripts", "run.sh"), `#!/bin/sh\necho ${name}\n`);
    }
  }
  return skills;
}
