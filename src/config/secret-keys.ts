/**
 * Variables a skill may declare but skillgate never writes into `<home>/.env` for it: the dynamic
 * loader's and language runtimes' own variables (a value there runs code in every process that reads the
 * file), the shell's, and the gateway's own credentials and home. These belong to whoever runs the host;
 * a "Set KEY" form or `skillgate secrets set` refuses them with the reason.
 */
import { english, type Text, t } from "../core/i18n/messages.js";
import { registeredPlatforms } from "../core/platforms.js";

/** Credentials of the gateway itself, whether or not that platform's adapter is loaded in this process. */
const GATEWAY_CREDENTIALS = [
  "TELEGRAM_BOT_TOKEN",
  "FEISHU_APP_ID",
  "FEISHU_APP_SECRET",
  "DISCORD_BOT_TOKEN",
  "TELEGRAM_WEBHOOK_SECRET",
  "FEISHU_VERIFICATION_TOKEN",
  "FEISHU_ENCRYPT_KEY",
];

const RUNTIME_NAMES = new Set([
  "PATH",
  "HOME",
  "SHELL",
  "ENV",
  "BASH_ENV",
  "IFS",
  "PS4",
  "PROMPT_COMMAND",
  "GCONV_PATH",
  "GLIBC_TUNABLES",
  "HOSTALIASES",
  "RESOLV_HOST_CONF",
  "LOCALDOMAIN",
  "TMPDIR",
  "PERL5LIB",
  "PERL5OPT",
  "PERLLIB",
  "RUBYLIB",
  "RUBYOPT",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "CLASSPATH",
  "GIT_SSH_COMMAND",
  "GIT_EXEC_PATH",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "SKILLGATE_LOG_LEVEL",
  "SKILLGATE_HEAP_GROWING_PERCENT",
]);

/** Prefixes of loader, runtime and skillgate/Hermes control variables. */
const RUNTIME_PREFIXES = [
  "LD_",
  "DYLD_",
  "NODE_",
  "NPM_CONFIG_",
  "PYTHON",
  "MALLOC_",
  "HERMES_",
  "SKILLGATE_CRASH_",
];

/**
 * Why `name` is never set from a skill's "Set KEY" form or `skillgate secrets set`, or null when it may
 * be. The reason is one sentence a person can act on.
 */
export function refusedSecretReason(name: string): string | null {
  const reason = refusedSecretText(name);
  return reason === null ? null : english(reason);
}

/** `refusedSecretReason` as a catalog text, for showing it in the reader's locale. */
export function refusedSecretText(name: string): Text | null {
  const upper = name.toUpperCase();
  const platformSecrets = registeredPlatforms().flatMap((platform) => [
    ...platform.secrets,
    ...Object.values(platform.ownSecrets ?? {}),
  ]);
  if (GATEWAY_CREDENTIALS.includes(upper) || platformSecrets.includes(name)) {
    return t("cmd.secret.gatewayCredential", { name });
  }
  if (RUNTIME_NAMES.has(upper) || RUNTIME_PREFIXES.some((prefix) => upper.startsWith(prefix))) {
    return t("cmd.secret.runtimeVariable", { name });
  }
  return null;
}
