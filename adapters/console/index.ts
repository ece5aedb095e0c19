/**
 * The terminal chat: each line typed (or piped) on stdin is one chat message from the local owner, and
 * replies are printed as terminal text. The same commands work as on any platform. When stdin ends the
 * `onEnd` callback fires (after every line was handed to the gateway), so
 * `printf '/curator status\n' | skillgate serve --terminal` answers and exits. A question ("Archive
 * 'x'?") is answered by typing `y` on the next line (the command is then sent again with `-y`); any
 * other line leaves it unanswered, so nothing changes.
 */
import { randomUUID } from "node:crypto";
import readline from "node:readline";
import { matchChatCommand } from "../../src/core/command-text.js";
import { DEFAULT_LOCALE, type Locale } from "../../src/core/i18n/locale.js";
import { type Message, resolveText, t } from "../../src/core/i18n/messages.js";
import type { Logger } from "../../src/core/logger.js";
import type {
  Adapter,
  AdapterCapabilities,
  AdapterHealth,
  InboundMessage,
  InboundSink,
  OutboundTarget,
} from "../../src/core/message.js";
import { renderTerminal } from "../../src/core/render-terminal.js";
import type { Reply } from "../../src/core/reply.js";

/** Options of the terminal chat. */
export interface ConsoleAdapterOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Called once stdin has ended and every line was handed over. */
  onEnd?: () => void;
  /** ANSI styling; defaults to whether `output` is a TTY. */
  color?: boolean;
  /** The local user's display name. */
  user?: string;
  /** The language of the terminal (the CLI's `LANG`): replies and the chat's own lines; default English. */
  locale?: Locale;
  logger?: Logger;
}

/** Longest a typed `y`/`n` waits for the reply whose question it answers. */
const ANSWER_WAIT_MS = 60_000;

/** The chat id and sender id of the terminal chat. */
export const CONSOLE_CHAT_ID = "local";

/** The terminal chat adapter. */
export class ConsoleAdapter implements Adapter {
  readonly platform = "console" as const;
  readonly capabilities: AdapterCapabilities;
  private rl: readline.Interface | undefined;
  private state: AdapterHealth["state"] = "stopped";
  private handedOver: Promise<void> = Promise.resolve();
  private readonly input: NodeJS.ReadableStream;
  private readonly output: NodeJS.WritableStream & { isTTY?: boolean };
  private readonly interactive: boolean;
  /** The confirmed form (`… -y`) of the question last asked, until the next line answers it. */
  private pendingConfirmation: string | undefined;
  /** Lines handed to the gateway, and replies printed: a typed answer waits until they match. */
  private handed = 0;
  private printed = 0;
  private printedWaiters: (() => void)[] = [];

  constructor(private readonly options: ConsoleAdapterOptions = {}) {
    this.capabilities = {
      maxMessageLength: 1_000_000,
      nativeCommands: false,
      edit: false,
      threads: false,
      typedAnswers: true,
      ...(options.locale ? { defaultLocale: options.locale } : {}),
    };
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.interactive = Boolean((this.input as { isTTY?: boolean }).isTTY && this.output.isTTY);
  }

  /** One of the terminal chat's own lines, in the terminal's language. */
  private say(text: Message): string {
    return resolveText(text, this.options.locale ?? DEFAULT_LOCALE);
  }

  async start(sink: InboundSink): Promise<void> {
    const rl = readline.createInterface({
      input: this.input,
      output: this.interactive ? this.output : undefined,
      terminal: this.interactive,
    });
    this.rl = rl;
    this.state = "connected";
    if (this.interactive) {
      this.output.write("skillgate terminal chat: type /help for commands; Ctrl-D quits.\n");
      rl.setPrompt("> ");
      rl.prompt();
    }
    rl.on("line", (line) => {
      const text = line.trim();
      if (text === "") {
        if (this.interactive) rl.prompt();
        return;
      }
      // A `y` or `n` answers the question of the reply to the line before it, so it is read once that
      // reply is printed (piped lines arrive before their replies).
      const answering = /^(y|yes|n|no)$/i.test(text);
      this.handedOver = this.handedOver
        .then(() => (answering ? this.repliesPrinted() : undefined))
        .then(async () => {
          const message = this.answer(text);
          if (!message) {
            if (this.interactive) rl.prompt();
            return;
          }
          this.handed += 1;
          await sink(message);
        })
        .catch((error) =>
          this.options.logger?.error({ err: error }, "console: handing a line to the gateway failed"),
        );
    });
    rl.on("close", () => {
      const wasOurs = this.state === "stopped";
      this.state = "stopped";
      this.rl = undefined;
      if (!wasOurs) void this.handedOver.then(() => this.options.onEnd?.());
    });
  }

  async stop(): Promise<void> {
    this.state = "stopped";
    const rl = this.rl;
    this.rl = undefined;
    rl?.close();
  }

  async send(_target: OutboundTarget, reply: Reply): Promise<void> {
    const text = renderTerminal(reply, { color: this.options.color ?? Boolean(this.output.isTTY) });
    if (text) this.output.write(text);
    const json = reply.json as { confirmation_required?: unknown; command?: unknown } | undefined;
    if (json?.confirmation_required === true && typeof json.command === "string") {
      this.pendingConfirmation = json.command;
      this.output.write(`${this.say(t("terminal.confirmHint"))}\n`);
    }
    this.printed += 1;
    if (this.printed >= this.handed) for (const wake of this.printedWaiters.splice(0)) wake();
    if (this.interactive) this.rl?.prompt();
  }

  /**
   * Prints a notice that is not a reply (the web console's address and login link) above the prompt,
   * keeping what was typed so far.
   */
  announce(text: string): void {
    if (this.interactive && this.rl) {
      readline.clearLine(this.output, 0);
      readline.cursorTo(this.output, 0);
      this.output.write(`${text}\n`);
      this.rl.prompt(true);
      return;
    }
    this.output.write(`${text}\n`);
  }

  health(): AdapterHealth {
    return { state: this.state };
  }

  /** Resolves once every line handed over has had its reply printed (at most a minute: never stuck). */
  private repliesPrinted(): Promise<void> {
    if (this.printed >= this.handed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ANSWER_WAIT_MS);
      timer.unref();
      this.printedWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * The message a typed line stands for: after a question, `y`/`yes` is its confirmed command and
   * `n`/`no` is answered here (undefined: nothing to hand over); any other line is itself.
   */
  private answer(text: string): InboundMessage | undefined {
    const pending = this.pendingConfirmation;
    this.pendingConfirmation = undefined;
    if (pending !== undefined && /^(y|yes)$/i.test(text)) return this.message(pending);
    if (pending !== undefined && /^(n|no)$/i.test(text)) {
      this.output.write(`${this.say(t("terminal.cancelled"))}\n`);
      return undefined;
    }
    return this.message(text);
  }

  private message(text: string): InboundMessage {
    return {
      eventId: randomUUID(),
      platform: "console",
      chat: { kind: "dm", id: CONSOLE_CHAT_ID },
      sender: { id: CONSOLE_CHAT_ID, name: this.options.user, isBot: false },
      text,
      command: matchChatCommand(text) ?? undefined,
      receivedAt: Date.now(),
    };
  }
}

/** Creates the terminal chat adapter. */
export function createConsoleAdapter(options: ConsoleAdapterOptions = {}): ConsoleAdapter {
  return new ConsoleAdapter(options);
}
