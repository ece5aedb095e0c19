/**
 * An in-memory adapter for tests: inject a message as any user in any chat, await the reply to it, and
 * assert on it with `shouldReply(input, expected)`. Records everything sent (including unsolicited
 * posts such as maintenance summaries) and every command catalog synced.
 */

import { randomUUID } from "node:crypto";
import { matchChatCommand } from "../../src/core/command-text.js";
import { resolveText } from "../../src/core/i18n/messages.js";
import type {
  Adapter,
  AdapterCapabilities,
  AdapterHealth,
  AdapterHooks,
  ChatKind,
  CommandCatalogEntry,
  InboundMessage,
  InboundSink,
  OutboundTarget,
  ParsedCommand,
  PlatformName,
} from "../../src/core/message.js";
import { type Reply, replyToPlainText } from "../../src/core/reply.js";

/** Who says it and where. */
export interface InjectOptions {
  /** Sender id (default `u1`). */
  user?: string;
  userName?: string;
  isBot?: boolean;
  /** Chat id (default: the sender's id, a DM). */
  chat?: string;
  /** Chat kind (default `dm`). */
  kind?: ChatKind;
  threadId?: string;
  /** Event id (default: a fresh UUID); reuse one to simulate a redelivery. */
  eventId?: string;
  /** A pre-parsed command, as a native-command adapter would deliver it. */
  command?: ParsedCommand;
  /** Deliver as plain text even if it looks like a command (the platform said it is not one for us). */
  asText?: boolean;
  /** The platform's id of the message (a chat message; absent, as for an interaction, by default). */
  platformMessageId?: string;
  /** The sender's language as the platform tells it. */
  language?: string;
}

/** One recorded send. */
export interface SentReply {
  target: OutboundTarget;
  reply: Reply;
  /** Plain text of the reply. */
  text: string;
  inReplyTo?: InboundMessage;
}

/** What `shouldReply` accepts as expectation: substring(s) or pattern(s), all must match. */
export type Expected = string | RegExp | (string | RegExp)[];

/** Options of `createMockAdapter`. */
export interface MockAdapterOptions {
  /** The platform it poses as (default `mock`). */
  platform?: PlatformName;
  capabilities?: Partial<AdapterCapabilities>;
  /** Make `start` fail (adapter-failure tests). */
  failStart?: boolean;
}

function matches(text: string, expected: Expected): boolean {
  const all = Array.isArray(expected) ? expected : [expected];
  return all.every((item) => (typeof item === "string" ? text.includes(item) : item.test(text)));
}

/** The in-memory adapter. */
export class MockAdapter implements Adapter {
  readonly platform: PlatformName;
  readonly capabilities: AdapterCapabilities;
  /** Every send, in order. */
  readonly sent: SentReply[] = [];
  /** Every catalog passed to `syncCommands`. */
  readonly catalogs: CommandCatalogEntry[][] = [];
  /** The hooks the gateway gave at start. */
  hooks: AdapterHooks | undefined;
  /** What `shouldNotReply` waits for before checking; set it to the gateway's `whenIdle`. */
  settle: () => Promise<void> = () => new Promise((resolve) => setTimeout(resolve, 100));
  private sink: InboundSink | undefined;
  private state: AdapterHealth["state"] = "stopped";
  private readonly waiting = new Map<string, (sent: SentReply) => void>();

  constructor(private readonly options: MockAdapterOptions = {}) {
    this.platform = options.platform ?? "mock";
    this.capabilities = {
      maxMessageLength: 4096,
      nativeCommands: true,
      edit: false,
      threads: true,
      ...options.capabilities,
    };
  }

  async start(sink: InboundSink, hooks?: AdapterHooks): Promise<void> {
    if (this.options.failStart) {
      this.state = "degraded";
      throw new Error("mock adapter configured to fail at start");
    }
    this.sink = sink;
    this.hooks = hooks;
    this.state = "connected";
  }

  async stop(): Promise<void> {
    this.sink = undefined;
    this.state = "stopped";
  }

  async send(target: OutboundTarget, reply: Reply, inReplyTo?: InboundMessage): Promise<void> {
    const sent: SentReply = { target, reply, text: replyToPlainText(reply), inReplyTo };
    this.sent.push(sent);
    if (inReplyTo) {
      this.waiting.get(inReplyTo.eventId)?.(sent);
      this.waiting.delete(inReplyTo.eventId);
    }
  }

  health(): AdapterHealth {
    return { state: this.state };
  }

  async syncCommands(catalog: CommandCatalogEntry[]): Promise<void> {
    this.catalogs.push(catalog);
  }

  /** Sets the reported health (for `/healthz` tests). */
  setHealth(state: AdapterHealth["state"]): void {
    this.state = state;
  }

  /** Builds the message `inject` would deliver. */
  message(text: string, options: InjectOptions = {}): InboundMessage {
    const user = options.user ?? "u1";
    return {
      eventId: options.eventId ?? randomUUID(),
      platform: this.platform,
      chat: { kind: options.kind ?? "dm", id: options.chat ?? user, threadId: options.threadId },
      sender: { id: user, name: options.userName, isBot: options.isBot ?? false },
      text,
      command: options.asText ? undefined : (options.command ?? matchChatCommand(text) ?? undefined),
      receivedAt: Date.now(),
      ...(options.platformMessageId ? { messageId: options.platformMessageId } : {}),
      ...(options.language ? { language: options.language } : {}),
    };
  }

  /** Delivers a message to the gateway; resolves once it is queued or dropped. */
  async inject(text: string, options: InjectOptions = {}): Promise<InboundMessage> {
    if (!this.sink) throw new Error("mock adapter is not started; start the gateway first");
    const message = this.message(text, options);
    await this.sink(message);
    return message;
  }

  /** Delivers a message and waits for the reply to it (undefined after `timeoutMs` without one). */
  async request(
    text: string,
    options: InjectOptions = {},
    timeoutMs = 10_000,
  ): Promise<SentReply | undefined> {
    const eventId = options.eventId ?? randomUUID();
    const answered = new Promise<SentReply | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(eventId);
        resolve(undefined);
      }, timeoutMs);
      this.waiting.set(eventId, (sent) => {
        clearTimeout(timer);
        resolve(sent);
      });
    });
    await this.inject(text, { ...options, eventId });
    return answered;
  }

  /**
   * Presses the button whose stored id is `actionId` (see `buttonsOf`), as a platform with buttons
   * would deliver it, and waits for the answer (undefined after `timeoutMs`). Give the mock
   * `capabilities: { buttons: true }` so replies keep their buttons.
   */
  async press(
    actionId: string,
    options: InjectOptions & { messageId?: string } = {},
    timeoutMs = 10_000,
  ): Promise<SentReply | undefined> {
    if (!this.sink) throw new Error("mock adapter is not started; start the gateway first");
    const sink = this.sink;
    const message: InboundMessage = {
      ...this.message("", { ...options, asText: true }),
      press: { actionId, messageId: options.messageId },
    };
    const answered = new Promise<SentReply | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(message.eventId);
        resolve(undefined);
      }, timeoutMs);
      this.waiting.set(message.eventId, (sent) => {
        clearTimeout(timer);
        resolve(sent);
      });
    });
    await sink(message);
    return answered;
  }

  /** The buttons of a sent reply: label → stored action id. */
  buttonsOf(sent: SentReply | undefined): Record<string, string> {
    const buttons: Record<string, string> = {};
    for (const action of sent?.reply.actions?.rows.flat() ?? []) {
      if (action.id) buttons[resolveText(action.label, sent?.reply.locale)] = action.id;
    }
    return buttons;
  }

  /** Sends `input` and asserts the reply contains (or matches) every `expected`; returns the reply text. */
  async shouldReply(input: string, expected: Expected, options: InjectOptions = {}): Promise<string> {
    const sent = await this.request(input, options);
    if (!sent) throw new Error(`Expected a reply to ${JSON.stringify(input)}, got none.`);
    if (!matches(sent.text, expected)) {
      throw new Error(`Reply to ${JSON.stringify(input)} does not match ${String(expected)}:\n${sent.text}`);
    }
    return sent.text;
  }

  /** Sends `input` and asserts no reply to it arrived once `settle` resolves. */
  async shouldNotReply(input: string, options: InjectOptions = {}): Promise<void> {
    const before = this.sent.length;
    const message = await this.inject(input, options);
    await this.settle();
    const replies = this.sent.slice(before).filter((sent) => sent.inReplyTo?.eventId === message.eventId);
    if (replies.length > 0)
      throw new Error(
        `Expected no reply to ${JSON.stringify(input)}, got:\n${replies.map((sent) => sent.text).join("\n---\n")}`,
      );
  }
}

/** Creates a mock adapter. */
export function createMockAdapter(options: MockAdapterOptions = {}): MockAdapter {
  return new MockAdapter(options);
}
