/**
 * The curator lifecycle commands: `curator status | run | pause | resume | pin | unpin | adopt |
 * list-unmanaged | archive | restore | list-archived | prune`. One implementation for the terminal and
 * every chat; the surface's `commandPrefix` spells command hints (`skillgate curator …` or `/curator …`).
 * Each family is a file of its own: `curator-status.ts`, `curator-run.ts`, `curator-adoption.ts`,
 * `curator-archive.ts` (and the safety net, `curator-safety.ts`).
 */
import { adoptCommand, listUnmanagedCommand, pinCommand } from "./curator-adoption.js";
import { archiveCommand, listArchivedCommand, pruneCommand, restoreCommand } from "./curator-archive.js";
import { pauseCommand, runCommand } from "./curator-run.js";
import { listPinnedCommand, statusCommand } from "./curator-status.js";
import type { CommandSpec } from "./types.js";

/** Every curator lifecycle command, in help order. */
export const curatorCommands: CommandSpec[] = [
  statusCommand,
  runCommand,
  pauseCommand(true),
  pauseCommand(false),
  pinCommand(true),
  pinCommand(false),
  adoptCommand,
  listPinnedCommand,
  listUnmanagedCommand,
  archiveCommand,
  restoreCommand,
  listArchivedCommand,
  pruneCommand,
];
