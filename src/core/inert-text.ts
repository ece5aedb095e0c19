/**
 * Untrusted text made inert, one rule per output format. Skill names, descriptions, categories and
 * bodies come from whoever wrote the skill; shown anywhere, they must read as the text they are and do
 * nothing else.
 *
 * - Every surface: `withoutControls` removes terminal escape sequences (CSI, OSC and the rest of ECMA-48's
 *   ESC forms), the C0 controls but tab and newline, DEL, the C1 controls, and the Unicode bidi
 *   embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069, U+061C, U+200E, U+200F) that reorder
 *   what a reader sees. `localizeReply` applies it to every text a reply shows, so every renderer (the
 *   terminal, Telegram HTML, Discord and Feishu markdown, the console) gets it.
 * - Feishu card markdown and `lark_md` (`inertCardMarkdown`): no tag can open (`<at id=all>`, `<font>`,
 *   `<a>`), no `[text](url)` link or bare URL forms, no emphasis, heading, quote or code span starts —
 *   each broken with an invisible U+200B after its first character, which Feishu shows as nothing.
 */

/** ESC sequences: CSI (`ESC [ … final`), OSC/DCS/SOS/PM/APC strings (to BEL or ST), and two-byte forms. */
const ESCAPE_SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)|\u009b[0-?]*[ -/]*[@-~]|\u001b[ -/]*[0-~]?/g;

/** C0 controls but tab and newline, DEL, C1 controls, and the bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` without escape sequences, control characters (tab and newline kept) or bidi controls. */
export function withoutControls(text: string): string {
  CONTROLS.lastIndex = 0;
  if (!CONTROLS.test(text)) return text;
  return text.replace(ESCAPE_SEQUENCES, "").replace(CONTROLS, "");
}

const ZERO_WIDTH_SPACE = "\u200b";

/**
 * `text` (one skill-supplied string) inert inside Feishu card markdown or `lark_md`: no controls, and
 * every character that could start markup followed by an invisible U+200B so it stays a character —
 * `<` (tags: `<at id=all>`), `[` and `]` (links), `*`, `_`, `~` and the backtick (emphasis and code),
 * `#` and `>` (headings and quotes), `@` (`@all`), and the `:` of `://` (bare URLs become links). Line
 * breaks become spaces: a name is one line.
 */
export function inertCardMarkdown(text: string): string {
  return withoutControls(text)
    .replace(/[\r\n\t]+/g, " ")
    .replace(/[<[\]*_~`#>@]|:(?=\/\/)/g, (char) => `${char}${ZERO_WIDTH_SPACE}`);
}
