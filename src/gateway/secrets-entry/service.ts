/**
 * Private secret entry: a "Set KEY" button (a stored action, see `core/actions.ts`) pressed by an admin
 * opens a private input for one missing variable of a skill (a Discord modal, a Feishu card form, or a
 * one-time form link), and what comes back is stored in
 * `<home>/.env`. The value is never logged, echoed, put in a reply, a ledger or a session: the chat only
 * hears "`KEY` set ✓" and the skill's new readiness. Chat messages are never read as secrets.
 */
import { checkSecretValue } from "../../config/dotenv-write.js";
import { refusedSecretReason } from "../../config/secret-keys.js";
import { SkillgateError } from "../../core/errors.js";
import type { AdapterCapabilities, InboundMessage, SecretInputOpening } from "../../core/message.js";
import { type Reply, reply, textReply } from "../../core/reply.js";
import { type EnvRequirement, storeSecrets } from "../../skills/readiness.js";
import type { SkillLibrary } from "../../skills/types.js";
import { type PendingSecret, refusalText, SecretTokens, type TokenRefusal } from "./tokens.js";

/** Options of `SecretEntry`. */
export interface SecretEntryOptions {
  home: string;
  library: SkillLibrary;
  now?: () => number;
  /** `gateway.public_url`, when the one-time form server is reachable from outside. */
  publicUrl?: string;
}

/** What a private input shows before the value is typed. */
export interface SecretPrompt {
  key: string;
  skill: string;
  prompt: string;
}

/** The answer to a submitted value, and where the link flow should post it. */
export interface SecretSubmission {
  reply: Reply;
  /** Set when the value was stored. */
  stored?: PendingSecret;
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
  ): Promise<SecretInputOpening | { refused: string }> {
    if (!this.available(capabilities)) return { refused: "Private secret entry is not available here." };
    const view = await this.options.library.view(skill, { platform: press.platform }).catch(() => undefined);
    if (!view?.success) return { refused: `The skill \`${skill}\` is not available here any more.` };
    const requirements = Array.isArray(view.required_environment_variables)
      ? (view.required_environment_variables as EnvRequirement[])
      : [];
    const requirement = requirements.find((item) => item.name === key);
    if (!requirement) return { refused: `\`${skill}\` does not declare \`${key}\` any more.` };
    const refusedKey = refusedSecretReason(key);
    if (refusedKey) return { refused: refusedKey };
    const prompt = requirement.prompt || `Enter value for ${key}`;
    const token = this.tokens.issue({
      key,
      skill,
      prompt,
      platform: press.platform,
      userId: press.sender.id,
      chatId: press.chat.id,
      threadId: press.chat.threadId,
    });
    const link = capabilities.privateInput === "link" ? this.options.publicUrl : undefined;
    return { token, key, skill, prompt, ...(link ? { url: `${link}/secret/${token}` } : {}) };
  }

  /** What the input for `token` asks, for this user; or the refusal text. */
  describe(token: string, platform: string, userId: string): SecretPrompt | { refused: string } {
    return this.prompt(this.tokens.peek(token, platform, userId));
  }

  /** Same as `describe` for the one-time link (the link is the credential). */
  describeLink(token: string): SecretPrompt | { refused: string } {
    return this.prompt(this.tokens.peekByLink(token));
  }

  /** Stores a value typed into a modal or card form by this user. */
  submit(token: string, platform: string, userId: string, raw: string): Promise<SecretSubmission> {
    return this.store(raw, () => this.tokens.take(token, platform, userId));
  }

  /** Stores a value typed into the one-time form. */
  submitLink(token: string, raw: string): Promise<SecretSubmission> {
    return this.store(raw, () => this.tokens.takeByLink(token));
  }

  private prompt(result: PendingSecret | TokenRefusal): SecretPrompt | { refused: string } {
    if (typeof result === "string") return { refused: refusalText(result) };
    return { key: result.key, skill: result.skill, prompt: result.prompt };
  }

  private async store(raw: string, take: () => PendingSecret | TokenRefusal): Promise<SecretSubmission> {
    const checked = checkSecretValue(raw);
    // A bad value does not use the token up: the admin can correct it in the same form.
    if ("problem" in checked) return { reply: textReply(`⚠️ ${checked.problem}`, { exitCode: 1 }) };
    const pending = take();
    if (typeof pending === "string")
      return { reply: textReply(`⛔ ${refusalText(pending)}`, { exitCode: 1 }) };
    try {
      await storeSecrets(this.options.home, new Map([[pending.key, checked.value]]), { replace: true });
    } catch (error) {
      if (!(error instanceof SkillgateError)) throw error;
      return { reply: textReply(`⛔ ${error.message}`, { exitCode: 1 }) };
    }
    return { reply: await secretStoredReply(this.options.library, pending), stored: pending };
  }
}

/** "`KEY` set ✓" and the readiness of `skill` now (as `platform` sees it; null for the terminal). */
export async function secretStoredReply(
  library: SkillLibrary,
  stored: { key: string; skill: string; platform: string | null },
): Promise<Reply> {
  const view = await library.view(stored.skill, { platform: stored.platform }).catch(() => undefined);
  const lines = [`\`${stored.key}\` set ✓`];
  if (view?.success) {
    const missing = [
      ...asStrings(view.missing_required_environment_variables).map((name) => `variable \`${name}\``),
      ...asStrings(view.missing_credential_files).map((file) => `file \`${file}\``),
      ...asStrings(view.missing_required_commands).map((command) => `command \`${command}\``),
    ];
    lines.push(
      missing.length === 0
        ? `${stored.skill}: ready.`
        : `${stored.skill}: setup still needed — ${missing.join(", ")}.`,
    );
  }
  return reply([{ kind: "paragraph", text: lines.join("\n") }], {
    json: { ok: true, key: stored.key, skill: stored.skill, readiness: view?.readiness_status ?? null },
  });
}
