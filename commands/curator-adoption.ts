/**
 * Which skills the curator looks after: `curator pin | unpin`, `curator adopt` and `curator
 * list-unmanaged`.
 */
import { CuratorError } from "../src/core/errors.js";
import { lines, list, pad, type Text, t } from "../src/core/i18n/messages.js";
import { errorReply, reply, textReply } from "../src/core/reply.js";
import { adoptSkill, listUnmanaged, setPinned } from "../src/curator/operations.js";
import { paged } from "./buttons.js";
import { ops, padNumber, since } from "./curator-common.js";
import {
  type CommandContext,
  type CommandInput,
  type CommandSpec,
  defineCommand,
  type OptionSpec,
  type OptionValues,
} from "./types.js";

// ---------------------------------------------------------------- pin / unpin

/** `curator pin` (true) or `curator unpin` (false). */
export function pinCommand(value: boolean): CommandSpec {
  return {
    path: ["curator", value ? "pin" : "unpin"],
    summary: value ? t("cmd.summary.pin") : t("cmd.summary.unpin"),
    args: [{ name: "skill", description: t("cmd.arg.skillName"), required: true }],
    mutating: true,
    async run(ctx, input) {
      const name = input.args[0] ?? "";
      const result = await setPinned(ops(ctx), name, value);
      const text = t("cmd.curatorSays", { text: result.text });
      return result.ok
        ? textReply(text, { json: { ok: true, skill: name, pinned: value, message: result.message } })
        : errorReply(text, 1, { ok: false, skill: name, error: result.message });
    },
  };
}

// ---------------------------------------------------------------- adopt / list-unmanaged

const ADOPT_OPTIONS = [
  { name: "all-unmanaged", description: t("cmd.option.adopt.all"), kind: "boolean" },
  { name: "dry-run", description: t("cmd.option.adopt.dryRun"), kind: "boolean" },
] as const satisfies readonly OptionSpec[];

async function adoptTargets(
  ctx: CommandContext,
  input: CommandInput<OptionValues<typeof ADOPT_OPTIONS>>,
): Promise<string[]> {
  if (input.args.length > 0 && input.options["all-unmanaged"]) {
    throw new CuratorError("adopt", t("cmd.adopt.both"), { code: "curator.bad_args" });
  }
  if (input.options["all-unmanaged"]) return (await listUnmanaged(ops(ctx))).map((item) => item.name);
  if (input.args.length === 0) {
    throw new CuratorError(
      "adopt",
      t("cmd.adopt.nameThem", { command: ctx.commandPrefix(["curator", "list-unmanaged"]) }),
      { code: "curator.bad_args" },
    );
  }
  return input.args;
}

/** `curator adopt`: hand named (or all unmanaged) skills to the curator. */
export const adoptCommand = defineCommand({
  path: ["curator", "adopt"],
  summary: t("cmd.summary.adopt"),
  args: [{ name: "skill", description: t("cmd.arg.skillNames"), variadic: true }],
  options: ADOPT_OPTIONS,
  mutating: true,
  async confirm(ctx, input) {
    if (!input.options["all-unmanaged"] || input.options["dry-run"] || input.args.length > 0) return null;
    const names = await adoptTargets(ctx, input);
    if (names.length === 0) return null;
    const shown =
      names.length > 20
        ? t("cmd.adopt.someNames", { names: list(names.slice(0, 20)), count: names.length - 20 })
        : list(names);
    return t("cmd.adopt.confirm", { count: names.length, names: shown });
  },
  async run(ctx, input) {
    const names = await adoptTargets(ctx, input);
    if (names.length === 0)
      return textReply(t("cmd.adopt.none"), {
        json: { ok: true, adopted: [], failed: [] },
      });
    if (input.options["dry-run"]) {
      return reply(
        [
          { kind: "paragraph", text: t("cmd.adopt.wouldAdopt", { count: names.length }) },
          { kind: "code", text: names.map((name) => `  + ${name}`).join("\n") },
        ],
        { json: { ok: true, dry_run: true, would_adopt: names } },
      );
    }
    const said: Text[] = [];
    const adopted: string[] = [];
    const failed: { name: string; error: string }[] = [];
    for (const name of names) {
      const result = await adoptSkill(ops(ctx), name);
      said.push(t("cmd.curatorSays", { text: result.text }));
      if (result.ok) adopted.push(name);
      else failed.push({ name, error: result.message });
    }
    if (names.length > 1) said.push(t("cmd.adopt.tally", { done: adopted.length, total: names.length }));
    return reply([{ kind: "paragraph", text: lines(said) }], {
      exitCode: failed.length > 0 ? 1 : 0,
      json: { ok: failed.length === 0, adopted, failed },
    });
  },
});

/** `curator list-unmanaged`: skills the curator does not look after yet. */
export const listUnmanagedCommand: CommandSpec = {
  path: ["curator", "list-unmanaged"],
  summary: t("cmd.summary.listUnmanaged"),
  mutating: false,
  async run(ctx, input) {
    const items = await listUnmanaged(ops(ctx));
    const json = {
      unmanaged: items.map((item) => ({
        ...item,
        created_by: item.created_by ?? null,
        has_provenance_key: item.created_by !== undefined,
      })),
    };
    if (items.length === 0) return textReply(t("cmd.unmanaged.none"), { json });
    const now = ctx.now();
    const rows = items.map((item) =>
      t("cmd.unmanaged.row", {
        name: pad(item.name, 44),
        activity: padNumber(item.activity, 4),
        last: pad(since(item.last_activity_at, now), 14),
        marker:
          item.created_by === undefined
            ? t("cmd.unmanaged.noMarker")
            : `created_by:${item.created_by ?? "null"}`,
      }),
    );
    const listed = reply(
      [
        { kind: "paragraph", text: t("cmd.unmanaged.heading", { total: items.length }) },
        { kind: "code", text: lines(rows) },
        {
          kind: "paragraph",
          text: t("cmd.unmanaged.hint", {
            one: ctx.commandPrefix(["curator", "adopt", "<name>"]),
            all: `${ctx.commandPrefix(["curator", "adopt"])} --all-unmanaged`,
          }),
        },
      ],
      { json },
    );
    return paged(listed, 1, ["curator", "list-unmanaged"], input);
  },
};
