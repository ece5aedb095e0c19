/**
 * Private secret entry: a "Set KEY" button (a stored action, see `core/actions.ts`) pressed by an admin
 * opens a private input for one missing variable of a skill (a Discord modal, a Feishu card form, or a
 * one-time form link), and what comes back is stored in
 * `<home>/.env`. The value is never logged, echoed, put in a reply, a ledger or a session: the chat only
 * hears "`KEY` set ✓" and the skill's new readiness. Chat messages are never read as secrets.
 */
import type { SkillgateConfig } from "../../config/config.js";
import { checkSecretValue } from "../../config/dotenv-write.js";
import { refusedSecretReason } from "../../config/secret-keys.js";
import { SkillgateError } from "../../core/errors.js";
import type { Locale } from "../../core/i18n/locale.js";
import { lines, list, resolveText, type Text, t } from "../../core/i18n/messages.js";
import type { AdapterCapabilities, InboundMessage, SecretInputOpening } from "../../core/message.js";
import { type Reply, reply, textReply } from "../../core/reply.js";
import {
  defaultPrompt,
  defaultPromptText,
  type EnvRequirement,
  storeSecrets,
} from "../../skills/readiness.js";
import type { SkillLibrary } from "../../skills/types.js";
import { type PendingSecret, refusalText, SecretTokens, type TokenRefusal } from "./tokens.js";

/** Options of `SecretEntry`. */
export interface SecretEntryOptions {
  home: string;
  library: SkillLibrary;
  now?: () => number;
  /** `gateway.public_url`, when the one-time form server is reachable from outside. */
  publicUrl?: string;
  /** The config in force: the model's key variables in use are never set for a skill. */
  config?: SkillgateConfig;
}

/** What a private input shows before the value is typed (the prompt in the asker's locale when resolved). */
export interface SecretPrompt {
  key: string;
  skill: string;
  prompt: Text;
  /** The locale of the admin who asked, when known. */
  locale?: Locale;
}

/** An opened private input as the service answers it: the prompt is resolved by whoever shows it. */
export type SecretOpening = Omit<SecretInputOpening, "prompt"> & { prompt: Text };

/** The answer to a submitted value, and where the link flow should post it. */
export interface SecretSubmission {
  reply: Reply;
  /** Set when the value was stored. */
  stored?: PendingSecret;
  /** The locale of the admin who asked, when the input is still known. */
  locale?: Locale;
}

/** An opening or refusal with its texts resolved in `locale`, as adapters show them. */
export function spokenOpening(
  result: SecretOpening | { refused: Text } | null,
  locale: Locale,
): SecretInputOpening | { refused: string } | null {
  if (result === null) return null;
  if ("refused" in result) return { refused: resolveText(result.refused, locale) };
  return { ...result, prompt: resolveText(result.prompt, locale), locale };
}

/** A prompt or refusal with its texts resolved in the asker's locale (else `fallback`). */
export function spokenPrompt(
  result: SecretPrompt | { refused: Text },
  fallback: Locale,
): { key: string; skill: string; prompt: string } | { refused: string } {
  if ("refused" in result) return { refused: resolveText(result.refused, fallback) };
  return {
    key: result.key,
    skill: result.skill,
    prompt: resolveText(result.prompt, result.locale ?? fallback),
  };
}

function localeOf(known: PendingSecret | TokenRefusal): Locale | undefined {
  return typeof known === "string" ? undefined : known.locale;
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** The gateway's private secret entry. */
export class SecretEntry {
  readonly tokens: SecretTokens;

  constructor(private readonly options: SecretEntryOptions) {
    this.tokens = new SecretTokens(options.now);
  }

  /** True when `capabilities` give this platform a private input (a link needs `gateway.public_url`). */
  available(capabilities: AdapterCapabilities): boolean {
    const kind = capabilities.privateInput;
    return kind === "modal" || kind === "form" || (kind === "link" && this.options.publicUrl !== undefined);
  }

  /**
   * Opens a private input for the admin who pressed a "Set KEY" button (`press`): a one-time token
   * bound to them and to the chat, and on link platforms the form's address. The prompt is the one the
   * skill declares for the variable.
   */
  async open(
    capabilities: AdapterCapabilities,
    press: InboundMessage,
    skill: string,
    key: string,
    locale?: Locale,
  ): Promise<SecretOpening | { refused: Text }> {
    if (!this.available(capabilities)) return { refused: t("secret.unavailable") };
    const view = await this.options.library.view(skill, { platform: press.platform }).catch(() => undefined);
    if (!view?.success) return { refused: t("secret.skillGone", { skill }) };
    const requirements = Array.isArray(view.required_environment_variables)
      ? (view.required_environment_variables as EnvRequirement[])
      : [];
    const requirement = requirements.find((item) => item.name === key);
    if (!requirement) return { refused: t("secret.keyGone", { skill, key }) };
    const refusedKey = refusedSecretReason(key, this.options.config);
    if (refusedKey) return { refused: refusedKey };
    const prompt: Text =
      requirement.prompt && requirement.prompt !== defaultPrompt(key)
        ? requirement.prompt
        : defaultPromptText(key);
    const token = this.tokens.issue({
      key,
      skill,
      prompt,
      platform: press.platform,
      userId: press.sender.id,
      chatId: press.chat.id,
      threadId: press.chat.threadId,
      ...(locale ? { locale } : {}),
    });
    const link = capabilities.privateInput === "link" ? this.options.publicUrl : undefined;
    return { token, key, skill, prompt, ...(link ? { url: `${link}/secret/${token}` } : {}) };
  }

  /** What the input for `token` asks, for this user; or the refusal text. */
  describe(token: string, platform: string, userId: string): SecretPrompt | { refused: Text } {
    return this.prompt(this.tokens.peek(token, platform, userId));
  }

  /** Same as `describe` for the one-time link (the link is the credential). */
  describeLink(token: string): SecretPrompt | { refused: Text } {
    return this.prompt(this.tokens.peekByLink(token));
  }

  /** Stores a value typed into a modal or card form by this user. */
  submit(token: string, platform: string, userId: string, raw: string): Promise<SecretSubmission> {
    const known = this.tokens.peek(token, platform, userId);
    return this.store(raw, () => this.tokens.take(token, platform, userId), localeOf(known));
  }

  /** Stores a value typed into the one-time form. */
  submitLink(token: string, raw: string): Promise<SecretSubmission> {
    return this.store(raw, () => this.tokens.takeByLink(token), localeOf(this.tokens.peekByLink(token)));
  }

  private prompt(result: PendingSecret | TokenRefusal): SecretPrompt | { refused: Text } {
    if (typeof result === "string") return { refused: refusalText(result) };
    return {
      key: result.key,
      skill: result.skill,
      prompt: result.prompt,
      ...(result.locale ? { locale: result.locale } : {}),
    };
  }

  private async store(
    raw: string,
    take: () => PendingSecret | TokenRefusal,
    locale: Locale | undefined,
  ): Promise<SecretSubmission> {
    const spoken = locale ? { locale } : {};
    const checked = checkSecretValue(raw);
    // A bad value does not use the token up: the admin can correct it in the same form.
    if ("problem" in checked)
      return {
        reply: textReply(t("secret.badValue", { problem: checked.problem }), { exitCode: 1 }),
        ...spoken,
      };
    const pending = take();
    if (typeof pending === "string")
      return {
        reply: textReply(t("secret.refused", { reason: refusalText(pending) }), { exitCode: 1 }),
        ...spoken,
      };
    try {
      await storeSecrets(this.options.home, new Map([[pending.key, checked.value]]), { replace: true });
    } catch (error) {
      if (!(error instanceof SkillgateError)) throw error;
      return { reply: textReply(t("secret.refused", { reason: error.text }), { exitCode: 1 }), ...spoken };
    }
    return { reply: await secretStoredReply(this.options.library, pending), stored: pending, ...spoken };
  }
}

/**
 * The readiness of `skill` now (as `platform` sees it; null for the terminal): its line ("`x`: ready."
 * or what it still needs) and the view's `readiness_status`; no line when the skill cannot be viewed.
 */
export async function secretReadiness(
  library: SkillLibrary,
  skill: string,
  platform: string | null,
): Promise<{ line?: Text; status: unknown }> {
  const view = await library.view(skill, { platform }).catch(() => undefined);
  if (!view?.success) return { status: view?.readiness_status ?? null };
  const missing = [
    ...asStrings(view.missing_required_environment_variables).map((name) =>
      t("secret.missing.variable", { name }),
    ),
    ...asStrings(view.missing_credential_files).map((name) => t("secret.missing.file", { name })),
    ...asStrings(view.missing_required_commands).map((name) => t("secret.missing.command", { name })),
  ];
  const line =
    missing.length === 0
      ? t("secret.skillReady", { skill })
      : t("secret.skillNeeds", { skill, missing: list(missing) });
  return { line, status: view.readiness_status ?? null };
}

/** "`KEY` set ✓" and the readiness of `skill` now (as `platform` sees it; null for the terminal). */
export async function secretStoredReply(
  library: SkillLibrary,
  stored: { key: string; skill: string; platform: string | null },
): Promise<Reply> {
  const readiness = await secretReadiness(library, stored.skill, stored.platform);
  const shown: Text[] = [t("secret.set", { key: stored.key }), ...(readiness.line ? [readiness.line] : [])];
  return reply([{ kind: "paragraph", text: lines(shown) }], {
    json: { ok: true, key: stored.key, skill: stored.skill, readiness: readiness.status },
  });
}
