/** Reading `<home>/.env`: `KEY=value` lines, optional `export ` prefix, surrounding quotes stripped. */
import { readFileSync } from "node:fs";

/** Parses .env text into a map. Blank lines and `#` comments are ignored; malformed lines are skipped. */
export function parseDotenv(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const rawLine of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    let line = rawLine.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("export ")) line = line.slice(7).trimStart();
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key)) continue;
    let value = line.slice(eq + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0])) {
      value = value.slice(1, -1);
    }
    values.set(key, value);
  }
  return values;
}

/** Reads a .env file; a missing file is an empty map. */
export function readDotenv(file: string): Map<string, string> {
  try {
    return parseDotenv(readFileSync(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw error;
  }
}

/**
 * Looks a secret up: a non-empty value in `<home>/.env` or the process environment (the environment wins
 * when both are set and non-empty, as a service manager's values should).
 */
export function lookupSecret(
  name: string,
  dotenv: Map<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const fromEnv = env[name];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const fromFile = dotenv.get(name);
  return fromFile !== undefined && fromFile !== "" ? fromFile : undefined;
}
