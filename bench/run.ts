/**
 * `npm run bench`: the ratio table (`bench/ratios.ts`; its flags `--50k`, `--quick`, `--gateway` and
 * `--only <groups>` pass through).
 * `npm run bench -- all` runs every benchmark script in this folder instead, one after another in fresh
 * processes, so each one's memory and timing figures are its own; names run a subset:
 * `npm run bench -- snapshot gateway`. `npm run bench -- --scale` compares one gateway with a coordinated one.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";

const here = import.meta.dirname;
const args = process.argv.slice(2);
// `--only <groups>` takes a value: it passes through with its flag and is not a script name.
const onlyAt = args.indexOf("--only");
const onlyValue = onlyAt >= 0 ? onlyAt + 1 : -1;
const flags = args.filter((arg, i) => arg.startsWith("--") || i === onlyValue);
const names = args.filter((arg, i) => !arg.startsWith("--") && i !== onlyValue);
// `--scale`: several gateways on one home through Redis against one gateway alone (bench/scale.ts).
const wanted = flags.includes("--scale")
  ? ["scale"]
  : names.length === 0
    ? ["ratios"]
    : names.includes("all")
      ? []
      : names;
const scripts = readdirSync(here)
  .filter((file) => file.endsWith(".ts") && !["run.ts", "synthetic.ts"].includes(file))
  .filter((file) => wanted.length > 0 || file !== "ratios.ts")
  .filter((file) => wanted.length === 0 || wanted.includes(path.basename(file, ".ts")))
  .sort();

let failures = 0;
for (const script of scripts) {
  console.log(`\n=== bench/${script}`);
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(here, script), ...flags], {
    stdio: "inherit",
  });
  if (result.status !== 0) {
    failures += 1;
    console.log(`bench/${script} exited with ${result.status ?? result.signal}`);
  }
}
process.exit(failures > 0 ? 1 : 0);
