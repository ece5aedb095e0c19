/**
 * The platforms the adapter contract runs against, each booted by the platform harness
 * (`test/support/harness`): the platform's emulator, the real adapter (real SDK) and the real gateway.
 * The suite speaks through the harness's neutral chat handles, so a platform the harness boots gets the
 * whole suite by joining `DRIVERS`.
 */
import {
  type BootOptions,
  bootPlatform,
  type ChatHandles,
  type EmulatorOf,
  type Person,
  type PlatformName,
  platformIds,
} from "../support/harness/index.js";

/** A running contract target plus how to stop it. */
export interface Booted<P extends PlatformName = PlatformName> {
  run: ChatHandles;
  emulator: EmulatorOf<P>;
  stop: () => Promise<void>;
}

/** What a contract target may change: a wrapped adapter, stricter emulator rules. */
export type ContractExtras<P extends PlatformName> = Pick<BootOptions<P>, "wrap" | "emulator">;

/**
 * Boots `platform` on `home` with the contract's `config` (given the people's ids). Telegram runs with
 * privacy mode off, so the adapter itself must ignore unaddressed group text.
 */
export async function bootContract<P extends PlatformName>(
  platform: P,
  home: string,
  config: (ids: Record<Person, string>) => Record<string, unknown>,
  extras: ContractExtras<P> = {},
): Promise<Booted<P>> {
  const emulator = platform === "telegram" ? { privacyMode: false } : undefined;
  const run = await bootPlatform(platform, {
    home,
    config: config(platformIds(platform)),
    emulator: emulator as BootOptions<P>["emulator"],
    ...extras,
  });
  return { run: run.chat, emulator: run.emulator, stop: () => run.stop() };
}

/** Every platform the contract runs against. */
export const DRIVERS: PlatformName[] = ["telegram", "feishu", "discord"];
