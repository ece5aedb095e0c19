/**
 * The interaction layout (which slash-command options are positional) shared between replicas: the
 * leader registers the commands and so knows the layout; a replica that does not lead normalizes the
 * interactions its Interactions Endpoint receives with the layout the leader stored in the shared state,
 * read again at most every `LAYOUT_REFRESH_MS`.
 */
import type { DiscordContext } from "./context.js";
import type { InteractionLayout } from "./normalize.js";

/** The shared-state key of the layout. */
const LAYOUT_KEY = "discord:layout";
/** How long the shared layout is kept after the leader last wrote it (ms): 30 days. */
const LAYOUT_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** How long a replica uses the layout it read before reading it again (ms). */
const LAYOUT_REFRESH_MS = 10_000;

const cache = new WeakMap<DiscordContext, { readAt: number; layout: InteractionLayout }>();
const shared = new WeakMap<DiscordContext, string>();

/** Stores this registration's layout for the other replicas (when it changed); never throws. */
export async function shareLayout(ctx: DiscordContext): Promise<void> {
  const state = ctx.hooks?.sharedState;
  if (!state) return;
  const text = JSON.stringify([...ctx.layout]);
  if (shared.get(ctx) === text) return;
  try {
    if (await state.set(LAYOUT_KEY, text, { ttlMs: LAYOUT_TTL_MS })) shared.set(ctx, text);
  } catch (error) {
    ctx.log.warn({ err: error }, "discord: cannot share the command layout");
  }
}

/** The leader's layout, or this process's own when none is stored (or it cannot be read). */
export async function readSharedLayout(ctx: DiscordContext): Promise<InteractionLayout> {
  const known = cache.get(ctx);
  if (known && Date.now() - known.readAt < LAYOUT_REFRESH_MS) return known.layout;
  let layout = known?.layout ?? ctx.layout;
  try {
    const text = await ctx.hooks?.sharedState?.get(LAYOUT_KEY);
    if (text) layout = parseLayout(text) ?? layout;
  } catch (error) {
    ctx.log.warn({ err: error }, "discord: cannot read the shared command layout");
  }
  cache.set(ctx, { readAt: Date.now(), layout });
  return layout;
}

function parseLayout(text: string): InteractionLayout | undefined {
  try {
    const entries = JSON.parse(text) as unknown;
    if (!Array.isArray(entries)) return undefined;
    const layout = new Map<string, string[]>();
    for (const entry of entries) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string" || !Array.isArray(entry[1])) continue;
      layout.set(
        entry[0],
        (entry[1] as unknown[]).filter((name): name is string => typeof name === "string"),
      );
    }
    return layout;
  } catch {
    return undefined;
  }
}
