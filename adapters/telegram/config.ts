/**
 * The Telegram platform's registration: its `gateway.telegram` config section (schema, defaults,
 * validation), the secret it needs and its adapter factory (grammY is imported only when it starts).
 */
import type { ConfigReader, PlatformsConfig } from "../../src/core/platforms.js";
import { platformSection } from "../../src/core/platforms.js";

/** `gateway.telegram`, with defaults applied. */
export interface TelegramConfig {
  enabled: boolean;
  /** `polling` (default) or `webhook`. */
  mode: "polling" | "webhook";
  /** Bot API root without a trailing slash (default https://api.telegram.org). */
  apiRoot?: string;
  /**
   * The webhook listener. `bind` is the address it listens on (default 127.0.0.1, behind a TLS proxy on
   * the same machine); replicas behind a load balancer on another host or container listen on theirs.
   */
  webhook: { url?: string; port?: number; path?: string; secret?: string; bind: string };
}

/** Parses `gateway.telegram`. */
export function parseTelegramConfig(reader: ConfigReader): TelegramConfig {
  const webhook = reader.section("webhook");
  return {
    enabled: reader.bool("enabled", true),
    mode: reader.oneOf("mode", ["polling", "webhook"], "polling"),
    apiRoot: reader.str("api_root")?.replace(/\/+$/, ""),
    webhook: {
      url: webhook.str("url"),
      port: webhook.num("port", { integer: true, min: 0, max: 65535 }),
      path: webhook.str("path"),
      secret: webhook.str("secret"),
      bind: webhook.str("bind") ?? "127.0.0.1",
    },
  };
}

/** The Telegram section of a parsed config. */
export function telegramConfig(config: PlatformsConfig): TelegramConfig {
  return platformSection<TelegramConfig>(config, "telegram");
}
