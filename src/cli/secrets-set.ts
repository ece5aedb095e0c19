/**
 * `skillgate secrets set <KEY>`: the host-side way to put a skill's declared secret into `<home>/.env`.
 * The value is read from the terminal without echo, or from stdin when it is not a terminal (one
 * trailing newline dropped), and goes through the same checks and writer as the chat's private input:
 * a declared variable only, never a loader/runtime variable or the gateway's own credentials, one line,
 * a symlinked `.env` refused. Afterwards each declaring skill's readiness is shown. The value is never
 * printed.
 */
import type { SkillgateConfig } from "../config/config.js";
import { checkSecretValue, DOTENV_KEY, MAX_SECRET_LENGTH, writeDotenv } from "../config/dotenv-write.js";
import { refusedSecretReason } from "../config/secret-keys.js";
import { SkillgateError } from "../core/errors.js";
import { lines, list, type Text, t } from "../core/i18n/messages.js";
import { errorReply, type Reply, reply } from "../core/reply.js";
import { secretReadiness } from "../gateway/secrets-entry/service.js";
import { openLibrary } from "../skills/library.js";
import { envRequirements } from "../skills/readiness.js";
import { type CliIo, makePrompt, printReply } from "./terminal-io.js";

/** Where the value comes from: a hidden prompt on a terminal, else the whole of stdin. */
export interface SecretSource {
  /** Set when stdin is a terminal: asks with hidden input. */
  prompt?: (question: Text, options?: { hidden?: boolean }) => Promise<string>;
  stdin: NodeJS.ReadableStream;
}

/** Reads stdin to its end (at most a little more than the longest secret), dropping one final newline. */
async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(buffer);
    size += buffer.length;
    if (size > MAX_SECRET_LENGTH * 4 + 2) break;
  }
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** Runs `skillgate secrets set <key>` against `home`; the reply says what happened (never the value). */
export async function setSecretFromCli(
  home: string,
  config: SkillgateConfig,
  key: string,
  source: SecretSource,
): Promise<Reply> {
  if (!DOTENV_KEY.test(key)) {
    return errorReply(t("secrets.badName", { key }), 2);
  }
  const refused = refusedSecretReason(key, config);
  if (refused) return errorReply(refused);
  const library = openLibrary(home, config, { watch: false });
  const owners = (await library.all())
    .filter((entry) => envRequirements(entry.frontmatter).some((requirement) => requirement.name === key))
    .map((entry) => entry.name);
  if (owners.length === 0) {
    return errorReply(t("secrets.undeclared", { key }));
  }
  const raw = source.prompt
    ? await source.prompt(t("secrets.ask", { key, owners: list(owners) }), { hidden: true })
    : await readAll(source.stdin);
  const checked = checkSecretValue(raw);
  if ("problem" in checked) return errorReply(checked.problem);
  try {
    await writeDotenv(home, new Map([[key, checked.value]]));
  } catch (error) {
    if (error instanceof SkillgateError) return errorReply(error.text, error.exitCode);
    throw error;
  }
  library.invalidate();
  const readiness = await Promise.all(owners.map((skill) => secretReadiness(library, skill, null)));
  const shown = [t("secret.set", { key }), ...readiness.flatMap((item) => (item.line ? [item.line] : []))];
  return reply([{ kind: "paragraph", text: lines(shown) }], {
    json: {
      ok: true,
      key,
      skills: owners,
      readiness: owners.map((skill, index) => ({
        ok: true,
        key,
        skill,
        readiness: readiness[index]?.status ?? null,
      })),
    },
  });
}

/** `skillgate secrets set <KEY>` on the terminal: hidden prompt on a terminal, else the value from stdin. */
export async function secretsSetOnTerminal(
  home: string,
  config: SkillgateConfig,
  key: string,
  io: CliIo,
): Promise<number> {
  const tty = Boolean((io.stdin as { isTTY?: boolean }).isTTY);
  const answer = await setSecretFromCli(home, config, key, {
    stdin: io.stdin,
    prompt: tty ? makePrompt(io) : undefined,
  });
  printReply(answer, false, io);
  return answer.exitCode;
}
