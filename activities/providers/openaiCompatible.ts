/**
 * A model provider speaking the OpenAI chat-completions API (POST {baseUrl}/chat/completions).
 * DeepSeek, OpenAI and local servers (vLLM, llama.cpp, Ollama's /v1, LM Studio) all speak it.
 *
 * Runs inside activities (it uses fetch and timers). One call is exactly one HTTP request: nothing
 * is retried here. Failures are classified as ModelCallError, and the activity's retry policy (the
 * only retry layer) decides what happens next:
 *  - 429            rate_limited (retryable), retryAfterMs from retry-after / retry-after-ms
 *  - 5xx, network   server_error (retryable), retryAfterMs from retry-after when sent
 *  - 408, timeoutMs timeout (retryable)
 *  - 400/404/422... bad_request (not retryable); 401/403 auth (not retryable)
 *  - unusable body  malformed_response (not retryable), including a body over MODEL_RESPONSE_MAX_BYTES
 * The response body is read incrementally and never beyond a byte cap (MODEL_RESPONSE_MAX_BYTES for
 * a success, MODEL_ERROR_BODY_MAX_BYTES for an error, whose text only feeds the message); crossing
 * the cap aborts the request. An external AbortSignal (activity cancellation) stops the call
 * promptly with an AbortError, never classified.
 */
import { z } from 'zod';
import type { ChatMessage, ModelCallOptions, ModelProvider, ModelRequest, ModelResponse, ToolCall, ToolSpec } from '../../shared/contract/model';
import { ModelCallError } from '../../shared/contract/model';
import { redactUrl, redactUrlCredentials } from '../../shared/text/redact';

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

export const DEFAULT_TIMEOUT_MS = 60_000;
/** A success body larger than this is not read: the request is aborted and the call fails (malformed_response, not retryable). */
export const MODEL_RESPONSE_MAX_BYTES = 4 * 1024 * 1024;
/** An error body is read up to this many bytes (the rest is dropped and the request aborted); it only feeds the error message. */
export const MODEL_ERROR_BODY_MAX_BYTES = 64 * 1024;
/**
 * A retry-after beyond this is implausible (garbage, or a clock gone wrong) and treated as absent.
 * Plausible waits longer than the activity's cap are refused there (ModelRetryAfterTooLong).
 */
export const MAX_PLAUSIBLE_RETRY_AFTER_MS = 31 * 24 * 60 * 60 * 1000;
const MAX_ERROR_TEXT = 500;

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
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
});

function argumentsText(args: unknown): string {
  if (args === undefined || args === null) return '';
  if (typeof args === 'string') return args;
  return JSON.stringify(args);
}

// ---------------------------------------------------------------------------------------------
// Retry-after
// ---------------------------------------------------------------------------------------------

const UNSIGNED_DECIMAL = /^\d+(\.\d+)?$/;

function plausible(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_PLAUSIBLE_RETRY_AFTER_MS ? Math.ceil(ms) : undefined;
}

/**
 * The wait a 429/503 asks for, in ms: `retry-after-ms`, else `retry-after` as seconds or as an
 * HTTP date (a date in the past means now: 0). Undefined when absent, unparseable, negative, not
 * finite or beyond MAX_PLAUSIBLE_RETRY_AFTER_MS; an unusable `retry-after-ms` falls back to
 * `retry-after`. Not capped here: the activity decides what a long wait means.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && UNSIGNED_DECIMAL.test(ms)) {
    const value = plausible(Number(ms));
    if (value !== undefined) return value;
  }
  const after = headers.get('retry-after')?.trim();
  if (!after) return undefined;
  if (UNSIGNED_DECIMAL.test(after)) return plausible(Number(after) * 1000);
  // An HTTP date starts with a day name; anything else (e.g. "-5", which Date.parse reads as a year) is garbage.
  if (!/^[A-Za-z]/.test(after)) return undefined;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return plausible(Math.max(0, date - now));
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
  // A server may echo the request URL, credentials included.
  text = redactUrlCredentials(text).trim();
  if (text.length > MAX_ERROR_TEXT) text = `${text.slice(0, MAX_ERROR_TEXT)}…`;
  return text || '(empty body)';
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}

interface CappedBody {
  text: string;
  /** The body was longer than the cap: `text` holds at most the first `cap` bytes and the request was aborted. */
  truncated: boolean;
}

/**
 * Reads a response body chunk by chunk and never holds more than `cap` bytes of it. On crossing the
 * cap it stops, cancels the stream and calls `abort` (which aborts the request). With `whole`, a
 * declared content-length over the cap is refused before reading anything.
 */
async function readCapped(response: Response, cap: number, whole: boolean, abort: () => void): Promise<CappedBody> {
  const body = response.body;
  if (!body) return { text: '', truncated: false };
  const reader: ReadableStreamDefaultReader<Uint8Array> = body.getReader();
  const stop = async (): Promise<void> => {
    abort();
    await reader.cancel().catch(() => undefined);
  };
  const declared = Number(response.headers.get('content-length') ?? '');
  if (whole && Number.isFinite(declared) && declared > cap) {
    await stop();
    return { text: '', truncated: true };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > cap) {
      chunks.push(Buffer.from(value.buffer, value.byteOffset, cap - size));
      size = cap;
      await stop();
      return { text: Buffer.concat(chunks, size).toString('utf8'), truncated: true };
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks, size).toString('utf8'), truncated: false };
}

/**
 * A base URL's userinfo (`http://user:password@host/v1`) as the Basic credentials it stands for,
 * and the URL without it: fetch refuses a URL with credentials (and would quote it, password and
 * all, in its error). Null credentials when there are none or the URL does not parse.
 */
export function splitUrlCredentials(url: string): { url: string; basic: string | null } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, basic: null };
  }
  if (!parsed.username && !parsed.password) return { url, basic: null };
  const basic = Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64');
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, basic };
}

export function createOpenAICompatibleProvider(config: OpenAICompatibleConfig): ModelProvider {
  const { url: endpoint, basic } = splitUrlCredentials(`${config.baseUrl.replace(/\/+$/, '')}/chat/completions`);
  /** The endpoint as errors (and so activity failures in history) show it: no userinfo, no secret query values. */
  const shown = redactUrl(endpoint);
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const doFetch = config.fetch ?? fetch;

  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  // MODEL_API_KEY wins over credentials in MODEL_BASE_URL's userinfo (one Authorization header).
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  else if (basic) headers.authorization = `Basic ${basic}`;

  function parseSuccess(body: CappedBody, status: number, model: string): ModelResponse {
    const malformed = (why: string): ModelCallError =>
      new ModelCallError(
        `malformed chat-completions response from ${shown} (model ${model}): ${why}; ` +
          `check that MODEL_BASE_URL points at an OpenAI-compatible API (usually ending in /v1)`,
        { kind: 'malformed_response', retryable: false, status },
      );
    if (body.truncated) {
      throw malformed(
        `the body is larger than the ${formatBytes(MODEL_RESPONSE_MAX_BYTES)} cap on a model response, ` +
          `so the request was aborted and the body not used (a chat completion is far smaller)`,
      );
    }
    const text = body.text;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw malformed(`body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
    }
    const parsed = wireResponseSchema.safeParse(json);
    if (!parsed.success) {
      const serverSays = typeof json === 'object' && json !== null && 'error' in json ? `; server said: ${serverErrorText(text)}` : '';
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
      throw malformed(`${issues}${serverSays}`);
    }
    const choice = parsed.data.choices[0];
    if (!choice) throw malformed('no choices');
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
    return response;
  }

  function classifyHttpError(status: number, responseHeaders: Headers, body: CappedBody, model: string): ModelCallError {
    const cut = body.truncated ? ` [error body over ${formatBytes(MODEL_ERROR_BODY_MAX_BYTES)}: the rest was not read]` : '';
    const where = `POST ${shown} (model ${model}) returned ${status}: ${serverErrorText(body.text)}${cut}`;
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(responseHeaders);
      return new ModelCallError(`rate limited: ${where}; retry after ${retryAfterMs ?? 'a while'} ms, or lower concurrency / raise the provider's rate limit`, {
        kind: 'rate_limited',
        retryable: true,
        status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    if (status === 401 || status === 403) {
      return new ModelCallError(`model server refused the credentials: ${where}; check MODEL_API_KEY (set, valid, and allowed to use model ${model})`, {
        kind: 'auth',
        retryable: false,
        status,
      });
    }
    if (status === 408) {
      return new ModelCallError(`model server timed out: ${where}; retry later or raise MODEL_TIMEOUT_MS`, { kind: 'timeout', retryable: true, status });
    }
    if (status >= 500) {
      const retryAfterMs = parseRetryAfter(responseHeaders);
      return new ModelCallError(`model server error: ${where}; the provider is failing, retry later`, {
        kind: 'server_error',
        retryable: true,
        status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    const advice =
      status === 404
        ? `check MODEL_BASE_URL (it usually ends in /v1) and MODEL_NAME (${JSON.stringify(model)})`
        : `the request was rejected; check MODEL_NAME (${JSON.stringify(model)}), the tool schemas and the message history`;
    return new ModelCallError(`bad request: ${where}; ${advice}`, { kind: 'bad_request', retryable: false, status });
  }

  return {
    /** Exactly one HTTP request; every failure is thrown classified (or as an AbortError on cancellation), never retried here. */
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
      let read: CappedBody;
      try {
        const response = await doFetch(endpoint, { method: 'POST', headers, body, signal: controller.signal });
        status = response.status;
        responseHeaders = response.headers;
        const success = status >= 200 && status < 300;
        const cap = success ? MODEL_RESPONSE_MAX_BYTES : MODEL_ERROR_BODY_MAX_BYTES;
        read = await readCapped(response, cap, success, () => controller.abort(new Error(`response body over ${formatBytes(cap)}`)));
      } catch (cause) {
        if (external?.aborted) throw abortError(external);
        if (timedOut) {
          throw new ModelCallError(
            `model call timed out after ${timeoutMs} ms (POST ${shown}, model ${model}); ` +
              `the activity may retry it — if the model is just slow, raise MODEL_TIMEOUT_MS`,
            { kind: 'timeout', retryable: true, cause },
          );
        }
        const detail = redactUrlCredentials(
          cause instanceof Error ? `${cause.message}${cause.cause instanceof Error ? ` (${cause.cause.message})` : ''}` : String(cause),
        );
        throw new ModelCallError(`could not reach the model server at ${shown}: ${detail}; check MODEL_BASE_URL and that the server is running`, {
          kind: 'server_error',
          retryable: true,
          cause,
        });
      } finally {
        clearTimeout(timer);
        external?.removeEventListener('abort', onExternalAbort);
      }

      if (status >= 200 && status < 300) return parseSuccess(read, status, model);
      throw classifyHttpError(status, responseHeaders, read, model);
    },
  };
}
