/**
 * The file implementations of the coordination stores (src/core/stores.ts): sessions, dedupe and last
 * activity under `<home>/gateway/`, the curator run lock under `<home>/skills/.locks/`, and the
 * in-process stranger-notice clock. The gateway opens these unless it is handed other stores.
 */
import { RecentStrangerNotices } from "../core/access.js";
import type { CoordinationStores } from "../core/stores.js";
import { fileRunLock } from "../curator/lock.js";
import { ActivityStore } from "./activity.js";
import { DedupeStore } from "./dedupe.js";
import { SessionStore } from "./sessions.js";

/** Options of `openFileStores`. */
export interface FileStoresOptions {
  /** Clock in ms since epoch. */
  now?: () => number;
  /** Called when a batched write fails (the gateway logs it). */
  onError?: (error: unknown) => void;
}

/** Opens the file-backed stores of `home`. */
export async function openFileStores(
  home: string,
  options: FileStoresOptions = {},
): Promise<CoordinationStores> {
  const [dedupe, activity] = await Promise.all([
    DedupeStore.open(home, options),
    ActivityStore.open(home, options),
  ]);
  return {
    sessions: SessionStore.for(home),
    dedupe,
    activity,
    strangers: new RecentStrangerNotices(),
    runLock: fileRunLock(home),
  };
}
