/**
 * One worker, several providers: a call whose model is named `provider:model` goes to that
 * provider (PROVIDER_CATALOG), configured from its own variables when first used; any other name
 * goes to the deployment's default provider (MODEL_PROVIDER / MODEL_BASE_URL, or the scripted
 * model). A request without a model uses MODEL_NAME. A provider that is not configured fails the
 * call typed and not retryable, naming the variable to set.
 */
import { ModelCallError, type ModelCallOptions, type ModelProvider, type ModelRequest, type ModelResponse } from '../../shared/contract/model';
import { parseModelName, type ModelProviderName } from '../../shared/contract/modelNames';
import { redactUrl } from '../../shared/text/redact';
import { createLanguageModelProvider } from './aiSdkProvider';
import { cappedFetch } from './cappedFetch';
import { PROVIDER_CATALOG } from './catalog';
import { splitUrlCredentials, timeoutMsFromEnv } from './http';
import { createScriptedModel } from './scriptedModel';

type Env = Record<string, string | undefined>;
export type NamedProvider = Exclude<ModelProviderName, 'scripted'>;

/** The provider `name` as the environment configures it; throws a ModelCallError (not retryable) saying what to set when it cannot be used. */
export function namedProvider(name: NamedProvider, env: Env, fetchImpl: typeof fetch = fetch): ModelProvider {
  const entry = PROVIDER_CATALOG[name];
  const base = (env[entry.baseUrlVariable]?.trim() || entry.defaultBaseUrl || '').replace(/\/+$/, '');
  if (!base) {
    throw new ModelCallError(`${name}: ${entry.baseUrlVariable} is not set; set it to the ${entry.api} endpoint (e.g. http://127.0.0.1:8080/v1)`, {
      kind: 'bad_request',
      retryable: false,
    });
  }
  if (!URL.canParse(base)) {
    throw new ModelCallError(`${name}: ${entry.baseUrlVariable} is not a valid URL: ${JSON.stringify(redactUrl(base))}`, {
      kind: 'bad_request',
      retryable: false,
    });
  }
  const apiKey = env[entry.apiKeyVariable]?.trim();
  if (entry.keyRequired && !apiKey) {
    throw new ModelCallError(`${name}: ${entry.apiKeyVariable} is not set; set it to a key for the ${entry.api} API`, { kind: 'auth', retryable: false });
  }
  const { url: baseURL, basic } = splitUrlCredentials(base);
  const shown = redactUrl(`${baseURL}${entry.path}`);
  const languageModel = entry.languageModel({
    baseURL,
    ...(apiKey ? { apiKey } : {}),
    // The key wins over credentials in the base URL's userinfo (one Authorization header).
    headers: !apiKey && basic ? { authorization: `Basic ${basic}` } : {},
    fetch: cappedFetch(fetchImpl, () => shown),
  });
  const timeoutMs = timeoutMsFromEnv(env);
  return createLanguageModelProvider({
    endpoint: { shown, api: entry.api, baseUrlVariable: entry.baseUrlVariable, apiKeyVariable: entry.apiKeyVariable, modelVariable: 'the model name' },
    model: languageModel,
    ...(entry.cacheBreakpoints ? { cacheBreakpoints: true } : {}),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

/** The providers named in the environment (a key or a base URL set), for the worker's start-up line. */
export function configuredProviders(env: Env): NamedProvider[] {
  return (Object.keys(PROVIDER_CATALOG) as NamedProvider[]).filter(
    (name) => name !== 'compatible' && (env[PROVIDER_CATALOG[name].apiKeyVariable]?.trim() || env[PROVIDER_CATALOG[name].baseUrlVariable]?.trim()),
  );
}

export function createModelRouter(env: Env, fallback: ModelProvider, fetchImpl: typeof fetch = fetch): ModelProvider {
  const built = new Map<NamedProvider, ModelProvider>();
  const scripted = createScriptedModel();
  return {
    async complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
      const named = parseModelName(request.model || env.MODEL_NAME?.trim() || '');
      if (!named) return fallback.complete(request, options);
      const routed = { ...request, model: named.model };
      if (named.provider === 'scripted') return scripted.complete(routed, options);
      let provider = built.get(named.provider);
      if (!provider) {
        provider = namedProvider(named.provider, env, fetchImpl);
        built.set(named.provider, provider);
      }
      return provider.complete(routed, options);
    },
  };
}
