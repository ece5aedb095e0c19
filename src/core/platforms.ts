/**
 * The platform registry: each chat platform (adapters/<platform>/) registers its name, the secrets it
 * needs, the parser of its own `gateway.<platform>` config section and its adapter factory. The config
 * layer validates the registered sections; `platform:id` references accept the registered names. The
 * core never lists platforms itself.
 */
import type { Check } from "./diagnostics.js";
import type { LocaleSetting } from "./i18n/locale.js";
import type { Text } from "./i18n/messages.js";
import type { Logger } from "./logger.js";
import type { Adapter } from "./message.js";

/** Reads one config section with the standard error messages (the key, the value, what is allowed). */
export interface ConfigReader {
  /** Dotted prefix of the section's keys, e.g. `gateway.telegram.`. */
  readonly at: string;
  bool(key: string, fallback: boolean): boolean;
  /** A string (numbers are accepted as text); undefined when absent or empty. */
  str(key: string): string | undefined;
  /** A string from `allowed`; `fallback` when absent. */
  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T;
  /** A number in range; undefined when absent. */
  num(key: string, options?: { integer?: boolean; min?: number; max?: number }): number | undefined;
  /** A nested mapping (empty when absent). */
  section(key: string): ConfigReader;
  /** Throws the ConfigError "`<at><key>` is <value>; <requirement>." (exit 78 in the CLI). */
  fail(key: string, value: unknown, requirement: Text): never;
}

/**
 * What every platform's section has: whether the platform is on, and `locale` when the section sets
 * one (it overrides `gateway.locale` for this platform; read by the config layer for every platform).
 */
export interface PlatformSection {
  enabled: boolean;
  locale?: LocaleSetting;
}

/**
 * The part of the configuration an adapter reads: the parsed sections of the registered platforms, and
 * the gateway-wide `gateway.trusted_proxies` (peers whose `X-Forwarded-For` names a webhook's client).
 */
export interface PlatformsConfig {
  gateway: {
    platforms: Readonly<Record<string, PlatformSection>>;
    trustedProxies: readonly string[];
    /** `gateway.locale` (see `GatewayConfig.locale`). */
    locale?: LocaleSetting;
  };
}

/** Options every adapter factory receives. */
export interface AdapterOptions {
  config: PlatformsConfig;
  home: string;
  /** Looks a secret up in the environment, then `<home>/.env`; undefined when unset or empty. */
  secret: (name: string) => string | undefined;
  logger: Logger;
}

/** A chat platform as it registers with the core. */
export interface PlatformDefinition<S extends PlatformSection = PlatformSection> {
  /** Lower-case name: the config key `gateway.<name>` and the `<name>:id` prefix of references. */
  name: string;
  /** Secrets that must all be set for `skillgate serve` to start the platform (Hermes' names). */
  secrets: readonly string[];
  /**
   * skillgate's own name for each of `secrets` (`SKILLGATE_…`), read before Hermes' name: a bot of
   * skillgate's own beside Hermes' gateway, which reads only its names from the shared `.env`.
   */
  ownSecrets?: Readonly<Record<string, string>>;
  /**
   * How Hermes' gateway claims this platform's credential machine-wide: the scope of its token-scoped
   * lock and the secret whose value is the lock's identity (see `core/hermes-gateway.ts`).
   */
  hermesLock?: { scope: string; identitySecret: string };
  /**
   * Every other variable the platform's adapter reads from the environment or `<home>/.env` (a public
   * key, a webhook URL or secret). With `secrets`, these are the platform's own: skillgate never sets
   * them for a skill (`src/config/secret-keys.ts`).
   */
  variables?: readonly string[];
  /** Validates `gateway.<name>` and applies defaults; throws ConfigError through `reader.fail`. */
  parseConfig(reader: ConfigReader): S;
  /** Builds the adapter (imports the SDK lazily). */
  createAdapter(options: AdapterOptions): Promise<Adapter>;
  /** `skillgate doctor`'s checks against the platform (imports the SDK lazily); never throws. */
  diagnose?(options: AdapterOptions): Promise<Check[]>;
  /**
   * Secret values held in the platform's own config section (webhook secrets, verification tokens),
   * named for the outbound scrubber, which keeps them out of every reply.
   */
  configSecrets?(section: S): Array<{ name: string; value: string | undefined }>;
}

/** Names that are not chat platforms but may appear in references: the terminal chat and the test adapter. */
const LOCAL_PLATFORMS = ["console", "mock"];

const registry = new Map<string, PlatformDefinition>();

/** Registers a platform (adapters/index.ts does it for every listed adapter); the same name twice is refused. */
export function registerPlatform<S extends PlatformSection>(definition: PlatformDefinition<S>): void {
  const known = registry.get(definition.name);
  if (known && known !== (definition as unknown as PlatformDefinition)) {
    throw new Error(`A platform named '${definition.name}' is already registered.`);
  }
  registry.set(definition.name, definition as unknown as PlatformDefinition);
}

/** The registered platforms, in registration order. */
export function registeredPlatforms(): PlatformDefinition[] {
  return [...registry.values()];
}

/** Every platform a `platform:id` reference may name: the registered ones plus `console` and `mock`. */
export function referencePlatforms(): string[] {
  return [...registry.keys(), ...LOCAL_PLATFORMS];
}

/** True for `platform:id` with a known platform and a non-empty id without spaces. */
export function isPlatformReference(text: string): boolean {
  const colon = text.indexOf(":");
  return (
    colon > 0 && referencePlatforms().includes(text.slice(0, colon)) && /^\S+$/.test(text.slice(colon + 1))
  );
}

/** A platform's parsed config section; throws when the platform was not registered before the config was read. */
export function platformSection<S extends PlatformSection>(config: PlatformsConfig, name: string): S {
  const section = config.gateway.platforms[name];
  if (!section) {
    throw new Error(
      `The config has no '${name}' section: the platform was not registered before config.yaml was read.`,
    );
  }
  return section as S;
}

/**
 * The secret lookup adapters use: a registered platform's secret is read under skillgate's own name
 * (`ownSecrets`) first, then under Hermes' name.
 */
export function preferOwnSecrets(
  secret: (name: string) => string | undefined,
): (name: string) => string | undefined {
  const own = new Map<string, string>();
  for (const platform of registry.values())
    for (const [name, ownName] of Object.entries(platform.ownSecrets ?? {})) own.set(name, ownName);
  return (name) => {
    const ownName = own.get(name);
    return (ownName === undefined ? undefined : secret(ownName)) ?? secret(name);
  };
}
