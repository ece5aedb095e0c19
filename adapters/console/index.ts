/**
 * The terminal chat: each line typed (or piped) on stdin is one chat message from the local owner, and
 * replies are printed as terminal text. The same commands work as on any platform. When stdin ends the
 * `onEnd` callback fires (after every line was handed to the gateway), so
 * `printf '/curator status\n' | skillgate serve --console` answers and exits.
 */
import { randomUUID } from "node:crypto";
import readline from "node:readline";
import { matchChatCommand } from "../../src/core/command-text.js";
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
  logger?: Logger;
}

/** The chat id and sender id of the terminal chat. */
export const CONSOLE_CHAT_ID = "local";

/** The terminal chat adapter. */
export class ConsoleAdapter implements Adapter {
  readonly platform = "console" as const;
  readonly capabilities: AdapterCapabilities = {
    maxMessageLength: 1_000_000,
    nativeCommands: false,
    edit: false,
    threads: false,
  };
  private rl: readline.Interface | undefined;
  private state: AdapterHealth["state"] = "stopped";
  private handedOver: Promise<void> = Promise.resolve();
  private readonly input: NodeJS.ReadableStream;
  private readonly output: NodeJS.WritableStream & { isTTY?: boolean };
  private readonly interactive: boolean;

  constructor(private readonly options: ConsoleAdapterOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.interactive = Boolean((this.input as { isTTY?: boolean }).isTTY && this.output.isTTY);
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
      const message = this.message(text);
      this.handedOver = this.handedOver
        .then(() => sink(message))
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
    if (this.interactive) this.rl?.prompt();
  }

  health(): AdapterHealth {
    return { state: this.state };
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
