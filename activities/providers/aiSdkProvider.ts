/**
 * A ModelProvider over an AI SDK language model: exactly one `doGenerate` per call, so nothing is
 * retried below Temporal's activity retry (the only retry layer). The call has a timeout that covers
 * reading the body; an external AbortSignal (activity cancellation) aborts the request and the call
 * ends with an AbortError, never classified; every other failure is a ModelCallError.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { ModelCallError, type ModelCallOptions, type ModelProvider, type ModelRequest, type ModelResponse } from '../../shared/contract/model';
import { classifyProviderError, type EndpointFacts } from './aiSdkErrors';
import { toCallOptions } from './aiSdkPrompt';
import { toModelResponse } from './aiSdkResult';
import { abortError, DEFAULT_TIMEOUT_MS } from './http';

export interface LanguageModelSource {
  endpoint: EndpointFacts;
  /** The provider's model of that name (no request is made to make it). */
  model(modelId: string): LanguageModelV4;
  /** Used when a request names no model. */
  defaultModel?: string;
  /** Mark the prompt's cache breakpoints (toCallOptions): for APIs that cache only where the request says. */
  cacheBreakpoints?: boolean;
  /** The one HTTP request of a call, including reading the body. Default 60000. */
  timeoutMs?: number;
}

export function createLanguageModelProvider(source: LanguageModelSource): ModelProvider {
  const timeoutMs = source.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    async complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
      const external = options?.signal;
      if (external?.aborted) throw abortError(external);
      const modelId = request.model || source.defaultModel || '';
      if (!modelId) {
        const variable = source.endpoint.modelVariable;
        throw new ModelCallError(`no model name: the request has no model and ${variable} is not set; set ${variable} (e.g. gpt-4o-mini, deepseek-chat)`, {
          kind: 'bad_request',
          retryable: false,
        });
      }
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const onExternalAbort = (): void => controller.abort(external?.reason);
      external?.addEventListener('abort', onExternalAbort, { once: true });
      try {
        const result = await source
          .model(modelId)
          .doGenerate({ ...toCallOptions(request, { cacheBreakpoints: source.cacheBreakpoints === true }), abortSignal: controller.signal });
        return toModelResponse(result);
      } catch (error) {
        if (external?.aborted) throw abortError(external);
        if (timedOut) {
          throw new ModelCallError(
            `model call timed out after ${timeoutMs} ms (POST ${source.endpoint.shown}, model ${modelId}); ` +
              `the activity may retry it — if the model is just slow, raise MODEL_TIMEOUT_MS`,
            { kind: 'timeout', retryable: true, cause: error },
          );
        }
        throw classifyProviderError(error, source.endpoint, modelId);
      } finally {
        clearTimeout(timer);
        external?.removeEventListener('abort', onExternalAbort);
      }
    },
  };
}
