/**
 * Property suite for the containment rule: random trees of symlinks — skill folders, category folders,
 * SKILL.md files and linked files pointing inside the skill, across skills, outside the roots, at `.env`,
 * dangling, and in loops — driven through list/view/archive/restore/purge from the CLI and list/view/load
 * from chat. Whatever the tree: no forbidden content (the `.env` secret, files outside the owning skill)
 * appears in any output or chat message, and nothing outside the library is written, moved or deleted.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { parseConfig } from "../../src/config/config.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { runCli } from "./cli.js";

const SECRET = "sk-SECRET-0f1e2d3c4b5a69788796a5b4c3d2e1f0";
const FOREIGN = "FOREIGN-CONTENT-never-shown";

/** What one entry of the tree is. */
const kinds = [
  "plain",
  "skillmd-to-env",
  "skillmd-to-other-skill",
  "skillmd-to-outside",
  "skillmd-dangling",
  "skillmd-loop",
  "skillmd-inside",
  "folder-to-outside-checkout",
  "folder-to-other-skill",
  "folder-dangling",
  "folder-loop",
  "ref-to-env",
  "ref-to-outside",
  "ref-inside",
  "category-to-outside",
] as const;
type Kind = (typeof kinds)[number];

async function hashTree(dir: string): Promise<string> {
  const hash = createHash("sha256");
  const walk = async (current: string, rel: string): Promise<void> => {
    let names: string[];
    try {
      names = (await fs.readdir(current)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(current, name);
      const stat = await fs.lstat(full);
      if (stat.isSymbolicLink()) hash.update(`L ${rel}/${name} ${await fs.readlink(full)}\n`);
      else if (stat.isDirectory()) {
        hash.update(`D ${rel}/${name}\n`);
        await walk(full, `${rel}/${name}`);
      } else hash.update(`F ${rel}/${name} ${await fs.readFile(full, "utf8")}\n`);
    }
  };
  await walk(dir, "");
  return hash.digest("hex");
}

const skillText = (name: string, extra = "") =>
  `---\nname: ${name}\ndescription: ${name} skill\n---\n\n# ${name}\n\nBody of ${name}. ${extra}\n`;

async function buildTree(
  base: string,
  plan: Kind[],
): Promise<{ home: string; outside: string; names: string[] }> {
  const home = path.join(base, "home");
  const outside = path.join(base, "outside");
  const skills = path.join(home, "skills");
  await fs.mkdir(skills, { recursive: true });
  await fs.writeFile(path.join(home, ".env"), `OPENROUTER_API_KEY=${SECRET}\n`);
  await fs.mkdir(path.join(outside, "checkout", "references"), { recursive: true });
  // The checkout is a whole skill folder linked in on purpose: its own files may be shown.
  await fs.writeFile(path.join(outside, "checkout", "SKILL.md"), skillText("checkout"));
  await fs.writeFile(path.join(outside, "checkout", "references", "ok.md"), "checkout notes\n");
  await fs.writeFile(path.join(outside, "foreign.md"), skillText("foreign", FOREIGN));
  await fs.mkdir(path.join(outside, "cat", "incat"), { recursive: true });
  await fs.writeFile(path.join(outside, "cat", "incat", "SKILL.md"), skillText("incat"));
  // A skill whose own file is foreign to every other skill.
  await fs.mkdir(path.join(skills, "anchor"), { recursive: true });
  await fs.writeFile(path.join(skills, "anchor", "SKILL.md"), skillText("anchor"));
  await fs.writeFile(path.join(skills, "anchor", "private.md"), `${FOREIGN} of anchor\n`);
  const names: string[] = ["anchor"];
  for (const [index, kind] of plan.entries()) {
    const name = `s${index}`;
    const dir = path.join(skills, "cat", name);
    const link = (target: string, at: string) => fs.symlink(target, at);
    names.push(name);
    if (kind.startsWith("folder-") || kind === "category-to-outside") {
      await fs.mkdir(path.dirname(dir), { recursive: true });
      if (kind === "folder-to-outside-checkout")
        await link(path.relative(path.dirname(dir), path.join(outside, "checkout")), dir);
      else if (kind === "folder-to-other-skill") await link("../anchor", dir);
      else if (kind === "folder-dangling") await link("../nowhere", dir);
      else if (kind === "folder-loop") await link(name, dir);
      else await link(path.join(outside, "cat"), path.join(skills, `linkedcat${index}`));
      continue;
    }
    await fs.mkdir(dir, { recursive: true });
    const skillMd = path.join(dir, "SKILL.md");
    if (kind === "skillmd-to-env") await link("../../../../.env", skillMd);
    else if (kind === "skillmd-to-other-skill") await link("../../anchor/private.md", skillMd);
    else if (kind === "skillmd-to-outside") await link(path.join(outside, "foreign.md"), skillMd);
    else if (kind === "skillmd-dangling") await link("missing.md", skillMd);
    else if (kind === "skillmd-loop") await link("SKILL.md", skillMd);
    else if (kind === "skillmd-inside") {
      await fs.writeFile(path.join(dir, "real.md"), skillText(name));
      await link("real.md", skillMd);
    } else await fs.writeFile(skillMd, skillText(name));
    if (kind.startsWith("ref-")) {
      await fs.mkdir(path.join(dir, "references"), { recursive: true });
      const ref = path.join(dir, "references", "r.md");
      if (kind === "ref-to-env") await link("../../../../../.env", ref);
      else if (kind === "ref-to-outside") await link(path.join(outside, "foreign.md"), ref);
      else await fs.writeFile(ref, "inside notes\n");
    }
  }
  return { home, outside, names };
}

function clean(text: string): void {
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(FOREIGN);
}

describe("random symlink trees", () => {
  it("never show a secret or foreign content, and never touch anything outside the library", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...kinds), { minLength: 1, maxLength: 6 }), async (plan) => {
        const base = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-prop-"));
        try {
          const { home, outside, names } = await buildTree(base, plan);
          const outsideBefore = await hashTree(outside);
          const envBefore = await fs.readFile(path.join(home, ".env"), "utf8");
          const outputs: string[] = [];
          const cli = async (args: string[]) => {
            const run = await runCli(home, args);
            outputs.push(run.stdout, run.stderr);
            return run;
          };
          await cli(["skills", "list"]);
          await cli(["skills", "list", "--json"]);
          for (const name of [...names, "checkout", "incat"]) {
            await cli(["skills", "view", name]);
            await cli(["skills", "view", name, "references/r.md", "--json"]);
            await cli(["skills", "view", `cat/${name}`]);
          }
          // Chat: list, view and load every name through the gateway.
          const mock = createMockAdapter({ platform: "discord" });
          const gateway = createGateway({
            home,
            config: parseConfig({ gateway: { admins: ["discord:admin"], health: { enabled: false } } }),
            adapters: [mock],
          });
          mock.settle = () => gateway.whenIdle();
          await gateway.start();
          try {
            for (const text of [
              "/skills list",
              "/help",
              ...names.flatMap((name) => [`/${name}`, `/skills view ${name} references/r.md`]),
            ])
              await mock.request(text, { user: "admin" }, 5000);
            await gateway.whenIdle();
          } finally {
            await gateway.stop();
          }
          for (const sent of mock.sent) outputs.push(sent.text);
          outputs.push(JSON.stringify(mock.catalogs));
          // Mutations: archive and restore every name, then purge everything archived.
          for (const name of [...names, "checkout", "incat"]) {
            await cli(["curator", "archive", name]);
            await cli(["curator", "list-archived"]);
            await cli(["curator", "restore", name]);
            await cli(["curator", "archive", name]);
          }
          const usageFile = path.join(home, "skills", ".usage.json");
          const usage = JSON.parse(await fs.readFile(usageFile, "utf8").catch(() => "{}"));
          for (const record of Object.values(usage) as { archived_at?: string | null }[])
            if (record.archived_at) record.archived_at = "2001-01-01T00:00:00.000000+00:00";
          await fs.writeFile(usageFile, JSON.stringify(usage));
          await cli(["curator", "purge", "--days", "1", "-y"]);
          await cli(["curator", "ledger"]);
          for (const output of outputs) clean(output);
          expect(await hashTree(outside)).toBe(outsideBefore);
          expect(await fs.readFile(path.join(home, ".env"), "utf8")).toBe(envBefore);
        } finally {
          await fs.rm(base, { recursive: true, force: true });
        }
      }),
      { numRuns: 12, seed: 1212 },
    );
  }, 240_000);
});
