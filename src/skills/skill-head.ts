/**
 * Reading one SKILL.md head for the listing: its first 4000 characters (a bounded read, a fast path for
 * plain ASCII), the frontmatter and first body line, the description, and the gates (platform and
 * environment) that decide whether the skill shows. Also what the persistent index may store of a head.
 */
import { isAscii } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";
import { parseFrontmatterBlock, parseSkillMd } from "./frontmatter.js";
import type { SkillHead } from "./scan-cache.js";
import { withFrontmatterText } from "./text-head.js";
import {
  detectEnvironments,
  type RuntimeEnvironments,
  skillMatchesEnvironment,
  skillMatchesPlatform,
} from "./visibility.js";

/** How much of each SKILL.md listing reads. */
export const HEAD_CHARS = 4000;

const decoder = new TextDecoder("utf-8", { fatal: true });
const buffer = Buffer.allocUnsafe(HEAD_CHARS * 4);

/** Reads the first 4000 characters of a UTF-8 file (at most 16000 bytes), newlines normalised. */
export function readHead(file: string): string {
  const fd = openSync(file, "r");
  try {
    return decodeAll(fd, readSync(fd, buffer, 0, HEAD_CHARS, 0));
  } finally {
    closeSync(fd);
  }
}

/** Decodes `length` bytes already in `buffer` (reading on for multi-byte text) into the 4000-char head. */
function decodeAll(fd: number, length: number): string {
  let text = decodeHead(buffer.subarray(0, length), length < HEAD_CHARS);
  if (length === HEAD_CHARS && text.length < HEAD_CHARS) {
    // Multi-byte characters: read on until 4000 characters are in hand.
    const total = length + readSync(fd, buffer, length, buffer.length - length, length);
    text = decodeHead(buffer.subarray(0, total), total < buffer.length);
  }
  if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
  return text.length > HEAD_CHARS ? text.slice(0, HEAD_CHARS) : text;
}

function decodeHead(bytes: Uint8Array, complete: boolean): string {
  if (complete) return decoder.decode(bytes);
  // The cut may split a character: decode up to the last complete one.
  let end = bytes.length;
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && ((bytes[end - back - 1] as number) & 0xc0) === 0x80) back += 1;
  const lead = bytes[end - back - 1];
  if (lead !== undefined && lead >= 0xc0) {
    const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (back + 1 < needed) end = end - back - 1;
  }
  return decoder.decode(bytes.subarray(0, end));
}

/** First non-empty body line that is not a `#` heading. */
export function firstBodyLine(body: string): string {
  for (const raw of body.trim().split("\n")) {
    const line = raw.trim();
    if (line !== "" && !line.startsWith("#")) return line;
  }
  return "";
}

/** Description rule: the frontmatter value, else the first body line; over 1024 → 1021 chars + `...`. */
export function describe(frontmatter: Record<string, unknown>, body: string): string {
  const declared = frontmatter.description;
  let description = declared === undefined || declared === null ? "" : String(declared).trim();
  if (description === "") description = firstBodyLine(body);
  return description.length > 1024 ? `${description.slice(0, 1021)}...` : description;
}

/** The description taken from the frontmatter alone ("" when it has none and the body decides). */
export function declaredDescription(frontmatter: Record<string, unknown>): string {
  const declared = frontmatter.description;
  const description = declared === undefined || declared === null ? "" : String(declared).trim();
  return description.length > 1024 ? `${description.slice(0, 1021)}...` : description;
}

/** The category of a SKILL.md path relative to its root: the first folder when nested two deep. */
export function categoryOf(relFile: string): string | null {
  const slash = relFile.indexOf("/");
  return slash >= 0 && relFile.indexOf("/", slash + 1) >= 0 ? relFile.slice(0, slash) : null;
}

/**
 * The OS and environment gates, remembered per distinct `platforms:` / `environments:` value (the gates
 * read nothing else), so thousands of skills cost a handful of checks.
 */
export class Gates {
  private readonly platforms = new Map<string, boolean>();
  private readonly environments = new Map<string, boolean>();

  constructor(readonly runtime: RuntimeEnvironments = detectEnvironments()) {}

  /** The `platforms:` gate of `frontmatter` on this OS. */
  osOk(frontmatter: Record<string, unknown>): boolean {
    const value = frontmatter.platforms;
    if (value === undefined || value === null) return true;
    const key = JSON.stringify(value);
    let result = this.platforms.get(key);
    if (result === undefined) {
      result = skillMatchesPlatform({ platforms: value });
      this.platforms.set(key, result);
    }
    return result;
  }

  /** The `environments:` gate of `frontmatter` here. */
  envOk(frontmatter: Record<string, unknown>): boolean {
    const value = frontmatter.environments;
    if (value === undefined || value === null) return true;
    const key = JSON.stringify(value);
    let result = this.environments.get(key);
    if (result === undefined) {
      result = skillMatchesEnvironment({ environments: value }, this.runtime);
      this.environments.set(key, result);
    }
    return result;
  }
}

/**
 * Builds a head from parsed frontmatter. `description` is the final description when known, or a
 * function giving the body (called only when the frontmatter has no description).
 */
export function buildHead(
  frontmatter: Record<string, unknown>,
  description: string | (() => string),
  dirName: string,
  gates: Gates,
): SkillHead {
  const rawName = frontmatter.name;
  const declaredName =
    rawName === undefined || rawName === null || rawName === "" ? undefined : String(rawName).trim();
  let text = typeof description === "string" ? description : declaredDescription(frontmatter);
  if (typeof description !== "string" && text === "") text = describe({}, description());
  return {
    name: (declaredName || dirName).slice(0, 64),
    declaredName,
    frontmatterName: typeof rawName === "string" ? rawName : undefined,
    description: text,
    frontmatter,
    osOk: gates.osOk(frontmatter),
    envOk: gates.envOk(frontmatter),
  };
}

/** Builds the head of one SKILL.md text. */
export function headFromText(text: string, dirName: string, gates: Gates): SkillHead {
  const { frontmatter, body } = parseSkillMd(text);
  return buildHead(frontmatter, () => body, dirName, gates);
}

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

function isAsciiSpace(byte: number | undefined): boolean {
  return byte === 32 || (byte !== undefined && byte >= 9 && byte <= 13);
}

/**
 * Reads and builds the head of one SKILL.md. Pure-ASCII heads (the common case) are handled on the bytes:
 * only the frontmatter block is turned into a string, and the body only when the description needs it.
 * Anything else goes through the full 4000-character decode.
 */
export function loadHead(file: string, dirName: string, gates: Gates): SkillHead {
  const fd = openSync(file, "r");
  try {
    const length = readSync(fd, buffer, 0, HEAD_CHARS, 0);
    const bytes = buffer.subarray(0, length);
    if (isAscii(bytes) && !bytes.includes(CARRIAGE_RETURN) && bytes.toString("latin1", 0, 3) === "---") {
      // Same rule as the text path: the block closes at the first `\n---<whitespace>\n`, and the body
      // starts after the last newline of that whitespace run.
      let from = 3;
      for (;;) {
        const at = bytes.indexOf("\n---", from, "latin1");
        if (at < 0) break;
        let index = at + 4;
        let lastNewline = -1;
        while (index < length && isAsciiSpace(bytes[index])) {
          if (bytes[index] === NEWLINE) lastNewline = index;
          index += 1;
        }
        if (lastNewline >= 0) {
          const block = bytes.toString("latin1", 3, at);
          const { frontmatter } = parseFrontmatterBlock(block);
          const bodyStart = lastNewline + 1;
          const head = buildHead(
            frontmatter,
            () => bytes.toString("latin1", bodyStart, length),
            dirName,
            gates,
          );
          return withFrontmatterText(head, block, isStorableHead(head));
        }
        from = at + 1;
      }
    }
    return headFromText(decodeAll(fd, length), dirName, gates);
  } finally {
    closeSync(fd);
  }
}

/** True when JSON carries `value` exactly (plain objects, arrays, strings, booleans, null, finite numbers). */
export function isJsonExact(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object": {
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isJsonExact);
      const proto = Object.getPrototypeOf(value);
      return (proto === Object.prototype || proto === null) && Object.values(value).every(isJsonExact);
    }
    default:
      return false;
  }
}

/** True when the persistent index can hold `head` (its gate inputs survive JSON; see `index-cache.ts`). */
export function isStorableHead(head: SkillHead): boolean {
  if (head.storableGates !== undefined) return head.storableGates;
  const { platforms, environments } = head.frontmatter;
  return isJsonExact(platforms ?? null) && isJsonExact(environments ?? null);
}
