/**
 * Readers' languages where the platform reports one only on some events. A Discord interaction carries
 * the user's client `locale` ("Selected language of the invoking user"); a typed message (MESSAGE_CREATE)
 * carries none, so it would be answered in the guild's or the platform's default. For an adapter with
 * `capabilities.remembersReaderLanguage`, the gateway remembers each reader's last reported tag in the
 * sessions store (shared across replicas on Redis) and gives it to their messages that come without one.
 */

import type { Logger } from "../core/logger.js";
import type { Adapter, InboundMessage } from "../core/message.js";
import type { ChatSessions } from "../core/stores.js";

/** Readers whose last tag this process wrote, so an unchanged tag is not written again. */
const KNOWN_LIMIT = 10_000;

/** Remembers and supplies readers' languages (see the module comment). */
export class ReaderLanguages {
  private readonly known = new Map<string, string>();

  constructor(
    private readonly sessions: () => ChatSessions | undefined,
    private readonly logger: Logger,
  ) {}

  /**
   * `message` with its reader's language: as reported (and remembered when it changed), else the last one
   * remembered for its sender, else as it came. A store failure leaves the message as it came.
   */
  async complete(adapter: Pick<Adapter, "capabilities">, message: InboundMessage): Promise<InboundMessage> {
    const sessions = this.sessions();
    if (!adapter.capabilities.remembersReaderLanguage || !sessions?.readerLanguage) return message;
    const reader = `${message.platform}:${message.sender.id}`;
    try {
      if (message.language) {
        if (this.known.get(reader) !== message.language) {
          await sessions.setReaderLanguage?.(reader, message.language);
          this.remember(reader, message.language);
        }
        return message;
      }
      const remembered = await sessions.readerLanguage(reader);
      if (!remembered) return message;
      this.remember(reader, remembered);
      return { ...message, language: remembered };
    } catch (error) {
      this.logger.warn(
        { err: error, platform: message.platform },
        "gateway: reading or writing a reader's language failed; using the message's own",
      );
      return message;
    }
  }

  private remember(reader: string, tag: string): void {
    this.known.delete(reader);
    this.known.set(reader, tag);
    if (this.known.size > KNOWN_LIMIT) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
  }
}
