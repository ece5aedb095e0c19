/**
 * Hermes' own parsers, run by the machine's python3: python-dotenv's `dotenv_values` for `.env` and
 * PyYAML's `safe_load` for `config.yaml`. Tests read skillgate's writes back with them.
 */
import { spawnSync } from "node:child_process";

const DOTENV_SCRIPT = `
import json, sys
from dotenv import dotenv_values
print(json.dumps(dotenv_values(sys.argv[1]), ensure_ascii=False))
`;

// Dates become {"$date": iso}; keys PyYAML reads as something else than a string keep a visible type.
const YAML_SCRIPT = `
import datetime, json, sys, yaml
def plain(node):
    if isinstance(node, dict):
        return {(k if isinstance(k, str) else "<%s>%r" % (type(k).__name__, k)): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, (datetime.date, datetime.datetime)):
        return {"$date": node.isoformat()}
    return node
with open(sys.argv[1], "rb") as stream:
    print(json.dumps(plain(yaml.safe_load(stream)), ensure_ascii=False))
`;

function run(script: string, file: string, env: NodeJS.ProcessEnv): unknown {
  const result = spawnSync("python3", ["-c", script, file], { encoding: "utf8", env });
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** `.env` as python-dotenv reads it (interpolating from `env`, default: an empty environment + PATH). */
export function readWithPythonDotenv(
  file: string,
  env: NodeJS.ProcessEnv = { PATH: process.env.PATH },
): Record<string, string | null> {
  return run(DOTENV_SCRIPT, file, env) as Record<string, string | null>;
}

/** `config.yaml` as PyYAML's safe_load reads it. */
export function readWithPyYAML(file: string): unknown {
  return run(YAML_SCRIPT, file, { PATH: process.env.PATH });
}
