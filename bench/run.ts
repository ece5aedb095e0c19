/**
 * `npm run bench`: runs every benchmark script in this folder, one after another in fresh processes, so
 * each one's memory and timing figures are its own. Pass names to run a subset: `npm run bench -- snapshot`.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";

const here = import.meta.dirname;
const wanted = process.argv.slice(2);
const scripts = readdirSync(here)
  .filter((file) => file.endsWith(".ts") && !["run.ts", "synthetic.ts"].includes(file))
  .filter((file) => wanted.length === 0 || wanted.includes(path.basename(file, ".ts")))
  .sort();

let failures = 0;
for (const script of scripts) {
  console.log(`\n=== bench/${script}`);
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(here, script)], {
    stdio: "inherit",
  });
  if (result.status !== 0) {
    failures += 1;
    console.log(`bench/${script} exited with ${result.status ?? result.signal}`);
  }
}
process.exit(failures > 0 ? 1 : 0);
