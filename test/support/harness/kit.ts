/**
 * What a platform gives the test harness: its people's ids, its emulator, the config section and
 * secrets that point the real adapter at the emulator, the adapter itself, and the handles a booted run
 * offers (the platform's own, and the neutral `ChatHandles`).
 */
import type { Adapter } from "../../../src/core/message.js";
import type { AdapterOptions } from "../../../src/core/platforms.js";
import type { BaseRun, Person } from "./shared.js";

/** One platform's part of the harness. */
export interface PlatformKit<P extends string, E, EO, A extends Adapter, T, H> {
  platform: P;
  /** The people's ids on this platform (as `gateway.admins` names them after `<platform>:`). */
  ids: Record<Person, string>;
  /** Tells an emulator passed in from the options it takes for a new one. */
  isEmulator(value: unknown): value is E;
  /** A new emulator, not listening yet. */
  emulator(options: EO | undefined): E;
  listen(emulator: E): Promise<unknown>;
  close(emulator: E): Promise<void>;
  /** The keys of `gateway.<platform>` that point the adapter at the emulator. */
  section(emulator: E): Record<string, unknown>;
  /** The secrets the adapter reads (its token, app id…). */
  secrets(emulator: E): Record<string, string>;
  adapter(options: AdapterOptions & { tuning?: T }, emulator: E): A;
  handles(run: BaseRun<P, E, A>): H;
}
