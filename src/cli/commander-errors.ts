/**
 * Commander's own error messages in the reader's language. Commander 14 writes them in English from a
 * few fixed templates (`error: missing required argument 'skill'`, `error: unknown option '--bogus'`
 * with its "(Did you mean …?)" line, too many arguments, an invalid value …) and offers no hook but
 * `configureOutput({ outputError })`, which receives the finished text. `commanderErrorText` recognises
 * each template and gives the catalog message whose English is that very text; a message it does not
 * know (a newer commander's) comes back as it is, in English.
 */
import { english, list, type Text, t } from "../core/i18n/messages.js";

/** One of commander's templates: its pattern, and the catalog message for what the pattern captured. */
type Template = readonly [RegExp, (match: RegExpExecArray) => Text];

/** Why a value was refused: our `parseInteger`'s words and commander's `choices` check. */
function reasonText(reason: string): Text {
  if (reason === english(t("cli.error.wholeNumber"))) return t("cli.error.wholeNumber");
  const choices = /^Allowed choices are (.*)\.$/s.exec(reason);
  // Commander joins the choices with ", "; the reader's list joins them again (the same bytes in English).
  if (choices) return t("cli.error.choices", { choices: list((choices[1] ?? "").split(", ")) });
  return reason;
}

const TEMPLATES: readonly Template[] = [
  [/^error: missing required argument '(.*)'$/s, (m) => t("cli.error.missingArgument", { name: m[1] ?? "" })],
  [
    /^error: option '(.*)' argument missing$/s,
    (m) => t("cli.error.optionMissingArgument", { flags: m[1] ?? "" }),
  ],
  [
    /^error: required option '(.*)' not specified$/s,
    (m) => t("cli.error.requiredOption", { flags: m[1] ?? "" }),
  ],
  [/^error: unknown option '(.*)'$/s, (m) => t("cli.error.unknownOption", { flag: m[1] ?? "" })],
  [/^error: unknown command '(.*)'$/s, (m) => t("cli.error.unknownCommand", { name: m[1] ?? "" })],
  [
    /^error: too many arguments(?: for '(.*)')?\. Expected (\d+) arguments? but got (\d+)\.$/s,
    (m) => {
      const counts = { count: Number(m[2]), received: Number(m[3]) };
      return m[1] === undefined
        ? t("cli.error.excessArguments", counts)
        : t("cli.error.excessArgumentsFor", { ...counts, command: m[1] });
    },
  ],
  [
    /^error: option '(.*)' argument '(.*)' is invalid\. (.*)$/s,
    (m) =>
      t("cli.error.invalidOptionValue", {
        flags: m[1] ?? "",
        value: m[2] ?? "",
        reason: reasonText(m[3] ?? ""),
      }),
  ],
  [
    /^error: option '(.*)' value '(.*)' from env '(.*)' is invalid\. (.*)$/s,
    (m) =>
      t("cli.error.invalidEnvValue", {
        flags: m[1] ?? "",
        value: m[2] ?? "",
        env: m[3] ?? "",
        reason: reasonText(m[4] ?? ""),
      }),
  ],
  [
    /^error: command-argument value '(.*)' is invalid for argument '(.*)'\. (.*)$/s,
    (m) =>
      t("cli.error.invalidArgument", {
        value: m[1] ?? "",
        name: m[2] ?? "",
        reason: reasonText(m[3] ?? ""),
      }),
  ],
];

/** The catalog message of one of commander's messages without a suggestion line, or undefined. */
function knownText(message: string): Text | undefined {
  for (const [pattern, build] of TEMPLATES) {
    const match = pattern.exec(message);
    if (match) return build(match);
  }
  return undefined;
}

/**
 * A message commander wrote (without its final newline) as a catalog text whose English is exactly
 * `message`; the message itself when commander's words are not one of the templates above.
 */
export function commanderErrorText(message: string): Text {
  const suggested = /^(.*)\n\(Did you mean (one of )?(.*)\?\)$/s.exec(message);
  const base = suggested ? knownText(suggested[1] ?? "") : knownText(message);
  if (base === undefined) return message;
  const text = !suggested
    ? base
    : suggested[2]
      ? t("cli.error.didYouMeanOneOf", { error: base, suggestions: suggested[3] ?? "" })
      : t("cli.error.didYouMean", { error: base, suggestion: suggested[3] ?? "" });
  // The English must be commander's own words, byte for byte; anything else stays as commander wrote it.
  return english(text) === message ? text : message;
}
