/**
 * What every platform adapter factory takes. Each platform exports
 * `create<Platform>Adapter(opts: AdapterOptions): Adapter` from `adapters/<platform>/index.ts`.
 */
import type { SkillgateConfig } from "../src/config/config.js";
import type { Logger } from "../src/core/logger.js";

/** Options every adapter factory receives. */
export interface AdapterOptions {
  config: SkillgateConfig;
  home: string;
  /** Looks a secret up in the environment, then `<home>/.env`; undefined when unset or empty. */
  secret: (name: string) => string | undefined;
  logger: Logger;
}
