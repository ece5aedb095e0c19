/**
 * Child process for the crash tests: runs one safety operation on a home, so the parent can kill it
 * (SIGKILL, via the `SKILLGATE_CRASH_STEP` hook or a timer) and check what recovery makes of it.
 * Usage: node --import tsx test/safety/crash-child.ts <snapshot|rollback|purge|archive> <home> [snapshot-id]
 * (`archive` archives every live skill in one batch, as the curator's automatic pass does).
 */
import { parseConfig } from "../../src/config/config.js";
import { archiveMany } from "../../src/curator/archive.js";
import { purgeArchived } from "../../src/curator/purge.js";
import { rollbackToSnapshot } from "../../src/curator/rollback.js";
import { createSnapshot } from "../../src/curator/snapshot.js";
import { openLibrary } from "../../src/skills/library.js";

const [mode, home, id] = process.argv.slice(2);
if (!mode || !home)
  throw new Error("usage: crash-child.ts <snapshot|rollback|purge|archive> <home> [snapshot-id]");
const config = parseConfig({});
process.stdout.write("ready\n");
if (mode === "snapshot") await createSnapshot({ home, config, reason: "crash-test" });
else if (mode === "rollback") await rollbackToSnapshot({ home, config, id });
else if (mode === "purge") await purgeArchived({ home, config, days: 1, dryRun: false });
else if (mode === "archive") {
  const library = openLibrary(home, config, { watch: false });
  const entries = (await library.all()).filter((entry) => entry.rootKind === "local");
  const done = await archiveMany(
    entries.map((entry) => ({ entry })),
    { home, config, library, actor: "curator" },
  );
  if (done.failures.length > 0) throw new Error(JSON.stringify(done.failures));
} else throw new Error(`unknown mode ${mode}`);
process.stdout.write("done\n");
