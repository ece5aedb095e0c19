/**
 * The language of an answer in the home chat: the chat's `/language` choice, else `gateway.home_locale`,
 * whoever asked (so the summary and the answers to its buttons read alike); elsewhere the reader's own.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { readerLocale } from "../../src/gateway/locale.js";

const config = parseConfig({ gateway: { home_channel: "telegram:-100", home_locale: "zh-CN" } });
const telegram = {
  platform: "telegram",
  capabilities: { maxMessageLength: 4096, nativeCommands: true, edit: true, threads: true },
};
const from = (chat: string, language: string) => ({ chat: { id: chat }, language }) as never;

describe("answers in the home chat", () => {
  it("use gateway.home_locale whoever asks, and the chat's own choice over it", () => {
    expect(readerLocale(config, telegram, from("-100", "en"))).toBe("zh-CN");
    expect(readerLocale(config, telegram, undefined, "-100")).toBe("zh-CN");
    expect(readerLocale(config, telegram, from("-100", "zh-hans"), undefined, "en")).toBe("en");
  });

  it("leave other chats, and the same id on another platform, to the reader", () => {
    expect(readerLocale(config, telegram, from("-200", "en"))).toBe("en");
    expect(readerLocale(config, { ...telegram, platform: "discord" }, from("-100", "en"))).toBe("en");
    const auto = parseConfig({ gateway: { home_channel: "telegram:-100" } });
    expect(readerLocale(auto, telegram, from("-100", "en"))).toBe("en");
  });
});
