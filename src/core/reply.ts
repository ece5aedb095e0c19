/**
 * The neutral reply model. Commands return a `Reply`; renderers (terminal text, JSON, Telegram HTML,
 * Discord markdown, Feishu post) turn it into what each surface shows. Text inside blocks is plain text;
 * a span between backticks (`like this`) is inline code, which renderers may style.
 */

/** One block of a reply. */
export type ReplyBlock =
  | { kind: "heading"; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; items: string[]; ordered?: boolean }
  | { kind: "code"; text: string; lang?: string }
  | { kind: "table"; headers: string[]; rows: string[][] }
  | { kind: "attachment"; name: string; text: string };

/**
 * A private input offered for one secret: a Discord modal, a Feishu card form, or a one-time form link.
 * The value typed there goes straight to `<home>/.env`, never through the chat history. Platforms
 * without a private input ignore it (the reply's text already says how to set the secret on the host).
 */
export interface SecretInputOffer {
  /** The environment variable to set. */
  key: string;
  /** The skill that needs it. */
  skill: string;
  /** One-time token binding the input to the admin who asked; it expires. */
  token: string;
  /** What to ask (shown as the input's label). */
  prompt: string;
  /** The one-time form link, on platforms that get a link instead of a native input. */
  url?: string;
}

/** What a command answers. `json` is the machine document printed by `--json`. */
export interface Reply {
  blocks: ReplyBlock[];
  /** Private inputs for missing secrets, for the admin who asked (see `SecretInputOffer`). */
  secretInputs?: SecretInputOffer[];
  /** The document `--json` prints; when absent, `--json` prints `{ok, text}` derived from the blocks. */
  json?: unknown;
  /** CLI exit code: 0 done, 1 refused or failed, 2 bad usage, 78 bad config. */
  exitCode: number;
}

/** Builds a reply from blocks; exit code 0 unless given. */
export function reply(blocks: ReplyBlock[], options: { json?: unknown; exitCode?: number } = {}): Reply {
  return { blocks, json: options.json, exitCode: options.exitCode ?? 0 };
}

/** A reply of plain paragraphs, one per line given. */
export function textReply(text: string, options: { json?: unknown; exitCode?: number } = {}): Reply {
  const blocks: ReplyBlock[] = text
    .split(/\n{2,}/)
    .filter((part) => part.length > 0)
    .map((part) => ({ kind: "paragraph", text: part }));
  return reply(blocks, options);
}

/** A failure reply (exit 1 unless given) whose text says what went wrong and what to do. */
export function errorReply(text: string, exitCode = 1, json?: unknown): Reply {
  return textReply(text, { exitCode, json: json ?? { ok: false, error: text } });
}

/** Plain text of a reply: the terminal renderer's output without colours. */
export function replyToPlainText(value: Reply): string {
  const parts: string[] = [];
  for (const block of value.blocks) {
    switch (block.kind) {
      case "heading":
      case "paragraph":
        parts.push(block.text);
        break;
      case "list":
        parts.push(
          block.items.map((item, index) => `${block.ordered ? `${index + 1}.` : "-"} ${item}`).join("\n"),
        );
        break;
      case "code":
        parts.push(block.text);
        break;
      case "table":
        parts.push(formatTable(block.headers, block.rows));
        break;
      case "attachment":
        parts.push(`[${block.name}]\n${block.text}`);
        break;
    }
  }
  return parts.join("\n\n");
}

/** Lays a table out in fixed-width columns (terminal and code-block renderers). */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}
