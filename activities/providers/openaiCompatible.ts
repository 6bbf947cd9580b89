/**
 * A model provider for any server that speaks OpenAI's chat-completions API (POST
 * {baseUrl}/chat/completions): DeepSeek, vLLM, llama.cpp, Ollama's /v1, LM Studio, OpenAI itself.
 * The AI SDK's @ai-sdk/openai-compatible speaks the wire; aiSdkProvider.ts makes it one request per
 * call, classified; cappedFetch.ts caps the bodies. Configured by MODEL_BASE_URL, MODEL_API_KEY,
 * MODEL_NAME and MODEL_TIMEOUT_MS.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ModelProvider } from '../../shared/contract/model';
import { redactUrl } from '../../shared/text/redact';
import { createLanguageModelProvider } from './aiSdkProvider';
import { cappedFetch } from './cappedFetch';
import { splitUrlCredentials, timeoutMsFromEnv } from './http';

export interface OpenAICompatibleConfig {
  /**
   * e.g. https://api.openai.com/v1, https://api.deepseek.com, http://127.0.0.1:8080/v1. Userinfo
   * (http://user:password@host/v1) is sent as Basic auth when there is no apiKey, and never shown.
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Used when a request's `model` is empty. */
  model?: string;
  /** The one HTTP request of a call, including reading the body. Default 60000. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Reads MODEL_BASE_URL (required), MODEL_API_KEY, MODEL_NAME and MODEL_TIMEOUT_MS. */
export function configFromEnv(env: Record<string, string | undefined> = process.env): OpenAICompatibleConfig {
  const baseUrl = env.MODEL_BASE_URL?.trim();
  if (!baseUrl) {
    throw new Error(
      'MODEL_BASE_URL is not set: set it to an OpenAI-compatible endpoint, ' +
        'e.g. https://api.openai.com/v1, https://api.deepseek.com or http://127.0.0.1:8080/v1',
    );
  }
  try {
    new URL(baseUrl);
  } catch {
    throw new Error(`MODEL_BASE_URL is not a valid URL: ${JSON.stringify(redactUrl(baseUrl))}`);
  }
  const config: OpenAICompatibleConfig = { baseUrl };
  const apiKey = env.MODEL_API_KEY?.trim();
  if (apiKey) config.apiKey = apiKey;
  const model = env.MODEL_NAME?.trim();
  if (model) config.model = model;
  const timeoutMs = timeoutMsFromEnv(env);
  if (timeoutMs !== undefined) config.timeoutMs = timeoutMs;
  return config;
}

export function createOpenAICompatibleProvider(config: OpenAICompatibleConfig): ModelProvider {
  const { url: baseURL, basic } = splitUrlCredentials(config.baseUrl.replace(/\/+$/, ''));
  /** The endpoint as errors (and so activity failures in history) show it: no userinfo, no secret query values. */
  const shown = redactUrl(`${baseURL}/chat/completions`);
  const headers: Record<string, string> = {};
  // MODEL_API_KEY wins over credentials in MODEL_BASE_URL's userinfo (one Authorization header).
  if (!config.apiKey && basic) headers.authorization = `Basic ${basic}`;
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    headers,
    fetch: cappedFetch(config.fetch ?? fetch, () => shown),
  });
  return createLanguageModelProvider({
    endpoint: { shown, api: 'chat-completions', baseUrlVariable: 'MODEL_BASE_URL', apiKeyVariable: 'MODEL_API_KEY', modelVariable: 'MODEL_NAME' },
    model: (modelId) => provider.chatModel(modelId),
    ...(config.model ? { defaultModel: config.model } : {}),
    ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
  });
}
