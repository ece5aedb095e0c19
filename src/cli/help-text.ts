/**
 * Commander's help in the reader's language: its headings, its `[options]` and `[command]` words and
 * its default and choice notes.
 */
import { stripVTControlCharacters } from "node:util";
import { Help } from "commander";
import type { Locale } from "../core/i18n/locale.js";
import { type MessageKey, resolveText, t } from "../core/i18n/messages.js";
import { displayWidth } from "../core/i18n/width.js";

/** Commander's help headings, in the reader's language. */
export const HELP_HEADINGS: Record<string, MessageKey> = {
  "Usage:": "cli.heading.usage",
  "Arguments:": "cli.heading.arguments",
  "Options:": "cli.heading.options",
  "Global Options:": "cli.heading.globalOptions",
  "Commands:": "cli.heading.commands",
};

export function helpHeading(title: string, locale: Locale): string {
  const key = HELP_HEADINGS[title];
  return key ? resolveText({ key }, locale) : title;
}

export const HELP_EXTRAS: Record<string, MessageKey> = {
  default: "cli.help.default",
  choices: "cli.help.choices",
  preset: "cli.help.preset",
  env: "cli.help.env",
};

/**
 * Commander's `(default: x)`, `(choices: "a", "b")` after a description, in the reader's language
 * (in Chinese: `（默认：x）`, the choices joined with 、).
 */
export function helpExtras(description: string, locale: Locale): string {
  if (locale === "en") return description;
  const extra = / \(((?:choices|default|preset|env): .*)\)$/s.exec(description);
  if (!extra) return description;
  const parts = (extra[1] ?? "").split(/, (?=(?:choices|default|preset|env): )/).map((part) => {
    const [, name = "", value = ""] = /^(\w+): (.*)$/s.exec(part) ?? [];
    const key = HELP_EXTRAS[name];
    return key ? resolveText({ key, params: { value: value.replaceAll('", "', '"、"') } }, locale) : part;
  });
  return `${description.slice(0, extra.index)}（${parts.join("；")}）`;
}

/** Commander's help in the reader's language: headings, `[options]`, `[command]`, defaults, no space after 用法：. */
export function localizedHelp(locale: Locale): Partial<Help> {
  const word = (text: string) =>
    text === "[options]"
      ? resolveText(t("cli.help.options"), locale)
      : text === "[command]"
        ? resolveText(t("cli.help.command"), locale)
        : text;
  return {
    styleTitle: (title) => helpHeading(title, locale),
    // Columns line up in a terminal: a CJK character takes two.
    displayWidth: (text) => displayWidth(stripVTControlCharacters(text)),
    styleOptionText: word,
    styleSubcommandText: word,
    optionDescription(this: Help, option) {
      return helpExtras(Help.prototype.optionDescription.call(this, option), locale);
    },
    argumentDescription(this: Help, argument) {
      return helpExtras(Help.prototype.argumentDescription.call(this, argument), locale);
    },
    formatHelp(this: Help, command, helper) {
      const usage = helpHeading("Usage:", locale);
      const text = Help.prototype.formatHelp.call(this, command, helper);
      return /[：:]$/.test(usage) && locale !== "en" ? text.replace(`${usage} `, usage) : text;
    },
  };
}
