/**
 * Where the model's API keys come from: a slot's `api_key` may name a variable (`NAME`, `$NAME`,
 * `${NAME}`) looked up in the environment and `<home>/.env`, and a known provider without one reads its
 * usual variable. The LLM client resolves keys with these rules; the refusal list of variables a skill
 * may not set (`secret-keys.ts`) names every variable a configured slot may read.
 */
import type { ModelConfig, SkillgateConfig } from "./config.js";

/** The variable each known provider's API key is read from when its slot names none. */
export const PROVIDER_KEY_VARIABLES: Readonly<Record<string, string>> = {
  openrouter: "OPENROUTER_API_KEY",
  openai: "OPENAI_API_KEY",
};

const ENV_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$|^\$([A-Za-z_][A-Za-z0-9_]*)$|^([A-Z_][A-Z0-9_]*)$/;

/** The variable an `api_key` value names, or undefined when the value is the key itself (or empty). */
export function apiKeyVariable(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  const match = ENV_REFERENCE.exec(value);
  return match?.[1] ?? match?.[2] ?? match?.[3];
}

/**
 * Every variable a configured model slot (`model`, `auxiliary.curator`, `curator.auxiliary`) may read its
 * API key from: the one its `api_key` names, else its known provider's; a slot on `auto` without an
 * address may pick any known provider by the key present, so all of theirs.
 */
export function modelKeyVariables(config: SkillgateConfig): string[] {
  const slots = [config.model, config.auxiliaryCurator, config.curator.legacyAuxiliary].filter(
    (slot): slot is ModelConfig => slot !== undefined,
  );
  const names = new Set<string>();
  for (const slot of slots) {
    const named = apiKeyVariable(slot.apiKey);
    if (named) {
      names.add(named);
      continue;
    }
    if (slot.apiKey?.trim()) continue;
    const provider = slot.provider?.trim().toLowerCase() ?? "";
    const known = PROVIDER_KEY_VARIABLES[provider];
    if (known) names.add(known);
    else if ((provider === "" || provider === "auto") && !slot.baseUrl)
      for (const variable of Object.values(PROVIDER_KEY_VARIABLES)) names.add(variable);
  }
  return [...names];
}
