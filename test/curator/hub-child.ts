/**
 * Child process of the hub crash tests: runs one hub change on a home (`install`, `update` or
 * `uninstall` of the test package), so the parent can kill it at a crash point (`SKILLGATE_CRASH_AT`).
 */
import { parseConfig } from "../../src/config/config.js";
import { installPlan, planInstall, uninstallHubSkill, updatePlan } from "../../src/curator/hub.js";
import type { FetchedPackage } from "../../src/skills/hub/sources.js";

/** The test package at version `version`. */
export function testPackage(version: string): FetchedPackage {
  return {
    name: "notes",
    files: [
      {
        path: "SKILL.md",
        bytes: Buffer.from(`---\nname: notes\ndescription: Notes\nversion: ${version}\n---\nWrite notes.\n`),
      },
      { path: "refs/guide.md", bytes: Buffer.from(`guide ${version}\n`) },
    ],
    odd: [],
    source: "url",
    identifier: "https://hub.example/notes.tar.gz",
    trustLevel: "community",
    sourceUrl: "https://hub.example/notes.tar.gz",
    version,
    metadata: {},
  };
}

if (process.argv[1]?.endsWith("hub-child.ts")) {
  const [home, op] = process.argv.slice(2) as [string, string];
  const opts = { home, config: parseConfig({}), actor: "user" as const, now: () => new Date() };
  if (op === "install") await installPlan(opts, planInstall(testPackage("1.0.0")), []);
  else if (op === "update") await updatePlan(opts, planInstall(testPackage("2.0.0")));
  else await uninstallHubSkill(opts, "notes");
  process.stdout.write("done\n");
}
