/**
 * Variables a skill may declare but skillgate never writes into `<home>/.env` for it: the dynamic
 * loader's and language runtimes' own variables (a value there runs code in every process that reads the
 * file), the shell's, and every variable the gateway itself reads. These belong to whoever runs the host;
 * a "Set KEY" form, the terminal's setup questions or `skillgate secrets set` refuse them with the reason.
 *
 * The gateway's own variables are not a list kept here by hand but derived from what reads them: each
 * platform declares the variables its adapter reads (`secrets` and `variables` in its
 * `adapters/<platform>/platform.ts`), the model's key variables come from the config in force
 * (`model-keys.ts`), the core's few are `CORE_VARIABLES`, and each credential is also refused under its
 * `SKILLGATE_` name (`SKILLGATE_TELEGRAM_BOT_TOKEN`), where a service may set it instead. test/hostile/gateway-variables.test.ts reads
 * every variable lookup in the sources and checks each one is refused.
 */
import { english, type Text, t } from "../core/i18n/messages.js";
import { registeredPlatforms } from "../core/platforms.js";
import type { SkillgateConfig } from "./config.js";
import { modelKeyVariables } from "./model-keys.js";

/**
 * Variables the core reads from the environment (logging, colour, heap tuning, the runtime environment a
 * skill's platform filter looks at); the `HERMES_`, `SKILLGATE_CRASH_` and runtime names are refused by
 * prefix or in `RUNTIME_NAMES`.
 */
const CORE_VARIABLES = [
  "SKILLGATE_LOG_LEVEL",
  "SKILLGATE_LOG_FORMAT",
  "SKILLGATE_HEAP_GROWING_PERCENT",
  "LOG_LEVEL",
  "NO_COLOR",
  "TERMINAL_ENV",
  "TERMUX_VERSION",
  "S6_VERSION",
  "PREFIX",
  // The zone times are shown in when `gateway.timezone` is not set (`src/core/i18n/dates.ts`).
  "TZ",
  // Where Hermes' gateway keeps its token locks (`src/core/hermes-gateway.ts`).
  "XDG_STATE_HOME",
  // The GitHub token hub fetches send to the GitHub API (`commands/skills-hub.ts`).
  "GITHUB_TOKEN",
  "GH_TOKEN",
];

/** The prefix under which a credential may also be given to skillgate. */
const SKILLGATE_PREFIX = "SKILLGATE_";

/**
 * The gateway's credentials: every variable its registered adapters read — platform tokens (under
 * Hermes' names and skillgate's own), public keys, webhook URLs and secrets — and (with `config`) the
 * model's key variables in use.
 */
export function gatewayCredentials(config?: SkillgateConfig): Set<string> {
  const names = new Set<string>();
  for (const platform of registeredPlatforms()) {
    const own = Object.values(platform.ownSecrets ?? {});
    for (const name of [...platform.secrets, ...own, ...(platform.variables ?? [])]) names.add(name);
  }
  if (config) for (const name of modelKeyVariables(config)) names.add(name);
  return names;
}

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
  "LANG",
  "LANGUAGE",
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
  "LC_",
];

/**
 * Why `name` is never set from a skill's "Set KEY" form or `skillgate secrets set`, or null when it may
 * be. The reason is one sentence a person can act on. With `config`, the model's key variables in use
 * are refused too.
 */
export function refusedSecretReason(name: string, config?: SkillgateConfig): string | null {
  const reason = refusedSecretText(name, config);
  return reason === null ? null : english(reason);
}

/** `refusedSecretReason` as a catalog text, for showing it in the reader's locale. */
export function refusedSecretText(name: string, config?: SkillgateConfig): Text | null {
  const upper = name.toUpperCase();
  const credentials = gatewayCredentials(config);
  const unprefixed = upper.startsWith(SKILLGATE_PREFIX) ? upper.slice(SKILLGATE_PREFIX.length) : upper;
  if (credentials.has(upper) || credentials.has(name) || credentials.has(unprefixed)) {
    return t("cmd.secret.gatewayCredential", { name });
  }
  if (
    RUNTIME_NAMES.has(upper) ||
    CORE_VARIABLES.includes(upper) ||
    RUNTIME_PREFIXES.some((prefix) => upper.startsWith(prefix))
  ) {
    return t("cmd.secret.runtimeVariable", { name });
  }
  return null;
}
