/**
 * Skill content is untrusted: Markdown is rendered with raw HTML turned off (markdown-it escapes any
 * `<script>` or `<img onerror>` in the source as text) and the result is sanitised again with an
 * allowlist (sanitize-html), so a renderer bug still cannot produce script, event handlers, styles or
 * `javascript:` links. Links open without a referrer; images only load from this origin (the CSP).
 */
import MarkdownIt from "markdown-it";
import sanitizeHtml from "sanitize-html";

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

const ALLOWED_TAGS = [
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "p",
  "br",
  "hr",
  "blockquote",
  "pre",
  "code",
  "em",
  "strong",
  "s",
  "del",
  "ul",
  "ol",
  "li",
  "a",
  "img",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
];

/** Sanitises HTML to the allowlist: no scripts, handlers, styles, or links other than http(s)/mailto. */
export function sanitize(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: {
      a: ["href", "title", "rel", "target"],
      img: ["src", "alt", "title"],
      th: ["align"],
      td: ["align"],
    },
    allowedSchemes: ["http", "https", "mailto"],
    allowedSchemesAppliedToAttributes: ["href", "src"],
    allowProtocolRelative: false,
    disallowedTagsMode: "escape",
    transformTags: {
      a: sanitizeHtml.simpleTransform("a", { rel: "noopener noreferrer nofollow", target: "_blank" }),
    },
  });
}

/** Renders untrusted Markdown to safe HTML. */
export function renderMarkdown(text: string): string {
  return sanitize(markdown.render(text));
}

/** Splits a leading `---` frontmatter block off a SKILL.md; the body is what gets rendered. */
export function splitFrontmatter(text: string): { frontmatter: string | null; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!match) return { frontmatter: null, body: text };
  return { frontmatter: match[1] ?? "", body: text.slice(match[0].length) };
}
