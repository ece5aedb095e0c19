/**
 * Refuses a Node.js older than skillgate needs, with one line, before the command line loads anything
 * else: `main.ts` imports this module first, so it runs before commander, the config or an SDK is
 * evaluated. The line comes from the catalogs, loaded only when it is needed.
 */

/** The oldest Node.js skillgate runs on (package.json `engines.node`). */
export const MINIMUM_NODE = { major: 20, minor: 19 } as const;

/** True when `version` (as in `process.versions.node`, e.g. `18.19.1`; a leading `v` is allowed) is older than 20.19. */
export function nodeTooOld(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major < MINIMUM_NODE.major || (major === MINIMUM_NODE.major && minor < MINIMUM_NODE.minor);
}

/** The refusal in the reader's language (`LANG`/`LC_*` of `env`). */
export async function nodeTooOldLine(version: string, env: NodeJS.ProcessEnv): Promise<string> {
  const [{ resolveText, t }, { localeFromEnv }] = await Promise.all([
    import("../core/i18n/messages.js"),
    import("../core/i18n/locale.js"),
  ]);
  return resolveText(t("cli.node.old", { version }), localeFromEnv(env));
}

if (nodeTooOld(process.versions.node)) {
  process.stderr.write(`${await nodeTooOldLine(process.versions.node, process.env)}\n`);
  process.exit(78);
}
