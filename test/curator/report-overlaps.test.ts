import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCurator } from "../../src/curator/run.js";
import { libraryFor } from "./harness.js";
import { configWith, freshHomeEachTest } from "./helpers.js";

let home: string;
freshHomeEachTest((made) => {
  home = made;
});

async function skill(name: string, description: string, extra = ""): Promise<void> {
  const dir = path.join(home, "skills", "devops", name);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\nBody of ${name}.\n`,
  );
}

describe("curator run report", () => {
  it("lists overlapping skills as candidates for consolidation in REPORT.md, not in run.json", async () => {
    await skill("cloud-deploy", "Deploy a web application to a cloud server behind an nginx reverse proxy");
    await skill(
      "docker-deploy",
      "Deploy a web application in Docker containers behind an nginx reverse proxy",
    );
    await skill("haiku", "Write a short poem of seventeen syllables");
    await skill("sql-tuning", "Find slow queries and add the missing indexes", "related_skills: [haiku]\n");
    const config = configWith();
    const result = await runCurator({
      home,
      config,
      library: libraryFor(home, config),
      trigger: "manual",
      now: new Date("2026-06-01T12:00:00Z"),
    });
    const report = await fs.readFile(result.reportPath ?? "", "utf8");
    const section = report.split("### Overlapping skills — candidates for consolidation (2)\n")[1] ?? "";
    expect(section).toMatch(/^- `cloud-deploy` ↔ `docker-deploy` — score \d\.\d\d; shared words: .*deploy/m);
    expect(section).toMatch(/^- `haiku` ↔ `sql-tuning` — score \d\.\d\d; named in related_skills/m);
    // The section comes before the recovery hints.
    expect(report.indexOf("## Recovery")).toBeGreaterThan(report.indexOf("### Overlapping skills"));
    const runJson = await fs.readFile(path.join(path.dirname(result.reportPath ?? ""), "run.json"), "utf8");
    expect(runJson).not.toContain("docker-deploy");
  });
});
