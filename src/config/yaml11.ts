/**
 * config.yaml as PyYAML reads it (Hermes' parser: YAML 1.1 with PyYAML's implicit resolvers), for the
 * edits skillgate makes: a parse that types plain scalars exactly as PyYAML's SafeLoader does (`on`,
 * `no`, `Yes` are booleans, `1:20` and `0b101` and `1_000` are integers, `2024-01-01` is a date, `<<`
 * merges), and a scalar writer whose output both PyYAML and YAML 1.2 read back as the value given.
 */
import type { ScalarTag, Document as YamlDocument } from "yaml";
import { cause, type Formatted, isMessageKey } from "../core/i18n/messages.js";
import { YAML } from "../core/yaml.js";

const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const INT =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const TIMESTAMP =
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/;

/** Base-60 digits `a:b:c` as PyYAML sums them. */
function sexagesimal(text: string): number {
  return text.split(":").reduce((total, digits) => total * 60 + Number(digits), 0);
}

function signed(text: string): { sign: number; body: string } {
  const sign = text.startsWith("-") ? -1 : 1;
  return { sign, body: /^[-+]/.test(text) ? text.slice(1) : text };
}

/** Base-60 digits `a:b:c` summed exactly. */
function sexagesimalBig(text: string): bigint {
  return text.split(":").reduce((total, digits) => total * 60n + BigInt(digits), 0n);
}

/**
 * PyYAML's int constructor. Python's integers have no size limit, so one beyond ±2^53 is a `bigint`
 * holding its exact value (a platform id such as `222333444555666777` must not become `…780`).
 */
function yamlInt(source: string): number | bigint {
  const { sign, body } = signed(source.replaceAll("_", ""));
  if (body === "0") return 0;
  // `0b_` and the like have no digits: PyYAML fails on them, and so does the number here.
  if (/^0[bx]?$/.test(body)) return Number.NaN;
  const exact = body.startsWith("0b")
    ? BigInt(body)
    : body.startsWith("0x")
      ? BigInt(body)
      : body.startsWith("0")
        ? BigInt(`0o${body.slice(1)}`)
        : body.includes(":")
          ? sexagesimalBig(body)
          : BigInt(body);
  const value = sign < 0 ? -exact : exact;
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/** PyYAML's float constructor. */
function yamlFloat(source: string): number {
  const { sign, body } = signed(source.replaceAll("_", "").toLowerCase());
  if (body === ".inf") return sign * Number.POSITIVE_INFINITY;
  if (body === ".nan") return Number.NaN;
  if (body.includes(":")) {
    const [whole = "", fraction = ""] = body.split(".");
    return sign * (sexagesimal(whole) + Number(`0.${fraction || "0"}`));
  }
  return sign * Number(body);
}

/** A date or date-time PyYAML would construct (kept as its text: skillgate only needs to know it is one). */
export class YamlTimestamp {
  constructor(readonly text: string) {}

  /** Shown (in messages) as written. */
  toJSON(): string {
    return this.text;
  }
}

const PYYAML_TAGS: ScalarTag[] = [
  {
    tag: "tag:yaml.org,2002:null",
    default: true,
    test: NULL,
    resolve: () => null,
    identify: (v) => v === null,
  },
  {
    tag: "tag:yaml.org,2002:bool",
    default: true,
    test: BOOL,
    resolve: (text) => TRUE.test(text),
    identify: (v) => typeof v === "boolean",
  },
  {
    tag: "tag:yaml.org,2002:int",
    default: true,
    test: INT,
    resolve: yamlInt,
    identify: (v) => typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v)),
  },
  {
    tag: "tag:yaml.org,2002:float",
    default: true,
    test: FLOAT,
    resolve: yamlFloat,
    identify: (v) => typeof v === "number",
  },
  {
    tag: "tag:yaml.org,2002:timestamp",
    default: true,
    test: TIMESTAMP,
    resolve: (text) => new YamlTimestamp(text),
    identify: (v) => v instanceof YamlTimestamp,
  },
];

/** Parse options that give PyYAML's SafeLoader types. */
export const PYYAML_OPTIONS = {
  schema: "failsafe",
  customTags: PYYAML_TAGS,
  merge: true,
  prettyErrors: false,
} as const;

/** Parses config.yaml text into a document typed as PyYAML would type it. */
export function parseYaml11Document(text: string): YamlDocument {
  return YAML.parseDocument(text, PYYAML_OPTIONS);
}

/** Parses YAML text into JavaScript values typed as PyYAML would type them; throws on a syntax error. */
export function parseYaml11(text: string): unknown {
  const doc = parseYaml11Document(text);
  if (doc.errors.length > 0) throw doc.errors[0];
  return doc.toJS({ maxAliasCount: -1 });
}

/** True when PyYAML would read `text`, written as a plain scalar, as something other than that string. */
export function plainIsNotString(text: string): boolean {
  return NULL.test(text) || BOOL.test(text) || INT.test(text) || FLOAT.test(text) || TIMESTAMP.test(text);
}

/**
 * A plain scalar safe in every context and for YAML 1.1 and 1.2 readers alike: it starts with a letter,
 * `_`, `/` or `~/` and holds no spaces, colons, commas, brackets or quotes (a word, a path, a model id).
 */
const SAFE_PLAIN = /^(?:[A-Za-z_/]|~\/)[A-Za-z0-9_./~+-]*$/;
/** Words some YAML 1.1 readers take as booleans although PyYAML does not. */
const LOOSE_BOOLEANS = /^(?:y|Y|n|N)$/;

/** Characters written raw inside a double-quoted scalar; everything else is escaped. */
const PRINTABLE =
  /[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]|[\ud800-\udbff][\udc00-\udfff]/y;

function quoted(text: string): string {
  let out = '"';
  for (let at = 0; at < text.length; ) {
    PRINTABLE.lastIndex = at;
    const match = PRINTABLE.exec(text);
    if (match) {
      const char = match[0];
      out += char === '"' || char === "\\" ? `\\${char}` : char;
      at += char.length;
      continue;
    }
    const code = text.charCodeAt(at);
    out +=
      code === 0x09
        ? "\\t"
        : code === 0x0a
          ? "\\n"
          : code === 0x0d
            ? "\\r"
            : `\\u${code.toString(16).padStart(4, "0")}`;
    at += 1;
  }
  return `${out}"`;
}

/** A number as both parsers read it back (PyYAML wants a `.` in a float and a signed exponent). */
function numberText(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? ".nan" : value > 0 ? ".inf" : "-.inf";
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return value.toFixed(0);
  const text = String(value);
  const [mantissa = "", exponent] = text.split("e");
  const dotted = mantissa.includes(".") ? mantissa : `${mantissa}.0`;
  return exponent === undefined ? dotted : `${dotted}e${/^[-+]/.test(exponent) ? exponent : `+${exponent}`}`;
}

/**
 * `value` as a YAML scalar that PyYAML and YAML 1.2 parsers both read back as exactly `value`: strings
 * plain only when they are a safe word, else double-quoted with escapes (line breaks of every kind,
 * control characters and non-characters escaped). Throws on a string that is not valid Unicode text.
 */
export function yamlScalarText(value: string | number | bigint | boolean): string {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return numberText(value);
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value)) {
    throw new TypeError("not valid Unicode text");
  }
  if (SAFE_PLAIN.test(value) && !plainIsNotString(value) && !LOOSE_BOOLEANS.test(value)) return value;
  return quoted(value);
}

/**
 * A YAML parse error as a reader's text: its own first line in English; in another locale the catalog's
 * words for its code (`os.YAML_TAB_AS_INDENT` …, else a syntax error in general) at `line:column`.
 */
export function yamlErrorCause(error: unknown): Formatted {
  const first = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
  const parsed = error as { code?: string; linePos?: { line: number; col: number }[] };
  const specific = `YAML_${parsed.code ?? ""}`;
  const code = isMessageKey(`os.${specific}`) ? specific : "YAML_SYNTAX";
  const at = parsed.linePos?.[0];
  return cause(first, code, at ? `${at.line}:${at.col}` : undefined);
}
