/**
 * The Feishu/Lark platform's registration: its `gateway.feishu` config section (schema, defaults,
 * validation, including the domain rule), the secrets it needs and its adapter factory (the SDK is
 * imported only when it starts).
 */

import { t } from "../../src/core/i18n/messages.js";
import type { ConfigReader, PlatformsConfig } from "../../src/core/platforms.js";
import { platformSection } from "../../src/core/platforms.js";

/** `gateway.feishu`, with defaults applied. */
export interface FeishuConfig {
  enabled: boolean;
  /** `websocket` (the long connection, default) or `webhook`. */
  mode: "websocket" | "webhook";
  /** `feishu`, `lark`, or a full URL used verbatim. */
  domain?: string;
  verificationToken?: string;
  encryptKey?: string;
  /** The event webhook; `bind` is its listening address (default 127.0.0.1; a balancer elsewhere: `0.0.0.0`). */
  webhook: { url?: string; port?: number; path?: string; secret?: string; bind: string };
}

/** Parses `gateway.feishu`; a domain other than feishu, lark or an http(s) URL is refused. */
export function parseFeishuConfig(reader: ConfigReader): FeishuConfig {
  const webhook = reader.section("webhook");
  const domain = reader.str("domain");
  if (domain && !["feishu", "lark"].includes(domain) && !/^https?:\/\//.test(domain)) {
    reader.fail("domain", domain, t("config.req.feishuDomain"));
  }
  return {
    enabled: reader.bool("enabled", true),
    mode: reader.oneOf("mode", ["websocket", "webhook"], "websocket"),
    domain,
    verificationToken: reader.str("verification_token"),
    encryptKey: reader.str("encrypt_key"),
    webhook: {
      url: webhook.str("url"),
      port: webhook.num("port", { integer: true, min: 0, max: 65535 }),
      path: webhook.str("path"),
      secret: webhook.str("secret"),
      bind: webhook.str("bind") ?? "127.0.0.1",
    },
  };
}

/** The Feishu section of a parsed config. */
export function feishuConfig(config: PlatformsConfig): FeishuConfig {
  return platformSection<FeishuConfig>(config, "feishu");
}
