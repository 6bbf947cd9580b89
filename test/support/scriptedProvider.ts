/**
 * The deterministic SCRIPTED model provider: a fixed-response stand-in for a real model, for tests
 * only (the demo and the worker use activities/providers/scriptedModel.ts), so no model key or
 * network is ever needed. It never looks at the clock, randomness or environment.
 *
 *   createScriptedProvider([step1, step2, ...])   call #n returns step n (or throws step n's error)
 *   createScriptedProvider((request, i) => ...)    every call's response is computed from the request
 *
 * Responses are validated up front (array form) or per call (function form), and handed out as
 * copies so callers cannot alter the script. Running past the end of the script throws
 * ScriptExhaustedError, which retrying cannot fix.
 */
import { ScriptExhaustedError } from '../../activities/providers/scriptExhausted';
import type { ModelCallOptions, ModelProvider, ModelRequest, ModelResponse } from '../../shared/contract/model';
import { modelResponseSchema } from '../../shared/contract/model';

/** A scripted response, or an error to throw for that call (e.g. a ModelCallError to exercise retries). */
export type ScriptedStep = ModelResponse | { throws: Error };

export type ScriptFunction = (request: ModelRequest, callIndex: number) => ModelResponse;

export interface ScriptedProvider extends ModelProvider {
  /** Copies of the requests received, in order. */
  readonly calls: readonly ModelRequest[];
  /** Steps not yet used (Infinity for the function form). */
  readonly remaining: number;
}

/** Convenience: a plain text reply. */
export function scriptedText(content: string): ModelResponse {
  return { message: { content, toolCalls: [] }, finishReason: 'stop' };
}

/** Convenience: a reply that calls tools (`args` is serialized as the model would send it). */
export function scriptedToolCalls(calls: Array<{ id: string; name: string; args: unknown }>): ModelResponse {
  return {
    message: { content: null, toolCalls: calls.map((c) => ({ id: c.id, name: c.name, argumentsJson: JSON.stringify(c.args) })) },
    finishReason: 'tool_calls',
  };
}

function validated(response: unknown, where: string): ModelResponse {
  const parsed = modelResponseSchema.safeParse(response);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(response)'}: ${i.message}`).join('; ');
    throw new Error(`scripted model: ${where} is not a valid ModelResponse: ${issues}`);
  }
  return parsed.data;
}

function abortError(signal: AbortSignal): Error {
  const error = new Error('model call cancelled', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

function describeLast(request: ModelRequest): string {
  const last = request.messages[request.messages.length - 1];
  if (!last) return 'no messages';
  const text = last.content ?? '(no content)';
  return `last message (${last.role}): ${JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)}`;
}

export function createScriptedProvider(script: ScriptedStep[] | ScriptFunction): ScriptedProvider {
  const calls: ModelRequest[] = [];
  const steps: ScriptedStep[] | null = Array.isArray(script) ? script.map((step, i) => ('throws' in step ? step : validated(step, `step ${i}`))) : null;

  return {
    get calls() {
      return calls;
    },
    get remaining() {
      return steps ? Math.max(0, steps.length - calls.length) : Infinity;
    },
    complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
      if (options?.signal?.aborted) return Promise.reject(abortError(options.signal));
      const callIndex = calls.length;
      calls.push(structuredClone(request));
      try {
        if (!steps) {
          return Promise.resolve(
            structuredClone(validated((script as ScriptFunction)(structuredClone(request), callIndex), `the response to call ${callIndex}`)),
          );
        }
        const step = steps[callIndex];
        if (!step) {
          throw new ScriptExhaustedError(
            `scripted model: the script has ${steps.length} step(s) but call #${callIndex + 1} was made (${describeLast(request)}); ` +
              'add a step to the script, or check why the agent called the model more often than expected',
          );
        }
        if ('throws' in step) throw step.throws;
        return Promise.resolve(structuredClone(step));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
  };
}
