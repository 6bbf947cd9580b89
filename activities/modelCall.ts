/**
 * The model-call activity: one request to the configured ModelProvider (one step of an agent
 * turn; the workflow owns the transcript and the loop around it).
 *
 * While the call runs it heartbeats every second and hands the activity's cancellation signal to
 * the provider, so cancelling the activity (an interrupt) stops the call promptly. Failures are
 * mapped to ApplicationFailures whose type names the failure (MODEL_FAILURE_TYPES), whose
 * retryability follows the provider's classification, and whose nextRetryDelay honours a rate
 * limit's retry-after up to MODEL_RETRY_AFTER_CAP_MS (a longer wait fails the call for good:
 * ModelRetryAfterTooLong). Providers do not retry: the activity's retry policy is the only retry
 * layer. A response too large to be the activity's result fails typed instead of being returned.
 * Its heartbeats say whether the provider still has the request, so a retry can count an attempt
 * whose answer was lost to a dead worker or a timeout (activities/lostAnswers.ts).
 */
import { MODEL_NOT_ALLOWED, modelNotAllowed, type TeamModels } from '../shared/contract/modelNames';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ModelErrorKind, ModelProvider, ModelRequest, ModelResponse, ToolSpec } from '../shared/contract/model';
import { ModelCallError } from '../shared/contract/model';
import { jsonBytes, PAYLOAD_MAX_BYTES } from '../shared/contract/limits';
import { errorMessage } from '../shared/util/errors';
import { redactErrorCredentials, redactUrlCredentials } from '../shared/text/redact';
import type { CallModelInput, ModelActivities } from '../shared/contract';
import { ScriptExhaustedError } from './providers/scriptExhausted';
import { ATTEMPT_FAILED, AWAITING_ANSWER, countLostAnswer, type LostAnswerTags, lostAnswerTags, previousAttemptLost } from './lostAnswers';

export interface ModelActivityDependencies {
  provider: ModelProvider;
  toolsFor: (toolset: string) => ToolSpec[];
  /**
   * The deployment's model list on this worker: a call naming another model is refused, one naming
   * none gets its default (a Team's own list is checked in the workflow).
   */
  allowed?: TeamModels;
  /** Counts an attempt whose answer was lost (activities/lostAnswers.ts); default: the activity's metric meter. */
  countLostAnswer?: (tags: LostAnswerTags) => void;
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

/** The longest provider-requested wait (retry-after) that becomes the next retry delay: 5 minutes. */
export const MODEL_RETRY_AFTER_CAP_MS = 5 * 60 * 1000;
/** Non-retryable: the provider asked to wait longer than MODEL_RETRY_AFTER_CAP_MS. */
export const MODEL_RETRY_AFTER_TOO_LONG_TYPE = 'ModelRetryAfterTooLong';

const ADVICE: Record<ModelErrorKind, string> = {
  rate_limited: 'the provider is rate limiting: lower concurrency or raise the quota if this keeps happening',
  server_error: "the model server failed or could not be reached: check the provider's base URL (MODEL_BASE_URL, ANTHROPIC_BASE_URL, ...) and the server",
  timeout: 'the model did not answer in time: if it is just slow, raise MODEL_TIMEOUT_MS',
  bad_request: 'the provider rejected the request: check the model name (MODEL_NAME, or provider:model) and the tools and messages sent',
  auth: "the provider refused the credentials: check the provider's key (MODEL_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY, ...)",
  malformed_response: "the reply was not one the provider's API sends: check that the provider's base URL points at that API",
};

/** e.g. "90 s", "15 min", "26 h". */
function roughDuration(ms: number): string {
  if (ms < 120_000) return `${Math.ceil(ms / 1000)} s`;
  if (ms < 120 * 60_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * Maps a provider failure to what the activity throws. Pure (no activity context needed):
 *  - ModelCallError       ApplicationFailure typed by MODEL_FAILURE_TYPES, nonRetryable = !retryable,
 *                         nextRetryDelay = retryAfterMs (when retryable and > 0), details [{kind, status}]
 *                         ...but a retryable one whose retryAfterMs is over MODEL_RETRY_AFTER_CAP_MS:
 *                         non-retryable 'ModelRetryAfterTooLong', details [{kind, status, retryAfterMs, capMs}]
 *  - ScriptExhaustedError non-retryable ApplicationFailure 'ScriptedModelExhausted'
 *  - AbortError, CancelledFailure, ApplicationFailure and other errors: the same error (redacted, below)
 *  - a non-Error value: wrapped in an Error
 * Whatever it returns has URL credentials (userinfo, secret query values) redacted from its
 * message, stack and causes: it is recorded in history and shown in the "turn failed" note.
 */
export function toActivityFailure(error: unknown): unknown {
  if (!(error instanceof Error)) return new Error(`model call failed with a non-Error value: ${redactUrlCredentials(String(error))}`);
  return redactErrorCredentials(activityFailureOf(redactErrorCredentials(error)));
}

function activityFailureOf(error: Error): Error {
  if (error instanceof ModelCallError) {
    const what = `${error.kind}${error.status !== undefined ? `, HTTP ${error.status}` : ''}`;
    const wait = error.retryable ? error.retryAfterMs : undefined;
    if (wait !== undefined && wait > MODEL_RETRY_AFTER_CAP_MS) {
      return ApplicationFailure.create({
        type: MODEL_RETRY_AFTER_TOO_LONG_TYPE,
        message:
          `${error.message} [${what}; the provider asked to wait ${wait} ms (about ${roughDuration(wait)}) before trying again, ` +
          `longer than the ${roughDuration(MODEL_RETRY_AFTER_CAP_MS)} a model call waits between attempts, so it is not retried: ` +
          `prompt again once that time has passed, or raise the provider's quota or rate limit]`,
        nonRetryable: true,
        details: [{ kind: error.kind, status: error.status ?? null, retryAfterMs: wait, capMs: MODEL_RETRY_AFTER_CAP_MS }],
        // No cause: the message already holds the provider's, and readers that show a failure's
        // innermost cause (the Lead's lastError) must see what to do next.
      });
    }
    const retry = error.retryable
      ? `Temporal retries it per the activity's retry policy${wait !== undefined ? ` (not before ${wait} ms)` : ''}`
      : 'not retried';
    return ApplicationFailure.create({
      type: MODEL_FAILURE_TYPES[error.kind],
      message: `${error.message} [${what}; ${retry}; ${ADVICE[error.kind]}]`,
      nonRetryable: !error.retryable,
      ...(wait !== undefined && wait > 0 ? { nextRetryDelay: wait } : {}),
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
  return error;
}

export function createModelActivities({ provider, toolsFor, allowed, countLostAnswer: countLost }: ModelActivityDependencies): ModelActivities {
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
          message:
            `no tools for toolset ${JSON.stringify(input.toolset)}: ${errorMessage(error)} ` + `[not retried; check the toolset the agent is configured with]`,
          nonRetryable: true,
          ...(error instanceof Error ? { cause: error } : {}),
        });
      }
      // A raw start can record any list in its Team; this worker still calls only what its deployment lists.
      const modelProblem = modelNotAllowed(allowed, input.model, "this worker's list (AGENT_TEAMS_MODELS)");
      if (modelProblem) {
        throw ApplicationFailure.create({
          type: MODEL_NOT_ALLOWED,
          message: `${modelProblem} [not retried]`,
          nonRetryable: true,
        });
      }
      // No name: this worker's list's default, else its provider's own (MODEL_NAME).
      const request: ModelRequest = { model: input.model ?? allowed?.default ?? '', messages: input.messages, tools };
      if (previousAttemptLost(ctx.info.attempt, ctx.info.heartbeatDetails)) {
        const tags = lostAnswerTags(ctx.info.workflowType, input.model);
        (countLost ?? ((t: LostAnswerTags) => countLostAnswer(ctx.metricMeter, t)))(tags);
      }
      const signal = ctx.cancellationSignal;
      ctx.heartbeat(AWAITING_ANSWER);
      const heartbeat = setInterval(() => ctx.heartbeat(AWAITING_ANSWER), MODEL_CALL_HEARTBEAT_INTERVAL_MS);
      let response: ModelResponse;
      try {
        response = await provider.complete(request, { signal });
      } catch (error) {
        // This attempt ends with an outcome: the SDK flushes this last heartbeat with the failure, so a retry does not count it lost.
        ctx.heartbeat(ATTEMPT_FAILED);
        // Cancellation: rethrown as is, so Temporal reports the activity as cancelled.
        if (signal.aborted && (isAbortError(error) || error instanceof CancelledFailure)) throw error;
        throw toActivityFailure(error);
      } finally {
        clearInterval(heartbeat);
      }
      // The response becomes the activity's result: one over the payload limit would be refused by
      // the server (or burden every later turn), so it fails here, typed, and is not retried (the
      // failure, its message and `budgetBytes` included, is recorded in history as it is).
      const bytes = jsonBytes(response);
      if (bytes > PAYLOAD_MAX_BYTES) {
        throw ApplicationFailure.create({
          type: MODEL_FAILURE_TYPES.malformed_response,
          message:
            `the model's response is ${bytes} bytes as JSON, over the ${PAYLOAD_MAX_BYTES}-byte budget of an activity result ` +
            `(Temporal refuses payloads over 2 MiB) [malformed_response; not retried; ask the model for a shorter reply or fewer tool calls at once]`,
          nonRetryable: true,
          details: [{ kind: 'malformed_response', status: null, bytes, budgetBytes: PAYLOAD_MAX_BYTES }],
        });
      }
      return response;
    },
  };
}
