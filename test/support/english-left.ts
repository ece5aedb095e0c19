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

/**
 * Technical names a Chinese catalog text keeps in Latin letters: protocols, products, formats, API
 * methods, frontmatter and config keys, example hosts. Everything else one Latin word long is English left.
 */
const TECHNICAL_NAMES = [
  /key: value/g, // a mapping's shape
  /`[^`]*`/g, // code spans
  /\b(?:skills|gateway|curator|config|platform|model|auxiliary)(?:\.[\w{}<>/-]+)+/g, // config keys, placeholders inside
  /"[^"\n]*"|'[^'\n]*'/g, // quoted values
  /<[\w.]+(?:\.\.\.)?>|\[[\w.]+(?:\.\.\.)?\]/g, // placeholders of usage lines: <name>, [file]
  /\b[\w<>{}.-]+(?:\/[\w<>{}.-]*)+/g, // relative paths: skills/<category>/<name>/SKILL.md, cron/jobs.json
  /(?:~|\$?\b[A-Z_]+|\/)[\w./{}+-]*\/[\w./{}+-]*|(?<![\w])\/[a-z][\w-]*/g, // paths and slash commands: ~/.hermes, /curator, /newbot
  /(?<![\w-])--?[a-z][\w-]*/g, // flags
  /\bskillgate(?: [a-z][\w-]*){1,3}(?= |$|，|。|）|；)/g, // the CLI's commands as typed
  /\b[a-z][\w-]*(?:\.[a-z][\w-]*)+(?::\d+)?\b/g, // host names and dotted names: registry.local:443, redis.conf, im.message.receive_v1
  /\b[\w.]+:(?=、|\s|$)/g, // config sections written as keys: skills:, curator:
  /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, // identifiers: required_environment_variables
  /\$?\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g, // environment variable names
  /\b(?:host:port|webhook|BotFather|HTTP|HTTPS|Node\.js|AOF|RDB|ID|OpenAI|ClawHub|clawhub|CSRF|TLS|getWebhookInfo|getMyCommands|SDK|IANA|uid|curl|sh|PyYAML|nginx|larksuite|auto|API|JSON|GitHub|Redis|Valkey|platforms|cli_|App|Secret|pid|tar|gz|ok|http|https|www)\b/g,
  /（Curator）|\b(?:telegram|feishu|discord)\b/g, // the curator's bridge name, a mapping's shape, platform ids
];

/** English left in a Chinese catalog text, one word being enough (`user`, `manual`) and "(s)" too. */
export function englishWordLeft(text: string): string | null {
  let rest = text;
  for (const pattern of [...TECHNICAL_NAMES, ...ALLOWED]) rest = rest.replace(pattern, " ");
  const word = /\(s\)|(?<![A-Za-z])[A-Za-z]{2,}/.exec(rest);
  return word ? word[0] : null;
}
