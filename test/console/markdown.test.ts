/** Untrusted Markdown renders to HTML without script, event handlers, styles or javascript: URLs. */
import fc from "fast-check";
import { Parser } from "htmlparser2";
import { describe, expect, it } from "vitest";
import { renderMarkdown, sanitize, splitFrontmatter } from "../../src/gateway/console/markdown.js";

const BAD_TAGS = new Set([
  "script",
  "iframe",
  "object",
  "embed",
  "style",
  "svg",
  "math",
  "form",
  "link",
  "meta",
]);

/** What in `html` could run: bad tags, event-handler or style attributes, non-http(s) URLs. */
/**
 * True when a browser would not run `value` as a URL: no scheme at all (a relative reference, even one
 * with a colon later, like `%5Ba%5D(javascript:x)`), or http(s)/mailto. A scheme is what the URL
 * standard parses as one: a letter, then letters, digits, `+`, `-` or `.`, before the first colon, after
 * browsers have dropped control characters and whitespace (so `java\tscript:` still counts).
 */
function safeUrl(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers strip these before parsing a URL
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value.replace(/[\u0000-\u0020]/g, ""))?.[1];
  return scheme === undefined || /^(https?|mailto)$/i.test(scheme);
}

function dangers(html: string): string[] {
  const found: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      if (BAD_TAGS.has(name)) found.push(`<${name}>`);
      for (const [key, value] of Object.entries(attributes)) {
        if (/^on/i.test(key) || key === "style") found.push(`${name}[${key}]`);
        if ((key === "href" || key === "src") && !safeUrl(value)) found.push(`${name}[${key}=${value}]`);
      }
    },
  });
  parser.write(html);
  parser.end();
  return found;
}
/<(script|iframe|object|embed|style|svg|math|form)\b|\son[a-z]+\s*=|(href|src)\s*=\s*"\s*(javascript|data|vbscript):/i;

describe("console Markdown", () => {
  it("escapes raw HTML and drops javascript: links while keeping ordinary Markdown", () => {
    const html = renderMarkdown(
      [
        "# Title <script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "[x](javascript:alert(1)) [y](JAVASCRIPT:alert(1)) [z](data:text/html,<script>alert(1)</script>)",
        "**bold** [ok](https://example.org) `code`",
      ].join("\n\n"),
    );
    expect(dangers(html)).toEqual([]);
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain(
      '<a href="https://example.org" rel="noopener noreferrer nofollow" target="_blank">ok</a>',
    );
    expect(html).toContain("<code>code</code>");
  });

  it("has a checker that notices what could run", () => {
    expect(
      dangers('<a href="javascript:x" onclick="y">a</a><script></script><img src="data:x">'),
    ).toHaveLength(4);
    expect(dangers('<a href="https://example.org">a</a><p>&lt;script&gt;</p>')).toEqual([]);
    // A colon after other characters is a relative reference, not a scheme; a tab inside a scheme is
    // dropped by browsers, so that one still counts.
    expect(dangers('<a href="%5Ba%5D(javascript:x)">a</a>')).toEqual([]);
    expect(dangers('<a href="java&#9;script:x">a</a>')).toHaveLength(1);
    expect(dangers(renderMarkdown("[]([a](javascript:x))"))).toEqual([]);
  });

  it("sanitises HTML that would slip past a renderer", () => {
    const html = sanitize(
      '<a href="javascript:alert(1)">a</a><img src="x" onerror="alert(1)"><p style="x" onclick="y">p</p><svg onload="z"></svg>',
    );
    expect(dangers(html)).toEqual([]);
    expect(html).toContain("<p>p</p>");
  });

  it("never emits script, handlers or javascript: URLs for any input", () => {
    const pieces = fc.constantFrom(
      "<script>x</script>",
      "<img src=x onerror=y>",
      "[a](javascript:x)",
      "<a href='javascript:x'>",
      "<svg/onload=x>",
      "](",
      "\n\n",
      "`",
      "<",
      ">",
      '"',
      "javascript:",
      " onerror=",
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string()), { maxLength: 30 }), (parts) => {
        expect(dangers(renderMarkdown(parts.join("")))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("splits frontmatter off the body", () => {
    expect(splitFrontmatter("---\nname: a\n---\n# Body\n")).toEqual({
      frontmatter: "name: a",
      body: "# Body\n",
    });
    expect(splitFrontmatter("# No frontmatter")).toEqual({ frontmatter: null, body: "# No frontmatter" });
  });
});
