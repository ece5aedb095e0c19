/**
 * skillgate's error classes. Each carries a stable `code` and a message that tells the person what to
 * do next: `text` as the reader sees it (a catalog message, resolved in their locale) and `message` its
 * English text (logs, `--json`). Commands turn them into a `Reply` with the matching exit code; nothing
 * else should need to inspect messages.
 */
import { cause, english, type Text, t } from "./i18n/messages.js";

/** Base class: every error skillgate raises on purpose. */
export class SkillgateError extends Error {
  /** Stable machine-readable code, e.g. `config.invalid_value`. */
  readonly code: string;
  /** Process exit code for the CLI: 1 refused/failed, 2 bad usage, 78 bad config. */
  readonly exitCode: number;
  /** What the person reads, resolved in their locale; `message` is its English text. */
  readonly text: Text;

  constructor(code: string, message: Text, exitCode = 1, options?: { cause?: unknown }) {
    super(english(message), options);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
    this.text = message;
  }
}

/** A value in config.yaml (or a flag standing in for it) is wrong. `key` is the dotted path. */
export class ConfigError extends SkillgateError {
  readonly key: string;
  constructor(key: string, message: Text, options?: { cause?: unknown }) {
    super("config.invalid", message, 78, options);
    this.key = key;
  }
}

/** A skill could not be found, read, shown or written; `skill` names it when known. */
export class SkillError extends SkillgateError {
  readonly skill: string | undefined;
  constructor(code: string, message: Text, skill?: string, options?: { cause?: unknown }) {
    super(code, message, 1, options);
    this.skill = skill;
  }
}

/** A curator operation was refused or failed; `phase` says where (plan, apply, snapshot, rollback…). */
export class CuratorError extends SkillgateError {
  readonly phase: string;
  constructor(phase: string, message: Text, options?: { cause?: unknown; code?: string }) {
    super(options?.code ?? `curator.${phase}`, message, 1, options);
    this.phase = phase;
  }
}

/**
 * Curator work that stopped before it changed anything because the process is stopping (SIGTERM, a
 * gateway shutting down): code `curator.interrupted`. Work that had changed something records what it
 * did and reports it instead of throwing.
 */
export function interruptedError(phase: string, what: Text): CuratorError {
  return new CuratorError(phase, t("error.interrupted", { what }), { code: "curator.interrupted" });
}

/**
 * Why `error` happened, as the person reads it: a skillgate error's own text; a system error (one with
 * a `code`, such as `ENOENT`, `ECONNREFUSED` or zlib's `Z_BUF_ERROR`) as its English message, which
 * other locales show in the catalog's words for the code, where it happened (a path, an address and
 * port, a host name); anything else as its message. `english(errorCause(e))` is always the message the
 * error carries, so logs and `--json` keep it byte for byte.
 */
export function errorCause(error: unknown): Text {
  if (error instanceof SkillgateError) return error.text;
  if (!(error instanceof Error)) return String(error);
  const { code } = error as NodeJS.ErrnoException;
  if (typeof code !== "string") return error.message;
  return cause(error.message, code, whereOf(error));
}

/** Where a system error happened: its path, its address and port, or its host name. */
function whereOf(error: Error): string | undefined {
  const { path, address, port, hostname } = error as NodeJS.ErrnoException & {
    address?: unknown;
    port?: unknown;
    hostname?: unknown;
  };
  if (typeof path === "string") return path;
  if (typeof address === "string")
    return typeof port === "number" || typeof port === "string" ? `${address}:${port}` : address;
  return typeof hostname === "string" ? hostname : undefined;
}

/** A platform adapter failed to connect, send or register; `adapter` names the platform. */
export class AdapterError extends SkillgateError {
  readonly adapter: string;
  /**
   * The platform refused the credentials or settings (a 401, an invalid token, a wrong app secret):
   * retrying cannot help, fixing `.env` or config.yaml does; `serve` exits 78 when every platform failed so.
   */
  readonly refused: boolean;
  constructor(
    adapter: string,
    message: Text,
    options?: { cause?: unknown; code?: string; refused?: boolean },
  ) {
    super(options?.code ?? `adapter.${adapter}`, message, options?.refused ? 78 : 1, options);
    this.adapter = adapter;
    this.refused = options?.refused === true;
  }
}

/**
 * The platform refused a reply's file part (too large, empty, not allowed). `delivered` says how many
 * messages of that reply had already gone out; the gateway then sends the reply cut to the budget
 * instead, with the line naming the terminal command that shows all of it.
 */
export class FileRefusedError extends AdapterError {
  readonly fileName: string;
  readonly delivered: number;
  constructor(
    adapter: string,
    fileName: string,
    message: string,
    options: { cause?: unknown; delivered?: number } = {},
  ) {
    super(adapter, message, { cause: options.cause, code: `adapter.${adapter}.file_refused` });
    this.fileName = fileName;
    this.delivered = options.delivered ?? 0;
  }
}

/**
 * Several gateways on one home could not coordinate: Redis unreachable or too old, a replica id already
 * live, a write refused to a stale leader. The message names the URL or id and the fix: `text` in the
 * reader's language on a terminal, `message` its English for logs.
 */
export class CoordinationError extends SkillgateError {
  constructor(code: string, message: Text, options?: { cause?: unknown }) {
    super(`coordination.${code}`, message, 1, options);
  }
}

/** The command line or chat command was malformed (exit 2). */
export class UsageError extends SkillgateError {
  constructor(message: Text) {
    super("usage", message, 2);
  }
}
