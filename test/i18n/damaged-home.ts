/** The damaged home of the completeness and byte tests (see `writeDamagedHome`). */
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { makeCuratorDue, writeTestSkill } from "../support/platform-home.js";

const DAY_MS = 86_400_000;

/** Skill names of the damaged home (data in every locale). */
export const DAMAGED_SKILLS = [
  "pdf-tools",
  "pinned-one",
  "old-stale",
  "linky",
  "outsider",
  "ext-one",
  "leaky",
  "binary",
  "huge",
];

/**
 * Writes the damaged home into `home`, with the files its links lead to in `outside`: skipped skill
 * folders (not UTF-8, over the size limit, SKILL.md linked out), a file linked out of a skill, a category
 * link out of the library holding a stale managed skill, an external skill, a pinned stale skill, a
 * bundled manifest that is a folder, a hub lock and a cron file that are not JSON.
 */
export async function writeDamagedHome(home: string, outside: string, now: Date): Promise<void> {
  await makeCuratorDue(home);
  const skills = path.join(home, "skills");
  await mkdir(path.join(outside, "ext", "ext-one"), { recursive: true });
  await writeFile(
    path.join(outside, "ext", "ext-one", "SKILL.md"),
    "---\nname: ext-one\ndescription: ext-one skill for tests\n---\nbody\n",
  );
  await writeFile(
    path.join(home, "config.yaml"),
    `gateway:\n  admins: ['telegram:1']\nskills:\n  external_dirs: ['${path.join(outside, "ext")}']\ncurator:\n  archive_ttl_days: 1\n`,
  );
  await writeTestSkill(home, "tools", "pdf-tools");
  await writeTestSkill(home, "notes", "pinned-one");
  // Skipped folders: not UTF-8, over the size limit, a SKILL.md linked out of its skill.
  await mkdir(path.join(skills, "tools", "binary"), { recursive: true });
  await writeFile(
    path.join(skills, "tools", "binary", "SKILL.md"),
    Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0xc3, 0x28]),
  );
  await mkdir(path.join(skills, "tools", "huge"), { recursive: true });
  await writeFile(
    path.join(skills, "tools", "huge", "SKILL.md"),
    `---\nname: huge\ndescription: x\n---\n${"x".repeat(1_100_000)}`,
  );
  await mkdir(path.join(skills, "tools", "leaky"), { recursive: true });
  await writeFile(path.join(outside, "SKILL.md"), "---\nname: leaky\ndescription: leaks\n---\nhi\n");
  await symlink(path.join(outside, "SKILL.md"), path.join(skills, "tools", "leaky", "SKILL.md"));
  // A file inside a skill linked out of it.
  await writeTestSkill(home, "tools", "linky");
  await writeFile(path.join(outside, "secret.md"), "secret\n");
  await symlink(path.join(outside, "secret.md"), path.join(skills, "tools", "linky", "notes.md"));
  // A category folder that is a link out of the library, holding a stale managed skill.
  await mkdir(path.join(outside, "cat", "outsider"), { recursive: true });
  await writeFile(
    path.join(outside, "cat", "outsider", "SKILL.md"),
    "---\nname: outsider\ndescription: outsider skill for tests\n---\nhi\n",
  );
  await symlink(path.join(outside, "cat"), path.join(skills, "linked"));
  // Provenance and cron files that cannot be used.
  await mkdir(path.join(skills, ".bundled_manifest"));
  await mkdir(path.join(skills, ".hub"), { recursive: true });
  await writeFile(path.join(skills, ".hub", "lock.json"), "{not json");
  await mkdir(path.join(home, "cron"), { recursive: true });
  await writeFile(path.join(home, "cron", "jobs.json"), "{nope");
  const usage = JSON.parse(await readFile(path.join(skills, ".usage.json"), "utf8")) as Record<
    string,
    object
  >;
  const old = new Date(now.getTime() - 400 * DAY_MS).toISOString();
  for (const name of ["outsider", "pinned-one"]) {
    usage[name] = {
      ...usage["old-stale"],
      last_used_at: old,
      created_at: old,
      state: "stale",
      pinned: name === "pinned-one",
    };
  }
  await writeFile(path.join(skills, ".usage.json"), JSON.stringify(usage));
}
