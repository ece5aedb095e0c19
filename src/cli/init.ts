/**
 * `skillgate init [--examples]`: makes the home's skills folder, and installs the example skills when
 * asked.
 */
import { mkdir } from "node:fs/promises";
import { homePaths } from "../config/home.js";
import { list, type Text, t } from "../core/i18n/messages.js";
import { type CliIo, printReply } from "./terminal-io.js";

/** `skillgate init [--examples]`: creates `<home>/skills`, and installs the example skills when asked. */
export async function init(home: string, examples: boolean, json: boolean, io: CliIo): Promise<number> {
  const { reply } = await import("../core/reply.js");
  if (!examples) {
    await mkdir(homePaths(home).skills, { recursive: true });
    printReply(
      reply(
        [
          { kind: "paragraph", text: t("cli.init.ready", { home }) },
          { kind: "paragraph", text: t("cli.init.addSkills") },
        ],
        { json: { ok: true, home, installed: [] } },
      ),
      json,
      io,
    );
    return 0;
  }
  const { installExamples } = await import("./examples.js");
  const result = await installExamples(home);
  const lines: Text[] = [
    result.installed.length > 0
      ? t("cli.init.installed", {
          count: result.installed.length,
          dir: homePaths(home).skills,
          names: list(result.installed),
        })
      : t("cli.init.noneInstalled"),
    ...(result.skipped.length > 0 ? [t("cli.init.leftAlone", { names: list(result.skipped) })] : []),
    t("cli.init.next"),
  ];
  printReply(
    reply(
      lines.map((text) => ({ kind: "paragraph" as const, text })),
      { json: { ok: true, home, ...result } },
    ),
    json,
    io,
  );
  return 0;
}
