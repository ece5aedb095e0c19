/**
 * Which model an LLM caller talks to. The curator's consolidation pass resolves, in order: the
 * `auxiliary.curator` slot (a provider other than `auto` plus a model), the deprecated
 * `curator.auxiliary` block (provider plus model), then the main `model` section. The chat agent uses the
 * main `model` section. Every provider is spoken to as OpenAI-compatible chat completions at
 * `<base_url>/chat/completions`; a known provider without `base_url` gets its public address.
 */
import type { ModelConfig, SkillgateConfig } from "../config/config.js";
import { lookupSecret, readDotenv } from "../config/dotenv.js";
import { homePaths } from "../config/home.js";
import { apiKeyVariable, PROVIDER_KEY_VARIABLES } from "../config/model-keys.js";
import { english, type Message, messageFromEnglish, type Text, t } from "../core/i18n/messages.js";

/** Where a resolved model's settings came from (the config key prefix named in error messages). */
export type ModelSource = "auxiliary.curator" | "curator.auxiliary" | "model";

/** A model ready to call. `apiKey` is the secret itself; never log it. */
export interface ResolvedModel {
  provider: string;
  model: string;
  /** Base URL without a trailing slash; requests go to `<baseUrl>/chat/completions`. */
  baseUrl: string;
  apiKey?: string;
  /** Env var the key came from, when it came from one (safe to show). */
  apiKeyVar?: string;
  timeoutSeconds: number;
  extraBody: Record<string, unknown>;
  source: ModelSource;
}

/**
 * Outcome of a resolution: a model, or the reason none resolved (safe to show to the user); `notes`
 * are texts for the person watching (the deprecated block in use).
 */
export type ModelResolution =
  | { ok: true; model: ResolvedModel; notes: Text[] }
  | { ok: false; reason: string; notes: Text[] };

/** Public base URLs of providers that need no `base_url`. */
export const KNOWN_PROVIDERS: Record<string, { baseUrl: string; keyVar?: string }> = {
  openrouter: { baseUrl: "https://openrouter.ai/api/v1", keyVar: PROVIDER_KEY_VARIABLES.openrouter },
  openai: { baseUrl: "https://api.openai.com/v1", keyVar: PROVIDER_KEY_VARIABLES.openai },
  ollama: { baseUrl: "http://127.0.0.1:11434/v1" },
};

/** Default request timeout when the slot sets none (seconds). */
export const DEFAULT_TIMEOUT_SECONDS = 120;

/** Secret lookup: `<home>/.env` plus the process environment. */
export type SecretLookup = (name: string) => string | undefined;

/** A lookup over `<home>/.env` and `env` (the environment wins, as `lookupSecret` does). */
export function secretLookup(home: string, env: NodeJS.ProcessEnv = process.env): SecretLookup {
  const dotenv = readDotenv(homePaths(home).env);
  return (name) => lookupSecret(name, dotenv, env);
}

function isAuto(provider: string | undefined): boolean {
  return provider === undefined || provider.trim() === "" || provider.trim().toLowerCase() === "auto";
}

/** The curator's model (reference B6): aux slot, then the legacy block, then the main model. */
export function resolveCuratorModel(
  config: SkillgateConfig,
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): ModelResolution {
  const secret = secretLookup(home, env);
  const notes: Text[] = [];
  const slot = config.auxiliaryCurator;
  if (slot && !isAuto(slot.provider) && slot.model) {
    return finish(resolveSlot(slot, "auxiliary.curator", secret, config.model), notes);
  }
  const legacy = config.curator.legacyAuxiliary;
  if (legacy && !isAuto(legacy.provider) && legacy.model) {
    notes.push(t("model.legacyAuxiliary"));
    return finish(resolveSlot(legacy, "curator.auxiliary", secret, config.model), notes);
  }
  const main = resolveMainModel(config, secret);
  // An `auto` slot may still carry a timeout or extra_body for the curator: apply them over the main model.
  if (main.ok && slot) {
    if (slot.timeoutSeconds !== undefined) main.model.timeoutSeconds = slot.timeoutSeconds;
    if (slot.extraBody) main.model.extraBody = { ...main.model.extraBody, ...slot.extraBody };
  }
  return finish(main, notes);
}

/** The chat agent's model: the main `model` section. */
export function resolveChatModel(
  config: SkillgateConfig,
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): ModelResolution {
  return finish(resolveMainModel(config, secretLookup(home, env)), []);
}

type Partial = { ok: true; model: ResolvedModel } | { ok: false; reason: string };

function finish(result: Partial, notes: Text[]): ModelResolution {
  return result.ok ? { ok: true, model: result.model, notes } : { ok: false, reason: result.reason, notes };
}

function resolveMainModel(config: SkillgateConfig, secret: SecretLookup): Partial {
  const main = config.model;
  if (!main?.model) {
    return {
      ok: false,
      reason: english(t("model.none")),
    };
  }
  let provider = isAuto(main.provider) ? undefined : main.provider?.trim().toLowerCase();
  if (!provider && !main.baseUrl) {
    // `auto` without an address: pick the first known provider whose key is present.
    provider = Object.entries(KNOWN_PROVIDERS).find(([, known]) => known.keyVar && secret(known.keyVar))?.[0];
    if (!provider) {
      return {
        ok: false,
        reason: english(t("model.autoNoKey")),
      };
    }
  }
  return resolveSlot({ ...main, provider: provider ?? "custom" }, "model", secret, undefined);
}

function resolveSlot(
  slot: ModelConfig,
  source: ModelSource,
  secret: SecretLookup,
  main: ModelConfig | undefined,
): Partial {
  const provider = (slot.provider ?? "custom").trim().toLowerCase();
  const known = KNOWN_PROVIDERS[provider];
  const baseUrl = slot.baseUrl?.trim().replace(/\/+$/, "") || known?.baseUrl;
  if (!baseUrl) {
    return {
      ok: false,
      reason: english(t("model.noAddress", { source, provider: JSON.stringify(provider) })),
    };
  }
  const key = resolveApiKey(slot.apiKey, known?.keyVar, source, secret);
  if (!key.ok) return key;
  // Provider settings from the main model (same provider) sit under the slot's own extra_body.
  const inherited = main && main.provider?.trim().toLowerCase() === provider ? (main.extraBody ?? {}) : {};
  return {
    ok: true,
    model: {
      provider,
      model: slot.model ?? "",
      baseUrl,
      apiKey: key.apiKey,
      apiKeyVar: key.apiKeyVar,
      timeoutSeconds: slot.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      extraBody: { ...inherited, ...(slot.extraBody ?? {}) },
      source,
    },
  };
}

type KeyResult = { ok: true; apiKey?: string; apiKeyVar?: string } | { ok: false; reason: string };

/**
 * `api_key` may be the key itself or name an env var (`OPENROUTER_API_KEY`, `$VAR`, `${VAR}`), looked up
 * in `<home>/.env` and the environment. Without `api_key`, a known provider's usual variable is tried;
 * a custom server may need no key at all.
 */
function resolveApiKey(
  raw: string | undefined,
  defaultVar: string | undefined,
  source: ModelSource,
  secret: SecretLookup,
): KeyResult {
  const value = raw?.trim();
  if (value) {
    const varName = apiKeyVariable(value);
    if (!varName) return { ok: true, apiKey: value };
    const found = secret(varName);
    if (found === undefined) {
      return {
        ok: false,
        reason: english(t("model.keyVarUnset", { source, variable: varName })),
      };
    }
    return { ok: true, apiKey: found, apiKeyVar: varName };
  }
  if (defaultVar) {
    const found = secret(defaultVar);
    if (found === undefined) {
      return {
        ok: false,
        reason: english(t("model.noKey", { source, variable: defaultVar })),
      };
    }
    return { ok: true, apiKey: found, apiKeyVar: defaultVar };
  }
  return { ok: true };
}

const REASON_KEYS = [
  "model.none",
  "model.autoNoKey",
  "model.noAddress",
  "model.keyVarUnset",
  "model.noKey",
] as const;

/**
 * Why no model resolved, read back from the English a run stored (`run.json`, the status line) into
 * the reader's text; undefined for any other text, such as the model's own error.
 */
export function modelReasonText(reason: string): Message | undefined {
  return messageFromEnglish(REASON_KEYS, reason);
}

/** A one-line description safe to show: `model via provider (base URL)`. */
export function describeModel(model: ResolvedModel): string {
  return `${model.model} via ${model.provider} (${model.baseUrl})`;
}
