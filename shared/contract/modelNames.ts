/**
 * A model is named `provider:model` (`anthropic:claude-sonnet-4-5`, `openai:gpt-5.1`,
 * `ollama:qwen3:8b`): the provider says which API and which settings the worker uses, the rest is
 * the provider's own model id. A name without a known provider prefix is the deployment's
 * OpenAI-compatible endpoint's (MODEL_BASE_URL), or the scripted model's, as before.
 */
export const MODEL_PROVIDERS = ['openai', 'openai-chat', 'anthropic', 'google', 'deepseek', 'ollama', 'lmstudio', 'vllm', 'compatible', 'scripted'] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

export interface ModelName {
  provider: ModelProviderName;
  model: string;
}

const isProvider = (name: string): name is ModelProviderName => (MODEL_PROVIDERS as readonly string[]).includes(name);

/** The provider and model of a `provider:model` name; null when the name has no known provider prefix or no model after it. */
export function parseModelName(name: string): ModelName | null {
  const colon = name.indexOf(':');
  if (colon <= 0) return null;
  const provider = name.slice(0, colon);
  const model = name.slice(colon + 1);
  return isProvider(provider) && model.trim() !== '' ? { provider, model } : null;
}
