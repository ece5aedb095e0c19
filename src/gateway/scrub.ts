/**
 * Defence in depth for everything the gateway sends to a chat (replies, home-channel posts, command
 * menus, autocomplete): the values of known secrets are replaced by `[redacted]`, and absolute server
 * paths inside the home become `$HERMES_HOME/…` (the user's home directory `~`). Whatever path produced
 * the text — a skill file, an error message, the agent — a secret never leaves in a chat message.
 *
 * Known secrets: every value in `<home>/.env` that looks like one (a secret-sounding key such as
 * `*_TOKEN`/`*_KEY`/`*_SECRET`, or a value of 8+ characters that is not a plain word or number), the
 * platform and model credentials in the environment, and the secrets config.yaml itself holds (webhook
 * secret, Feishu verification token and encrypt key — as each platform names them — and a model `api_key`). `.env` is re-read when it changes.
 */
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SkillgateConfig } from "../config/config.js";
import { readDotenv } from "../config/dotenv.js";
import type { Text } from "../core/i18n/messages.js";
import type { CommandCatalogEntry } from "../core/message.js";
import { registeredPlatforms } from "../core/platforms.js";
import type { Reply, ReplyBlock } from "../core/reply.js";
import { realPathOf } from "../skills/containment.js";

/** What a secret is replaced with. */
export const REDACTED = "[redacted]";

/** Environment names that hold credentials, whatever `.env` says. */
const SECRET_NAME =
  /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIAL|ENCRYPT_KEY|APP_ID)/i;

/** Shortest value treated as a secret (shorter values would redact ordinary words). */
const MIN_SECRET_LENGTH = 6;

/** A plain word, number or boolean: not a secret by its shape alone. */
const PLAIN_VALUE = /^([A-Za-z]+|[0-9]+|true|false|yes|no|on|off)$/i;

/** Replaces secret values and home paths in outbound text. */
export class OutboundScrubber {
  private readonly envFile: string;
  private stamp = "";
  private secrets: string[] = [];
  private readonly paths: [string, string][];

  constructor(
    home: string,
    private readonly config: SkillgateConfig,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.envFile = path.join(home, ".env");
    const homes = new Set([path.resolve(home), realPathOf(home) ?? path.resolve(home)]);
    const user = os.homedir();
    this.paths = [...homes].map((dir) => [dir, "$HERMES_HOME"] as [string, string]);
    if (user && user !== "/") {
      for (const dir of new Set([user, realPathOf(user) ?? user])) this.paths.push([dir, "~"]);
    }
    // Longest first, so the home wins over the user's home that contains it.
    this.paths.sort((a, b) => b[0].length - a[0].length);
  }

  /** The secret values in force (re-reads `.env` when its stamp changed). */
  knownSecrets(): string[] {
    let stamp = "missing";
    try {
      const stat = statSync(this.envFile);
      stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    } catch {
      // No .env: only the environment and config.yaml count.
    }
    if (stamp !== this.stamp || this.secrets.length === 0) {
      this.stamp = stamp;
      this.secrets = this.collect();
    }
    return this.secrets;
  }

  private collect(): string[] {
    const values = new Set<string>();
    const consider = (key: string, value: string | undefined, fromDotenv: boolean) => {
      if (!value) return;
      const trimmed = value.trim();
      if (trimmed.length < MIN_SECRET_LENGTH) return;
      const byName = SECRET_NAME.test(key);
      if (byName || (fromDotenv && trimmed.length >= 8 && !PLAIN_VALUE.test(trimmed))) values.add(trimmed);
    };
    let dotenv = new Map<string, string>();
    try {
      dotenv = readDotenv(this.envFile);
    } catch {
      // An unreadable .env holds nothing we could leak either.
    }
    for (const [key, value] of dotenv) consider(key, value, true);
    for (const [key, value] of Object.entries(this.env)) consider(key, value, false);
    const gateway = this.config.gateway;
    // Each platform names the secrets its own config section holds (webhook secret, verification token…).
    for (const platform of registeredPlatforms()) {
      const section = gateway.platforms[platform.name];
      if (!section || !platform.configSecrets) continue;
      for (const { name, value } of platform.configSecrets(section)) consider(name, value, false);
    }
    // `api_key` may name a variable (`OPENROUTER_API_KEY`) rather than hold the key: only values count.
    for (const key of [this.config.model?.apiKey, this.config.auxiliaryCurator?.apiKey])
      if (key && !/^[A-Z_][A-Z0-9_]*$/.test(key)) consider("API_KEY", key, false);
    // Longest first: a secret that contains another is replaced whole.
    return [...values].sort((a, b) => b.length - a.length);
  }

  /** Text with secret values redacted and home paths shortened. */
  text(value: string): string {
    return this.scrubWith(this.knownSecrets(), value);
  }

  /**
   * `text` with the secrets already looked up: a reply or a catalog checks `.env` once for all its
   * strings, not once per string (a 10k-skill menu would otherwise stat the file 20,000 times).
   */
  private scrubWith(secrets: readonly string[], value: string): string {
    let out = value;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const [dir, label] of this.paths) {
      if (!out.includes(dir)) continue;
      // Only whole path components: `/home/u` must not eat `/home/user2`.
      out = out.replace(new RegExp(`${escapeRegExp(dir)}(?=$|[/\\s'"\`)\\],;:])`, "g"), label);
    }
    return out;
  }

  /** True when `value` holds a secret value (used to drop suggestions outright). */
  holdsSecret(value: string): boolean {
    return this.knownSecrets().some((secret) => value.includes(secret));
  }

  /**
   * A reply with every text it renders scrubbed: blocks, button labels and the blocks shown beside
   * buttons. Its `json` is for the terminal and is left as it is; button intents and ids are data the
   * gateway keeps, never shown, and stay as they are so a press still finds its action.
   */
  reply(value: Reply): Reply {
    const secrets = this.knownSecrets();
    const scrub = (text: string) => this.scrubWith(secrets, text);
    const blocks = (list: ReplyBlock[]) => list.map((block) => deepScrub(block, scrub) as ReplyBlock);
    const actions = value.actions && {
      ...value.actions,
      rows: value.actions.rows.map((row) =>
        row.map((action) => ({ ...action, label: deepScrub(action.label, scrub) as Text })),
      ),
      ...(value.actions.blocksWithButtons
        ? { blocksWithButtons: blocks(value.actions.blocksWithButtons) }
        : {}),
    };
    return { ...value, blocks: blocks(value.blocks), ...(actions ? { actions } : {}) };
  }

  /** A command catalog with descriptions scrubbed and entries whose name holds a secret dropped. */
  catalog(entries: CommandCatalogEntry[]): CommandCatalogEntry[] {
    const secrets = this.knownSecrets();
    const scrub = (text: Text) => deepScrub(text, (value) => this.scrubWith(secrets, value)) as Text;
    return entries
      .filter((entry) => !secrets.some((secret) => entry.name.includes(secret)))
      .map((entry) => ({
        ...entry,
        description: scrub(entry.description),
        ...(entry.options
          ? {
              options: entry.options.map((option) => ({
                ...option,
                description: scrub(option.description),
              })),
            }
          : {}),
        ...(entry.subcommands
          ? {
              subcommands: entry.subcommands.map((sub) => ({
                ...sub,
                description: scrub(sub.description),
                options: sub.options.map((option) => ({
                  ...option,
                  description: scrub(option.description),
                })),
              })),
            }
          : {}),
      }));
  }
}

/**
 * Every string in a value scrubbed, so blocks added later are covered too: a block's `kind`, and a
 * message's `key` or a formatted value's `fmt` (catalog names, never shown) are kept as they are.
 */
function deepScrub(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === "string") return scrub(value);
  if (Array.isArray(value)) return value.map((item) => deepScrub(item, scrub));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      out[key] = key === "kind" || key === "key" || key === "fmt" ? item : deepScrub(item, scrub);
    return out;
  }
  return value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
