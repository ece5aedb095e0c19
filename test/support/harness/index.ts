/**
 * The platform test harness: one helper boots the real gateway with any platform's real adapter against
 * that platform's loopback emulator, on a fresh temp home, and returns typed handles — the platform's
 * own (a Telegram `ask`, a Discord `slash`, a Feishu `press` …) and the neutral `chat` handles every
 * platform offers alike (send as a person, press a button, read what the bot shows, edits included).
 *
 *   const boot = usePlatform("discord", { prepare: (home) => writeTestSkill(home, "documents", "pdf-tools") });
 *   const run = await boot({ config: { gateway: { home_channel: "discord:…" } } });
 *
 * `usePlatform` stops every run it booted after each test; `bootPlatform` leaves that to the caller.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { loadConfig, parseConfig, type SkillgateConfig } from "../../../src/config/config.js";
import type { Adapter } from "../../../src/core/message.js";
import { createGateway, type Gateway, type GatewayOptions } from "../../../src/gateway/gateway.js";
import { type DiscordHandles, discordKit } from "./discord.js";
import { type FeishuHandles, feishuKit } from "./feishu.js";
import type { PlatformKit } from "./kit.js";
import { type BaseRun, capturedLogger, type Person } from "./shared.js";
import { type TelegramHandles, telegramKit } from "./telegram.js";

export type { BotMessage, ChatHandles, Person, Place, PressOutcome, Said } from "./shared.js";
export { settle, until } from "./shared.js";

/** The platforms the harness boots. */
const KITS = { telegram: telegramKit, feishu: feishuKit, discord: discordKit };

/** A platform the harness boots. */
export type PlatformName = keyof typeof KITS;

type KitOf<P extends PlatformName> = (typeof KITS)[P];
type Parts<K> =
  K extends PlatformKit<string, infer E, infer EO, infer A, infer T, infer H>
    ? { emulator: E; emulatorOptions: EO; adapter: A; tuning: T; handles: H }
    : never;
/** The emulator class of platform `P`. */
export type EmulatorOf<P extends PlatformName> = Parts<KitOf<P>>["emulator"];
type HandlesOf<P extends PlatformName> = {
  telegram: TelegramHandles;
  feishu: FeishuHandles;
  discord: DiscordHandles;
}[P];

/** A booted run of platform `P`: the shared base and the platform's handles. */
export type PlatformRun<P extends PlatformName> = BaseRun<P, EmulatorOf<P>, Parts<KitOf<P>>["adapter"]> &
  HandlesOf<P> & {
    /** The people's ids on this platform. */
    ids: Record<Person, string>;
  };

/** The people's ids on `platform` (as `gateway.admins` names them after `<platform>:`). */
export function platformIds(platform: PlatformName): Record<Person, string> {
  return KITS[platform].ids;
}

/** How to boot a run; everything has a default. */
export interface BootOptions<P extends PlatformName> {
  /** A home to use (left in place by `stop`); default a fresh temp home that `stop` removes. */
  home?: string;
  /** Runs on the home before the gateway starts (skills, files, emulator rules). */
  prepare?: (home: string, emulator: EmulatorOf<P>) => unknown;
  /** A listening emulator to use (left open by `stop`), or the options of a new one. */
  emulator?: EmulatorOf<P> | Parts<KitOf<P>>["emulatorOptions"];
  /**
   * config.yaml's sections. `gateway` is merged over the harness's (admin and member as the admin and
   * the allowed user, no /healthz) and `gateway.<platform>` over the emulator's section.
   */
  config?: Record<string, unknown>;
  /** Instead of `config`: config.yaml's text (given the emulator), written to the home and loaded. */
  configFile?: (emulator: EmulatorOf<P>) => string;
  /** Timings for the adapter (Telegram's are short by default). */
  tuning?: Parts<KitOf<P>>["tuning"];
  /** Wraps the real adapter (to break it on purpose, say). */
  wrap?: (adapter: Adapter, emulator: EmulatorOf<P>) => Adapter;
  /** More adapters beside the platform's (a mock adapter, another platform). */
  others?: Adapter[];
  /** Options passed through to the gateway. */
  gateway?: Pick<
    GatewayOptions,
    "agent" | "registry" | "acknowledgeAfterMs" | "consolidator" | "loadedSkillPollMs"
  >;
}

/** Boots a gateway with platform `P`'s adapter against its emulator (see the module comment). */
export async function bootPlatform<P extends PlatformName>(
  platform: P,
  options: BootOptions<P> = {},
): Promise<PlatformRun<P>> {
  // One implementation serves every kit; the types above keep each platform's handles apart.
  const kit = KITS[platform] as unknown as PlatformKit<P, unknown, unknown, Adapter, unknown, object>;
  const owned: (() => Promise<void>)[] = [];
  const release = async () => {
    for (const step of owned.splice(0).reverse()) await step();
  };
  try {
    let emulator: unknown = options.emulator;
    if (!kit.isEmulator(emulator)) {
      const created = kit.emulator(emulator);
      await kit.listen(created);
      owned.push(() => kit.close(created));
      emulator = created;
    }
    let home = options.home;
    if (!home) {
      const made = await mkdtemp(path.join(os.tmpdir(), `skillgate-${platform}-`));
      owned.push(() => rm(made, { recursive: true, force: true }));
      home = made;
    }
    await options.prepare?.(home, emulator as EmulatorOf<P>);
    const file = options.configFile ? path.join(home, "config.yaml") : undefined;
    let config: SkillgateConfig;
    if (file && options.configFile) {
      await writeFile(file, options.configFile(emulator as EmulatorOf<P>));
      config = loadConfig(file);
    } else {
      config = parseConfig(harnessConfig(kit, emulator, options.config ?? {}));
    }
    const { logger, raw, lines } = capturedLogger();
    const secrets = kit.secrets(emulator);
    let offset = 0;
    let stopGateway: () => Promise<void> = async () => undefined;
    const start = async (): Promise<{ adapter: Adapter; gateway: Gateway }> => {
      const real = kit.adapter(
        { config, home: home as string, logger, secret: (name) => secrets[name], tuning: options.tuning },
        emulator,
      );
      const adapter = options.wrap ? options.wrap(real, emulator as EmulatorOf<P>) : real;
      const gateway = createGateway({
        home: home as string,
        config,
        adapters: [adapter, ...(options.others ?? [])],
        logger,
        now: () => Date.now() + offset,
        ...options.gateway,
      });
      let stopped: Promise<void> | undefined;
      const stopThis = () => {
        stopped ??= gateway.stop();
        return stopped;
      };
      stopGateway = stopThis;
      owned.push(stopThis);
      await gateway.start();
      return { adapter: real, gateway };
    };
    const first = await start();
    const base: BaseRun<P, unknown, Adapter> = {
      platform,
      home,
      file,
      config,
      emulator,
      adapter: first.adapter,
      gateway: first.gateway,
      logs: lines,
      logText: () => raw.join(""),
      advance: (ms) => {
        offset += ms;
      },
      stopGateway: () => stopGateway(),
      restart: async () => {
        const next = await start();
        run.adapter = next.adapter;
        run.gateway = next.gateway;
        return next.gateway;
      },
      stop: release,
    };
    const run = Object.assign(base, { ids: kit.ids }) as BaseRun<P, unknown, Adapter> & {
      ids: Record<Person, string>;
    };
    Object.assign(run, kit.handles(run));
    return run as unknown as PlatformRun<P>;
  } catch (error) {
    await release();
    throw error;
  }
}

/**
 * A boot function for one test file: each call boots a run with `defaults` under the call's options
 * (their `config` sections merged, `gateway` key by key; the defaults' `prepare` runs before the
 * call's), and every run is stopped after each test.
 */
export function usePlatform<P extends PlatformName>(
  platform: P,
  defaults: BootOptions<P> = {},
): (options?: BootOptions<P>) => Promise<PlatformRun<P>> {
  const runs: PlatformRun<P>[] = [];
  afterEach(async () => {
    for (const run of runs.splice(0).reverse()) await run.stop();
  });
  return async (options = {}) => {
    const run = await bootPlatform(platform, mergeOptions(defaults, options));
    runs.push(run);
    return run;
  };
}

function mergeOptions<P extends PlatformName>(
  defaults: BootOptions<P>,
  options: BootOptions<P>,
): BootOptions<P> {
  // A key the call leaves undefined keeps the default.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const merged: BootOptions<P> = { ...defaults, ...given };
  if (defaults.config && options.config) {
    const gateway = {
      ...((defaults.config.gateway as Record<string, unknown> | undefined) ?? {}),
      ...((options.config.gateway as Record<string, unknown> | undefined) ?? {}),
    };
    merged.config = { ...defaults.config, ...options.config, gateway };
  }
  if (defaults.gateway && options.gateway) merged.gateway = { ...defaults.gateway, ...options.gateway };
  const first = defaults.prepare;
  const then = options.prepare;
  if (first && then)
    merged.prepare = async (home, emulator) => {
      await first(home, emulator);
      await then(home, emulator);
    };
  return merged;
}

/** config.yaml as the harness writes it for a kit: its defaults, then the test's sections over them. */
function harnessConfig(
  kit: PlatformKit<string, unknown, unknown, Adapter, unknown, object>,
  emulator: unknown,
  raw: Record<string, unknown>,
): Record<string, unknown> {
  const gateway = (raw.gateway as Record<string, unknown> | undefined) ?? {};
  const section = (gateway[kit.platform] as Record<string, unknown> | undefined) ?? {};
  return {
    ...raw,
    gateway: {
      admins: [`${kit.platform}:${kit.ids.admin}`],
      allowed_users: [`${kit.platform}:${kit.ids.member}`],
      health: { enabled: false },
      ...gateway,
      [kit.platform]: { enabled: true, ...kit.section(emulator), ...section },
    },
  };
}
