/**
 * The language of an answer in the home chat: the chat's `/language` choice, else `gateway.home_locale`,
 * whoever asked (so the summary and the answers to its buttons read alike); elsewhere the reader's own.
 * Traditional Chinese readers and settings pick `zh-TW` or `zh-HK`.
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

describe("Traditional Chinese readers and settings", () => {
  it("answer a zh-hant, zh-TW or Discord zh-TW reader in zh-TW and a zh-HK one in zh-HK", () => {
    const auto = parseConfig({ gateway: {} });
    expect(readerLocale(auto, telegram, from("-200", "zh-hant"))).toBe("zh-TW");
    expect(readerLocale(auto, telegram, from("-200", "zh-TW"))).toBe("zh-TW");
    expect(readerLocale(auto, telegram, from("-200", "zh-HK"))).toBe("zh-HK");
    expect(readerLocale(auto, telegram, from("-200", "zh-hans"))).toBe("zh-CN");
  });

  it("take zh-TW and zh-HK as gateway.locale, gateway.<platform>.locale and gateway.home_locale", () => {
    const set = parseConfig({
      gateway: { home_channel: "telegram:-100", home_locale: "zh-HK", locale: "zh-TW" },
    });
    expect(readerLocale(set, telegram, from("-200", "en"))).toBe("zh-TW");
    expect(readerLocale(set, telegram, undefined, "-100")).toBe("zh-HK");
    const platform = parseConfig({ gateway: { telegram: { locale: "zh-HK" } } });
    expect(readerLocale(platform, telegram, from("-200", "en"))).toBe("zh-HK");
  });
});
