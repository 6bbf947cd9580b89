/**
 * The model-call activity: one request to the configured ModelProvider (one step of an agent
 * turn; the workflow owns the transcript and the loop around it).
 *
 * While the call runs it heartbeats every second and hands the activity's cancellation signal to
 * the provider, so cancelling the activity (an interrupt) stops the call promptly. Failures are
 * mapped to ApplicationFailures whose type names the failure (MODEL_FAILURE_TYPES), whose
 * retryability follows the provider's classification, and whose nextRetryDelay honours a rate
 * limit's retry-after.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ChatMessage, ModelErrorKind, ModelProvider, ModelRequest, ModelResponse, ToolSpec } from '../shared/model';
import { ModelCallError } from '../shared/model';
import { ScriptExhaustedError } from './providers/scriptedProvider';

export interface CallModelInput {
  /** null: the provider's default model. */
  model: string | null;
  /** Names the tools offered to the model (resolved by the worker's toolsFor). */
  toolset: string;
  messages: ChatMessage[];
}

export interface ModelActivityDependencies {
  provider: ModelProvider;
  toolsFor: (toolset: string) => ToolSpec[];
}

/** ApplicationFailure types of classified model-call failures. */
export const MODEL_FAILURE_TYPES: Readonly<Record<ModelErrorKind, string>> = {
  rate_limited: 'ModelRateLimited',
  server_error: 'ModelServerError',
  timeout: 'ModelTimeout',
  bad_request: 'ModelBadRequest',
  auth: 'ModelAuthFailed',
  malformed_response: 'ModelMalformedResponse',
};

export const SCRIPTED_MODEL_EXHAUSTED_TYPE = 'ScriptedModelExhausted';
export const UNKNOWN_TOOLSET_TYPE = 'UnknownToolset';

export const MODEL_CALL_HEARTBEAT_INTERVAL_MS = 1_000;

const ADVICE: Record<ModelErrorKind, string> = {
  rate_limited: 'the provider is rate limiting: lower concurrency or raise the quota if this keeps happening',
  server_error: 'the model server failed or could not be reached: check MODEL_BASE_URL and the server',
  timeout: 'the model did not answer in time: if it is just slow, raise MODEL_TIMEOUT_MS',
  bad_request: 'the provider rejected the request: check MODEL_NAME and the tools and messages sent',
  auth: 'the provider refused the credentials: check MODEL_API_KEY',
  malformed_response: 'the reply was not a chat completion: check that MODEL_BASE_URL is an OpenAI-compatible API',
};

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * Maps a provider failure to what the activity throws. Pure (no activity context needed):
 *  - ModelCallError       ApplicationFailure typed by MODEL_FAILURE_TYPES, nonRetryable = !retryable,
 *                         nextRetryDelay = retryAfterMs, details [{kind, status}]
 *  - ScriptExhaustedError non-retryable ApplicationFailure 'ScriptedModelExhausted'
 *  - AbortError, CancelledFailure, ApplicationFailure and other errors: unchanged
 *  - a non-Error value: wrapped in an Error
 */
export function toActivityFailure(error: unknown): unknown {
  if (error instanceof ModelCallError) {
    const retry = error.retryable
      ? `Temporal retries it per the activity's retry policy${error.retryAfterMs !== undefined ? ` (not before ${error.retryAfterMs} ms)` : ''}`
      : 'not retried';
    return ApplicationFailure.create({
      type: MODEL_FAILURE_TYPES[error.kind],
      message: `${error.message} [${error.kind}${error.status !== undefined ? `, HTTP ${error.status}` : ''}; ${retry}; ${ADVICE[error.kind]}]`,
      nonRetryable: !error.retryable,
      ...(error.retryAfterMs !== undefined ? { nextRetryDelay: error.retryAfterMs } : {}),
      details: [{ kind: error.kind, status: error.status ?? null }],
      cause: error,
    });
  }
  if (error instanceof ScriptExhaustedError || (error instanceof Error && error.name === 'ScriptExhaustedError')) {
    return ApplicationFailure.create({
      type: SCRIPTED_MODEL_EXHAUSTED_TYPE,
      message: `${error.message} [not retried: the script cannot grow by retrying]`,
      nonRetryable: true,
      cause: error,
    });
  }
  if (error instanceof Error) return error;
  return new Error(`model call failed with a non-Error value: ${String(error)}`);
}

export function createModelActivities({ provider, toolsFor }: ModelActivityDependencies) {
  return {
    /** One model call. Cancellable; heartbeats every second while it runs. */
    async callModel(input: CallModelInput): Promise<ModelResponse> {
      const ctx = Context.current();
      let tools: ToolSpec[];
      try {
        tools = toolsFor(input.toolset);
      } catch (error) {
        throw ApplicationFailure.create({
          type: UNKNOWN_TOOLSET_TYPE,
          message: `no tools for toolset ${JSON.stringify(input.toolset)}: ${error instanceof Error ? error.message : String(error)} [not retried; check the toolset the agent is configured with]`,
          nonRetryable: true,
          ...(error instanceof Error ? { cause: error } : {}),
        });
      }
      const request: ModelRequest = { model: input.model ?? '', messages: input.messages, tools };
      const signal = ctx.cancellationSignal;
      const heartbeat = setInterval(() => ctx.heartbeat(), MODEL_CALL_HEARTBEAT_INTERVAL_MS);
      try {
        return await provider.complete(request, { signal });
      } catch (error) {
        // Cancellation: rethrown as is, so Temporal reports the activity as cancelled.
        if (signal.aborted && (isAbortError(error) || error instanceof CancelledFailure)) throw error;
        throw toActivityFailure(error);
      } finally {
        clearInterval(heartbeat);
      }
    },
  };
}

export type ModelActivities = ReturnType<typeof createModelActivities>;
