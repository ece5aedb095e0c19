/**
 * How the Discord adapter answers an interaction, whatever brought it: the discord.js object of one
 * received over the gateway session, or its JSON alone (`WebhookInteraction`) — one the Interactions
 * Endpoint received here, or one another replica received and the leader now answers. An interaction
 * gets exactly one initial response (a deferral, a message, a modal, autocomplete choices); after it
 * the original response is edited and follow-ups are posted with the interaction token, for 15 minutes
 * (Discord docs, Receiving and Responding → Followup Messages: `PATCH /webhooks/{application.id}/
 * {interaction.token}/messages/@original`, `POST /webhooks/{application.id}/{interaction.token}`, which
 * work the same for interactions received over the gateway or by HTTP).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type REST, Routes } from "discord.js";
import type { ActionRowJson, EmbedJson } from "./actions.js";

/** A message as the answering methods take it (discord.js's option names). */
export interface AnswerOptions {
  content?: string;
  embeds?: EmbedJson[];
  components?: ActionRowJson[];
  files?: { attachment: Buffer; name: string }[];
  allowedMentions?: { parse: never[] };
  /** 64: EPHEMERAL, only the user who interacted sees it. */
  flags?: number;
}

/** An autocomplete choice. */
export interface Choice {
  name: string;
  value: string;
}

/** What the adapter calls on an interaction it answers (the subset of discord.js it uses). */
export interface AnswerableInteraction {
  readonly id: string;
  /** Initial response 5: "thinking…", edited later. */
  deferReply(): Promise<unknown>;
  /** Initial response 6 (components): nothing shown; the pressed message is edited later. */
  deferUpdate(): Promise<unknown>;
  /** Initial response 4: a message. */
  reply(options: AnswerOptions): Promise<unknown>;
  /** Edits the original response (for a component: the message the component is on). */
  editReply(options: AnswerOptions): Promise<unknown>;
  /** A follow-up message. */
  followUp(options: AnswerOptions): Promise<unknown>;
}

/** The JSON an interaction must carry to be answered from it alone. */
export interface InteractionAddress {
  id: string;
  token: string;
  application_id: string;
  type: number;
}

/** True when `raw` (a message's `raw`, possibly JSON from another replica) can be answered by token. */
export function interactionAddress(raw: unknown): InteractionAddress | undefined {
  const value = raw as Partial<InteractionAddress> | null | undefined;
  if (!value || typeof value !== "object") return undefined;
  const { id, token, application_id: app, type } = value;
  if (typeof id !== "string" || typeof token !== "string" || typeof app !== "string") return undefined;
  if (typeof type !== "number") return undefined;
  return { id, token, application_id: app, type };
}

/** Sends an initial response (an interaction response object, `{type, data}`) for one interaction. */
export type InitialResponder = (response: { type: number; data?: unknown }) => Promise<void>;

/** Raised for a second initial response (Discord: 40060 "Interaction has already been acknowledged"). */
export class AlreadyAnsweredError extends Error {
  constructor(id: string) {
    super(`Discord interaction ${id} has already been acknowledged.`);
    this.name = "AlreadyAnsweredError";
  }
}

/**
 * Discord answers an edit of `@original` or a follow-up with 10015 Unknown Webhook (or 10008 Unknown
 * Message) until it has processed the initial response; a reply that races its own deferral (another
 * replica deferred a moment ago) tries again a few times.
 */
const EARLY_RETRIES_MS = [100, 250, 500, 1_000];

/**
 * An interaction answered from its JSON: the initial response goes to `initial` (the Interactions
 * Endpoint's open HTTP request) or, when another process gave it (`initial` undefined), is taken as
 * given; edits and follow-ups go through REST with the interaction token (no bot authorization).
 */
export class WebhookInteraction implements AnswerableInteraction {
  readonly id: string;
  private answered: boolean;

  constructor(
    private readonly rest: REST,
    private readonly address: InteractionAddress,
    private readonly initial: InitialResponder | undefined,
  ) {
    this.id = address.id;
    this.answered = initial === undefined;
  }

  /** The initial response was given (here or by the replica that received the interaction). */
  get hasAnswered(): boolean {
    return this.answered;
  }

  deferReply(): Promise<void> {
    return this.respond({ type: 5 });
  }

  deferUpdate(): Promise<void> {
    return this.respond({ type: 6 });
  }

  reply(options: AnswerOptions): Promise<void> {
    return this.respond({ type: 4, data: toJson(options).body });
  }

  /** Initial response 9: a modal (`secret-input.ts` builds it). */
  showModal(modal: Record<string, unknown>): Promise<void> {
    return this.respond({ type: 9, data: modal });
  }

  /** Initial response 8: autocomplete choices. */
  autocomplete(choices: Choice[]): Promise<void> {
    return this.respond({ type: 8, data: { choices } });
  }

  /** Sends the initial response once; a second one is refused as Discord refuses it. */
  async respond(response: { type: number; data?: unknown }): Promise<void> {
    if (this.answered || !this.initial) throw new AlreadyAnsweredError(this.id);
    this.answered = true;
    await this.initial(response);
  }

  editReply(options: AnswerOptions): Promise<unknown> {
    const { application_id: app, token } = this.address;
    return this.early(() =>
      this.rest.patch(Routes.webhookMessage(app, token, "@original"), request(options)),
    );
  }

  followUp(options: AnswerOptions): Promise<unknown> {
    const { application_id: app, token } = this.address;
    return this.early(() => this.rest.post(Routes.webhook(app, token), request(options)));
  }

  private async early<T>(call: () => Promise<T>): Promise<T> {
    for (const delay of EARLY_RETRIES_MS) {
      try {
        return await call();
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code !== 10015 && code !== 10008) throw error;
        await sleep(delay);
      }
    }
    return call();
  }
}

/** A REST request for a webhook route: JSON body, the files as `files[n]` parts. */
function request(options: AnswerOptions): {
  body: Record<string, unknown>;
  files?: { name: string; data: Buffer; contentType: string }[];
  auth: false;
} {
  const { body, files } = toJson(options);
  return { body, ...(files ? { files } : {}), auth: false };
}

/** discord.js-style options as the API's JSON (snake_case), the files apart. */
function toJson(options: AnswerOptions): {
  body: Record<string, unknown>;
  files?: { name: string; data: Buffer; contentType: string }[];
} {
  const { files, allowedMentions, ...rest } = options;
  const body: Record<string, unknown> = {
    ...rest,
    ...(allowedMentions ? { allowed_mentions: allowedMentions } : {}),
  };
  if (!files || files.length === 0) return { body };
  body.attachments = files.map((file, id) => ({ id, filename: file.name }));
  return {
    body,
    files: files.map((file) => ({
      name: file.name,
      data: file.attachment,
      contentType: "text/plain; charset=utf-8",
    })),
  };
}
