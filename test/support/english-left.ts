/**
 * The test of "no English sentence left" in a Chinese text: after removing what stays as it is in
 * every language (code spans, parameters, config keys, file names, URLs and an allow-list of names), a
 * run of two or more Latin words is English left untranslated. Shared by the catalog completeness test
 * and the web console's Chinese pages.
 */

/** Names, commands, config keys and paths that stay as they are in every language. */
const ALLOWED = [
  /`[^`]*`/g, // code spans: commands, keys, values
  /\{[A-Za-z_]+\}/g, // parameters
  /\b(?:skills|gateway|curator|config|platform)[\w.<>:-]*\.[\w.<>{}-]+/g, // config keys such as skills.platform_disabled.x
  /\b[\w-]+\.(?:yaml|md|env)\b|\.env\b/g, // file names
  /https?:\/\/\S+/g,
  /\b(?:skillgate|Hermes|Telegram|Discord|Feishu|Lark|LLM|CLI|URL|YAML|UTF-8|NUL|PATH|CDATA|Unicode|shell|curl\|sh|frontmatter|name|description|external_dirs|required_environment_variables|setup\.collect_secrets|prerequisites\.env_vars|platform:id|platform:chat_id|key: value|true|false|feishu|lark|id|Hub|skills|references\/)\b/g,
];

/** English left in a Chinese text: a run of two or more Latin words after the allowed parts are removed. */
export function englishLeft(text: string, extraAllowed: readonly RegExp[] = []): string | null {
  let rest = text;
  for (const pattern of [...ALLOWED, ...extraAllowed]) rest = rest.replace(pattern, " ");
  const run = /[A-Za-z]{2,}(?:[\s,'’-]+[A-Za-z]{2,})+/.exec(rest);
  return run ? run[0] : null;
}
