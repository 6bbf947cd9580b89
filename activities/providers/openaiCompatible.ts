/**
 * A model provider speaking the OpenAI chat-completions API (POST {baseUrl}/chat/completions).
 * DeepSeek, OpenAI and local servers (vLLM, llama.cpp, Ollama's /v1, LM Studio) all speak it.
 *
 * Runs inside activities (it uses fetch and timers). Failures are classified as ModelCallError:
 *  - 429            rate_limited, retried here honouring retry-after / retry-after-ms, then thrown (retryable)
 *  - 5xx, network   server_error, retried here with exponential backoff, then thrown (retryable)
 *  - timeoutMs      timeout (retryable); not retried here, the activity's retry policy decides
 *  - 400/404/422... bad_request (not retryable); 401/403 auth (not retryable)
 *  - unusable body  malformed_response (not retryable)
 * An external AbortSignal (activity cancellation) stops the call promptly with an AbortError,
 * never retried and never classified.
 */
import { z } from 'zod';
import type { ChatMessage, ModelCallOptions, ModelProvider, ModelRequest, ModelResponse, ToolCall, ToolSpec } from '../../shared/model';
import { ModelCallError } from '../../shared/model';

export interface OpenAICompatibleConfig {
  /** e.g. https://api.openai.com/v1, https://api.deepseek.com, http://127.0.0.1:8080/v1 */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Used when a request's `model` is empty. */
  model?: string;
  /** Per HTTP attempt, including reading the body. Default 60000. */
  timeoutMs?: number;
  /** Retries after the first attempt for 429 and 5xx/network failures. Default 3. */
  maxRetries?: number;
  /** A wait longer than this (from retry-after) is not slept here: the error is thrown with retryAfterMs. Default 60000. */
  maxRetryWaitMs?: number;
  /** First backoff for 5xx (doubled per retry, capped at 8000). Default 500. */
  backoffBaseMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;
export const DEFAULT_BACKOFF_BASE_MS = 500;
const MAX_BACKOFF_MS = 8_000;
const MAX_ERROR_TEXT = 500;

/** Reads MODEL_BASE_URL (required), MODEL_API_KEY, MODEL_NAME and MODEL_TIMEOUT_MS. */
export function configFromEnv(env: Record<string, string | undefined> = process.env): OpenAICompatibleConfig {
  const baseUrl = env.MODEL_BASE_URL?.trim();
  if (!baseUrl) {
    throw new Error(
      'MODEL_BASE_URL is not set: set it to an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1, https://api.deepseek.com or http://127.0.0.1:8080/v1',
    );
  }
  try {
    new URL(baseUrl);
  } catch {
    throw new Error(`MODEL_BASE_URL is not a valid URL: ${JSON.stringify(baseUrl)}`);
  }
  const config: OpenAICompatibleConfig = { baseUrl };
  const apiKey = env.MODEL_API_KEY?.trim();
  if (apiKey) config.apiKey = apiKey;
  const model = env.MODEL_NAME?.trim();
  if (model) config.model = model;
  const timeout = env.MODEL_TIMEOUT_MS?.trim();
  if (timeout) {
    const ms = Number(timeout);
    if (!Number.isInteger(ms) || ms <= 0) throw new Error(`MODEL_TIMEOUT_MS must be a positive integer (milliseconds), got ${JSON.stringify(timeout)}`);
    config.timeoutMs = ms;
  }
  return config;
}

// ---------------------------------------------------------------------------------------------
// Wire format
// ---------------------------------------------------------------------------------------------

type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export function toWireMessage(message: ChatMessage): WireMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const wire: WireMessage = { role: 'assistant', content: message.content };
      // OpenAI rejects an empty tool_calls array, so only send it when there are calls.
      if (message.toolCalls && message.toolCalls.length > 0) {
        wire.tool_calls = message.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.argumentsJson } }));
      }
      return wire;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function toWireTool(tool: ToolSpec) {
  return { type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

export function toWireBody(request: ModelRequest, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: request.messages.map(toWireMessage) };
  // OpenAI rejects `tools: []`, so omit it when there are none.
  if (request.tools.length > 0) body.tools = request.tools.map(toWireTool);
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  return body;
}

const wireToolCallSchema = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({
    name: z.string().min(1),
    // Normally a JSON string; some local servers send the object itself. Never parsed here.
    arguments: z.unknown().optional(),
  }),
});

const wireResponseSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(wireToolCallSchema).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z
    .object({ prompt_tokens: z.number(), completion_tokens: z.number() })
    .nullish(),
});

function argumentsText(args: unknown): string {
  if (args === undefined || args === null) return '';
  if (typeof args === 'string') return args;
  return JSON.stringify(args);
}

// ---------------------------------------------------------------------------------------------
// Retry-after
// ---------------------------------------------------------------------------------------------

/**
 * The wait a 429/503 asks for, in ms: `retry-after-ms`, else `retry-after` as seconds or as an
 * HTTP date. Undefined when absent or unparseable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const after = headers.get('retry-after')?.trim();
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.ceil(Number(after) * 1000);
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

// ---------------------------------------------------------------------------------------------
// Provider
// ---------------------------------------------------------------------------------------------

function abortError(signal: AbortSignal): Error {
  const error = new Error('model call cancelled', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

function serverErrorText(bodyText: string): string {
  let text = bodyText;
  try {
    const parsed: unknown = JSON.parse(bodyText);
    const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
    if (typeof error === 'string') text = error;
    else if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
      text = (error as { message: string }).message;
    }
  } catch {
    // not JSON: use the raw text
  }
  text = text.trim();
  if (text.length > MAX_ERROR_TEXT) text = `${text.slice(0, MAX_ERROR_TEXT)}…`;
  return text || '(empty body)';
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits `ms` with the injected sleep, but rejects as soon as `signal` aborts. */
function sleepUnlessAborted(sleep: (ms: number) => Promise<void>, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    sleep(ms).then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

type Attempt = { ok: true; response: ModelResponse } | { ok: false; error: ModelCallError; retryHere: boolean };

export function createOpenAICompatibleProvider(config: OpenAICompatibleConfig): ModelProvider {
  const endpoint = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxRetryWaitMs = config.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  const backoffBaseMs = config.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS;
  const doFetch = config.fetch ?? fetch;
  const sleep = config.sleep ?? defaultSleep;

  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;

  async function attempt(body: string, model: string, external: AbortSignal | undefined): Promise<Attempt> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const onExternalAbort = () => controller.abort(external?.reason);
    external?.addEventListener('abort', onExternalAbort, { once: true });

    let status: number;
    let responseHeaders: Headers;
    let text: string;
    try {
      const response = await doFetch(endpoint, { method: 'POST', headers, body, signal: controller.signal });
      status = response.status;
      responseHeaders = response.headers;
      text = await response.text();
    } catch (cause) {
      if (external?.aborted) throw abortError(external);
      if (timedOut) {
        return {
          ok: false,
          retryHere: false,
          error: new ModelCallError(
            `model call timed out after ${timeoutMs} ms (POST ${endpoint}, model ${model}); the activity may retry it — if the model is just slow, raise MODEL_TIMEOUT_MS`,
            { kind: 'timeout', retryable: true, cause },
          ),
        };
      }
      const detail = cause instanceof Error ? `${cause.message}${cause.cause instanceof Error ? ` (${cause.cause.message})` : ''}` : String(cause);
      return {
        ok: false,
        retryHere: true,
        error: new ModelCallError(`could not reach the model server at ${endpoint}: ${detail}; check MODEL_BASE_URL and that the server is running`, {
          kind: 'server_error',
          retryable: true,
          cause,
        }),
      };
    } finally {
      clearTimeout(timer);
      external?.removeEventListener('abort', onExternalAbort);
    }

    if (status >= 200 && status < 300) return parseSuccess(text, status, model);
    return { ok: false, ...classifyHttpError(status, responseHeaders, text, model) };
  }

  function parseSuccess(text: string, status: number, model: string): Attempt {
    const malformed = (why: string): Attempt => ({
      ok: false,
      retryHere: false,
      error: new ModelCallError(
        `malformed chat-completions response from ${endpoint} (model ${model}): ${why}; check that MODEL_BASE_URL points at an OpenAI-compatible API (usually ending in /v1)`,
        { kind: 'malformed_response', retryable: false, status },
      ),
    });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return malformed(`body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
    }
    const parsed = wireResponseSchema.safeParse(json);
    if (!parsed.success) {
      const serverSays = typeof json === 'object' && json !== null && 'error' in json ? `; server said: ${serverErrorText(text)}` : '';
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
      return malformed(`${issues}${serverSays}`);
    }
    const choice = parsed.data.choices[0];
    if (!choice) return malformed('no choices');
    const toolCalls: ToolCall[] = (choice.message.tool_calls ?? []).map((call, index) => ({
      // Some local servers omit ids; synthesize a stable one so tool results can still be matched.
      id: call.id ? call.id : `call_${index}`,
      name: call.function.name,
      argumentsJson: argumentsText(call.function.arguments),
    }));
    const response: ModelResponse = {
      message: { content: choice.message.content ?? null, toolCalls },
      finishReason: choice.finish_reason ?? 'unknown',
    };
    const usage = parsed.data.usage;
    if (usage) response.usage = { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
    return { ok: true, response };
  }

  function classifyHttpError(status: number, responseHeaders: Headers, text: string, model: string): { error: ModelCallError; retryHere: boolean } {
    const said = serverErrorText(text);
    const where = `POST ${endpoint} (model ${model}) returned ${status}: ${said}`;
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(responseHeaders);
      const init = { kind: 'rate_limited' as const, retryable: true, status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
      return {
        retryHere: retryAfterMs === undefined || retryAfterMs <= maxRetryWaitMs,
        error: new ModelCallError(
          `rate limited: ${where}; retry after ${retryAfterMs ?? 'a while'} ms, or lower concurrency / raise the provider's rate limit`,
          init,
        ),
      };
    }
    if (status === 401 || status === 403) {
      return {
        retryHere: false,
        error: new ModelCallError(`model server refused the credentials: ${where}; check MODEL_API_KEY (set, valid, and allowed to use model ${model})`, {
          kind: 'auth',
          retryable: false,
          status,
        }),
      };
    }
    if (status === 408) {
      return { retryHere: true, error: new ModelCallError(`model server timed out: ${where}; retry later or raise MODEL_TIMEOUT_MS`, { kind: 'timeout', retryable: true, status }) };
    }
    if (status >= 500) {
      const retryAfterMs = parseRetryAfter(responseHeaders);
      return {
        retryHere: retryAfterMs === undefined || retryAfterMs <= maxRetryWaitMs,
        error: new ModelCallError(`model server error: ${where}; the provider is failing, retry later`, {
          kind: 'server_error',
          retryable: true,
          status,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        }),
      };
    }
    const advice =
      status === 404
        ? `check MODEL_BASE_URL (it usually ends in /v1) and MODEL_NAME (${JSON.stringify(model)})`
        : `the request was rejected; check MODEL_NAME (${JSON.stringify(model)}), the tool schemas and the message history`;
    return { retryHere: false, error: new ModelCallError(`bad request: ${where}; ${advice}`, { kind: 'bad_request', retryable: false, status }) };
  }

  function backoffMs(retry: number, error: ModelCallError): number {
    if (error.retryAfterMs !== undefined) return error.retryAfterMs;
    return Math.min(MAX_BACKOFF_MS, backoffBaseMs * 2 ** retry);
  }

  return {
    async complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
      const external = options?.signal;
      if (external?.aborted) throw abortError(external);
      const model = request.model || config.model || '';
      if (!model) {
        throw new ModelCallError('no model name: the request has no model and MODEL_NAME is not set; set MODEL_NAME (e.g. gpt-4o-mini, deepseek-chat)', {
          kind: 'bad_request',
          retryable: false,
        });
      }
      const body = JSON.stringify(toWireBody(request, model));
      for (let retry = 0; ; retry++) {
        const result = await attempt(body, model, external);
        if (result.ok) return result.response;
        if (!result.retryHere || retry >= maxRetries) throw result.error;
        await sleepUnlessAborted(sleep, backoffMs(retry, result.error), external);
      }
    },
  };
}
