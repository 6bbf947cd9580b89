/**
 * The providers a worker can serve by name (`provider:model`), each from its own variables: which
 * AI SDK package speaks its API, where its key and base URL come from, and their defaults. Every
 * key and base URL variable is masked from bash (activities/tools/credentials.ts).
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelProviderName } from '../../shared/contract/modelNames';

/** What a provider's package is given: where to send, the key (when set), headers, and the capped fetch. */
export interface ProviderSettings {
  baseURL: string;
  apiKey?: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

export interface CatalogEntry {
  /** The API it speaks, for messages. */
  api: string;
  /** The path a call POSTs to under the base URL, for messages ({model} stands for the model id). */
  path: string;
  apiKeyVariable: string;
  baseUrlVariable: string;
  /** Used when the base URL variable is unset; none: the variable is required. */
  defaultBaseUrl?: string;
  /** A call without a key is refused before any request (auth, not retryable). */
  keyRequired: boolean;
  languageModel(settings: ProviderSettings): (modelId: string) => LanguageModelV4;
  /** The API caches a prompt's prefix only where the request marks it (Anthropic's `cache_control`): see aiSdkPrompt.ts. */
  cacheBreakpoints?: boolean;
}

const compatible = (name: string) => (settings: ProviderSettings) => {
  const provider = createOpenAICompatible({ name, ...settings });
  return (modelId: string) => provider.chatModel(modelId);
};

/** A server of the chat-completions dialect by name: its variables are <NAME>_API_KEY and <NAME>_BASE_URL. */
function chatCompletions(name: string, label: string, options: { keyRequired: boolean; defaultBaseUrl: string }): CatalogEntry {
  const prefix = name.toUpperCase();
  return {
    api: `chat-completions (${label})`,
    path: '/chat/completions',
    apiKeyVariable: `${prefix}_API_KEY`,
    baseUrlVariable: `${prefix}_BASE_URL`,
    ...options,
    languageModel: compatible(name),
  };
}

export const PROVIDER_CATALOG: Readonly<Record<Exclude<ModelProviderName, 'scripted'>, CatalogEntry>> = {
  openai: {
    api: 'OpenAI Responses',
    path: '/responses',
    apiKeyVariable: 'OPENAI_API_KEY',
    baseUrlVariable: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com/v1',
    keyRequired: true,
    languageModel: (settings) => {
      const provider = createOpenAI(settings);
      return (modelId) => provider.responses(modelId);
    },
  },
  'openai-chat': {
    api: 'OpenAI Chat Completions',
    path: '/chat/completions',
    apiKeyVariable: 'OPENAI_API_KEY',
    baseUrlVariable: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com/v1',
    keyRequired: true,
    languageModel: (settings) => {
      const provider = createOpenAI(settings);
      return (modelId) => provider.chat(modelId);
    },
  },
  anthropic: {
    api: 'Anthropic Messages',
    path: '/messages',
    apiKeyVariable: 'ANTHROPIC_API_KEY',
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    defaultBaseUrl: 'https://api.anthropic.com/v1',
    keyRequired: true,
    cacheBreakpoints: true,
    languageModel: (settings) => {
      const provider = createAnthropic(settings);
      return (modelId) => provider.messages(modelId);
    },
  },
  google: {
    api: 'Gemini generateContent',
    path: '/models/{model}:generateContent',
    apiKeyVariable: 'GOOGLE_GENERATIVE_AI_API_KEY',
    baseUrlVariable: 'GOOGLE_GENERATIVE_AI_BASE_URL',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    keyRequired: true,
    languageModel: (settings) => {
      const provider = createGoogleGenerativeAI(settings);
      return (modelId) => provider.languageModel(modelId);
    },
  },
  deepseek: chatCompletions('deepseek', 'DeepSeek', { keyRequired: true, defaultBaseUrl: 'https://api.deepseek.com' }),
  ollama: chatCompletions('ollama', 'Ollama', { keyRequired: false, defaultBaseUrl: 'http://127.0.0.1:11434/v1' }),
  lmstudio: chatCompletions('lmstudio', 'LM Studio', { keyRequired: false, defaultBaseUrl: 'http://127.0.0.1:1234/v1' }),
  vllm: chatCompletions('vllm', 'vLLM', { keyRequired: false, defaultBaseUrl: 'http://127.0.0.1:8000/v1' }),
  compatible: {
    api: 'chat-completions',
    path: '/chat/completions',
    apiKeyVariable: 'MODEL_API_KEY',
    baseUrlVariable: 'MODEL_BASE_URL',
    keyRequired: false,
    languageModel: compatible('openai-compatible'),
  },
};
