/**
 * Picks the model provider from the environment:
 *   MODEL_PROVIDER=scripted (default)        the deterministic scripted model, no network
 *   MODEL_PROVIDER=openai|openai-compatible  an OpenAI-compatible endpoint (MODEL_BASE_URL,
 *                                            MODEL_API_KEY, MODEL_NAME, MODEL_TIMEOUT_MS)
 * With MODEL_PROVIDER unset, setting MODEL_BASE_URL selects openai. That is the default provider:
 * a model named `provider:model` (anthropic:…, openai:…, google:…, deepseek:…, ollama:…) goes to
 * that provider instead, configured by its own variables (router.ts, catalog.ts).
 */
import type { ModelProvider } from '../../shared/contract/model';
import { parseModelName } from '../../shared/contract/modelNames';
import { configFromEnv, createOpenAICompatibleProvider } from './openaiCompatible';
import { configuredProviders, createModelRouter } from './router';
import { createScriptedModel } from './scriptedModel';
import { redactUrl } from '../../shared/text/redact';

export const SCRIPTED_MODEL_DESCRIPTION = 'scripted model (deterministic, for tests and demos)';

const VALID_VALUES = ['scripted', 'openai', 'openai-compatible'] as const;

export interface SelectedProvider {
  provider: ModelProvider;
  /** For logs; never contains the API key, nor credentials in MODEL_BASE_URL. */
  description: string;
}

export function providerFromEnv(env: Record<string, string | undefined> = process.env): SelectedProvider {
  const fallback = defaultProviderFromEnv(env);
  const named = configuredProviders(env);
  const defaultModel = parseModelName(env.MODEL_NAME?.trim() ?? '') ? `; default model ${env.MODEL_NAME?.trim()}` : '';
  const byName = named.length === 0 ? '' : `; by name: ${named.map((name) => `${name}:<model>`).join(', ')}`;
  return { provider: createModelRouter(env, fallback.provider), description: `${fallback.description}${byName}${defaultModel}` };
}

/** The provider of a model named without a known `provider:` prefix. */
function defaultProviderFromEnv(env: Record<string, string | undefined>): SelectedProvider {
  const raw = env.MODEL_PROVIDER?.trim().toLowerCase() ?? '';
  const choice = raw === '' ? (env.MODEL_BASE_URL?.trim() ? 'openai' : 'scripted') : raw;
  switch (choice) {
    case 'scripted':
      return { provider: createScriptedModel(), description: SCRIPTED_MODEL_DESCRIPTION };
    case 'openai':
    case 'openai-compatible': {
      const config = configFromEnv(env);
      return {
        provider: createOpenAICompatibleProvider(config),
        description:
          `OpenAI-compatible model at ${redactUrl(config.baseUrl)} ` +
          `(model ${config.model ?? 'not set by MODEL_NAME'}, ${config.apiKey ? 'with' : 'without'} an API key)`,
      };
    }
    default:
      throw new Error(
        `MODEL_PROVIDER=${JSON.stringify(env.MODEL_PROVIDER)} is not a known provider: use one of ${VALID_VALUES.join(', ')} ` +
          `(or leave it unset: scripted, or openai when MODEL_BASE_URL is set); other providers are chosen by model name, ` +
          `e.g. anthropic:claude-sonnet-4-5 with ANTHROPIC_API_KEY set`,
      );
  }
}
