/**
 * The OpenAI-compatible provider against a REAL local HTTP server (node:http on 127.0.0.1, port 0)
 * speaking the chat-completions API, plus the deterministic scripted provider.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  configFromEnv,
  createOpenAICompatibleProvider,
  parseRetryAfter,
  type OpenAICompatibleConfig,
} from '../../activities/providers/openaiCompatible';
import { ScriptExhaustedError, createScriptedProvider, scriptedText, scriptedToolCalls } from '../../activities/providers/scriptedProvider';
import { ModelCallError, type ModelRequest, type ModelResponse } from '../../shared/model';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

type Reply = (res: http.ServerResponse, req: Received, index: number) => void;

let server: http.Server;
let baseUrl: string;
let received: Received[] = [];
let replies: Reply[] = [];
/** Used once `replies` is exhausted. */
let fallback: Reply = (res) => json(res, 500, { error: { message: 'no reply scripted' } });

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function completion(message: Record<string, unknown>, finishReason = 'stop', usage?: { prompt_tokens: number; completion_tokens: number }) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
    ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
  };
}

const ok = (content: string): Reply => (res) => json(res, 200, completion({ content }));
const hang: Reply = () => {
  /* never answers */
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep raw
      }
      const entry: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      const index = received.length;
      received.push(entry);
      const reply = replies[index] ?? fallback;
      reply(res, entry, index);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
});

beforeEach(() => {
  received = [];
  replies = [];
  fallback = (res) => json(res, 500, { error: { message: 'no reply scripted' } });
});

function provider(overrides: Partial<OpenAICompatibleConfig> = {}) {
  const sleeps: number[] = [];
  const p = createOpenAICompatibleProvider({
    baseUrl,
    apiKey: 'sk-test',
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    ...overrides,
  });
  return { p, sleeps };
}

const simple: ModelRequest = { model: 'test-model', messages: [{ role: 'user', content: 'hi' }], tools: [] };

async function failure(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ModelCallError);
    return error as ModelCallError;
  }
  throw new Error('expected the call to fail');
}

describe('OpenAI-compatible provider against a local chat-completions server', () => {
  test('happy path: text content, finish reason, usage; POST to {baseUrl}/chat/completions', async () => {
    replies = [(res) => json(res, 200, completion({ content: 'hello there' }, 'stop', { prompt_tokens: 7, completion_tokens: 3 }))];
    const { p } = provider();
    const response = await p.complete({ ...simple, temperature: 0.2, maxTokens: 64 });
    expect(response).toEqual({ message: { content: 'hello there', toolCalls: [] }, finishReason: 'stop', usage: { promptTokens: 7, completionTokens: 3 } });
    expect(received).toHaveLength(1);
    expect(received[0]?.method).toBe('POST');
    expect(received[0]?.url).toBe('/v1/chat/completions');
    expect(received[0]?.headers['content-type']).toBe('application/json');
    // no tools → no `tools` key (OpenAI rejects an empty array)
    expect(received[0]?.body).toEqual({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, max_tokens: 64 });
  });

  test('config model is used when the request has none; no Authorization without apiKey', async () => {
    replies = [ok('x')];
    const { p } = provider({ apiKey: undefined, model: 'fallback-model' });
    await p.complete({ ...simple, model: '' });
    expect((received[0]?.body as { model: string }).model).toBe('fallback-model');
    expect(received[0]?.headers.authorization).toBeUndefined();
  });

  test('tool call round trip: tools shape, assistant tool_calls, tool_call_id mapping, Bearer auth', async () => {
    replies = [
      (res) =>
        json(
          res,
          200,
          completion(
            {
              content: null,
              tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.txt"}' } }],
            },
            'tool_calls',
          ),
        ),
    ];
    const { p } = provider();
    const parameters = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const response = await p.complete({
      model: 'test-model',
      tools: [{ name: 'read_file', description: 'Read a file', parameters }],
      messages: [
        { role: 'system', content: 'be terse' },
        { role: 'user', content: 'read a.txt' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'read_file', argumentsJson: '{"path":"a.txt"}' }] },
        { role: 'tool', toolCallId: 'call_1', content: 'contents of a' },
        { role: 'assistant', content: 'done', toolCalls: [] },
      ],
    });

    expect(response.finishReason).toBe('tool_calls');
    expect(response.message).toEqual({ content: null, toolCalls: [{ id: 'call_2', name: 'read_file', argumentsJson: '{"path":"b.txt"}' }] });

    const req = received[0];
    expect(req?.headers.authorization).toBe('Bearer sk-test');
    expect(req?.body).toEqual({
      model: 'test-model',
      tools: [{ type: 'function', function: { name: 'read_file', description: 'Read a file', parameters } }],
      messages: [
        { role: 'system', content: 'be terse' },
        { role: 'user', content: 'read a.txt' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'contents of a' },
        // empty toolCalls → no tool_calls key
        { role: 'assistant', content: 'done' },
      ],
    });
  });

  test('429 with retry-after: 1 then success waits 1000 ms once', async () => {
    replies = [(res) => json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '1' }), ok('after wait')];
    const { p, sleeps } = provider();
    const response = await p.complete(simple);
    expect(response.message.content).toBe('after wait');
    expect(sleeps).toEqual([1000]);
    expect(received).toHaveLength(2);
  });

  test('429 with retry-after-ms takes precedence', async () => {
    replies = [(res) => json(res, 429, { error: { message: 'slow down' } }, { 'retry-after-ms': '250', 'retry-after': '9' }), ok('ok')];
    const { p, sleeps } = provider();
    await p.complete(simple);
    expect(sleeps).toEqual([250]);
  });

  test('429 forever → rate_limited (retryable, retryAfterMs) after maxRetries', async () => {
    fallback = (res) => json(res, 429, { error: { message: 'quota exceeded for org' } }, { 'retry-after': '2' });
    const { p, sleeps } = provider({ maxRetries: 2 });
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(2000);
    expect(error.status).toBe(429);
    expect(error.message).toContain('quota exceeded for org');
    expect(received).toHaveLength(3);
    expect(sleeps).toEqual([2000, 2000]);
  });

  test('429 asking for longer than maxRetryWaitMs is thrown at once with retryAfterMs', async () => {
    fallback = (res) => json(res, 429, { error: { message: 'daily limit' } }, { 'retry-after': '3600' });
    const { p, sleeps } = provider();
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test('503 twice then success, with exponential backoff', async () => {
    const unavailable: Reply = (res) => json(res, 503, { error: { message: 'overloaded' } });
    replies = [unavailable, unavailable, ok('recovered')];
    const { p, sleeps } = provider({ backoffBaseMs: 100 });
    const response = await p.complete(simple);
    expect(response.message.content).toBe('recovered');
    expect(received).toHaveLength(3);
    expect(sleeps).toEqual([100, 200]);
  });

  test('500 forever → server_error (retryable) after maxRetries, with the server text', async () => {
    fallback = (res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('upstream exploded');
    };
    const { p, sleeps } = provider({ maxRetries: 3 });
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('server_error');
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(500);
    expect(error.message).toContain('upstream exploded');
    expect(received).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
  });

  test('connection refused → server_error after retries, naming MODEL_BASE_URL', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { p, sleeps } = provider({ baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 1 });
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('server_error');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('MODEL_BASE_URL');
    expect(sleeps).toHaveLength(1);
  });

  test('a server that never answers → timeout (retryable), not retried here', async () => {
    fallback = hang;
    const { p, sleeps } = provider({ timeoutMs: 200 });
    const started = Date.now();
    const error = await failure(p.complete(simple));
    const elapsed = Date.now() - started;
    expect(error.kind).toBe('timeout');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('MODEL_TIMEOUT_MS');
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3000);
    expect(received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test('external AbortSignal aborts an in-flight call quickly with an AbortError, no retry', async () => {
    fallback = hang;
    const { p, sleeps } = provider({ timeoutMs: 60_000 });
    const controller = new AbortController();
    const started = Date.now();
    const call = p.complete(simple, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await expect(call).rejects.not.toBeInstanceOf(ModelCallError);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test('external abort during a retry backoff stops promptly', async () => {
    fallback = (res) => json(res, 503, { error: { message: 'overloaded' } });
    const controller = new AbortController();
    const p = createOpenAICompatibleProvider({
      baseUrl,
      sleep: () => {
        controller.abort();
        return new Promise<void>(() => {
          /* a very long backoff */
        });
      },
    });
    await expect(p.complete(simple, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).toHaveLength(1);
  });

  test('an already-aborted signal makes no request', async () => {
    const { p } = provider();
    const controller = new AbortController();
    controller.abort();
    await expect(p.complete(simple, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).toHaveLength(0);
  });

  test('malformed tool-call JSON is returned raw, not thrown', async () => {
    replies = [
      (res) =>
        json(
          res,
          200,
          completion(
            {
              content: '',
              tool_calls: [
                { id: 'call_bad', type: 'function', function: { name: 'write_file', arguments: '{"path": "a.txt", "content": ' } },
                { type: 'function', function: { name: 'list', arguments: { dir: '.' } } },
              ],
            },
            'tool_calls',
          ),
        ),
    ];
    const { p } = provider();
    const response = await p.complete(simple);
    expect(response.message.toolCalls).toEqual([
      { id: 'call_bad', name: 'write_file', argumentsJson: '{"path": "a.txt", "content": ' },
      // missing id synthesized; object arguments serialized
      { id: 'call_1', name: 'list', argumentsJson: '{"dir":"."}' },
    ]);
  });

  test('non-JSON body → malformed_response (not retryable)', async () => {
    replies = [
      (res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>welcome to nginx</html>');
      },
    ];
    const { p, sleeps } = provider();
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('malformed_response');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('not JSON');
    expect(received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test('JSON without choices → malformed_response', async () => {
    replies = [(res) => json(res, 200, { choices: [] })];
    const { p } = provider();
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('malformed_response');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('choices');
  });

  test('401 → auth, not retried, with the server message and what to check', async () => {
    fallback = (res) => json(res, 401, { error: { message: 'Incorrect API key provided: sk-te***', type: 'invalid_request_error' } });
    const { p, sleeps } = provider();
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('auth');
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(401);
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).toContain('check MODEL_API_KEY');
    expect(received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test.each([400, 404, 422])('%i → bad_request, not retried, with the server message', async (status) => {
    fallback = (res) => json(res, status, { error: { message: `problem ${status}` } });
    const { p } = provider();
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('bad_request');
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(status);
    expect(error.message).toContain(`problem ${status}`);
    expect(error.message).toContain('MODEL_NAME');
    expect(received).toHaveLength(1);
  });
});

describe('parseRetryAfter', () => {
  const h = (entries: Record<string, string>) => new Headers(entries);
  test('seconds, fractional seconds, ms, HTTP date, garbage', () => {
    expect(parseRetryAfter(h({ 'retry-after': '1' }))).toBe(1000);
    expect(parseRetryAfter(h({ 'retry-after': '0.5' }))).toBe(500);
    expect(parseRetryAfter(h({ 'retry-after-ms': '1500' }))).toBe(1500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(h({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }), now)).toBe(5000);
    expect(parseRetryAfter(h({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(h({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfter(h({}))).toBeUndefined();
  });
});

describe('configFromEnv', () => {
  test('reads MODEL_BASE_URL, MODEL_API_KEY, MODEL_NAME, MODEL_TIMEOUT_MS', () => {
    expect(
      configFromEnv({ MODEL_BASE_URL: 'https://api.deepseek.com', MODEL_API_KEY: 'sk-1', MODEL_NAME: 'deepseek-chat', MODEL_TIMEOUT_MS: '30000' }),
    ).toEqual({ baseUrl: 'https://api.deepseek.com', apiKey: 'sk-1', model: 'deepseek-chat', timeoutMs: 30000 });
    expect(configFromEnv({ MODEL_BASE_URL: 'http://127.0.0.1:8080/v1' })).toEqual({ baseUrl: 'http://127.0.0.1:8080/v1' });
  });
  test('rejects a missing base URL and a bad timeout with actionable messages', () => {
    expect(() => configFromEnv({})).toThrow(/MODEL_BASE_URL is not set/);
    expect(() => configFromEnv({ MODEL_BASE_URL: 'not a url' })).toThrow(/not a valid URL/);
    expect(() => configFromEnv({ MODEL_BASE_URL: 'http://x/v1', MODEL_TIMEOUT_MS: 'soon' })).toThrow(/MODEL_TIMEOUT_MS must be a positive integer/);
  });
});

describe('scripted provider (deterministic stand-in for tests and demos)', () => {
  test('returns scripted responses in order, records requests, then throws ScriptExhaustedError', async () => {
    const p = createScriptedProvider([scriptedToolCalls([{ id: 'c1', name: 'list', args: { dir: '.' } }]), scriptedText('all done')]);
    expect(p.remaining).toBe(2);
    const first = await p.complete(simple);
    expect(first.message.toolCalls).toEqual([{ id: 'c1', name: 'list', argumentsJson: '{"dir":"."}' }]);
    expect(first.finishReason).toBe('tool_calls');
    const second = await p.complete({ ...simple, messages: [{ role: 'user', content: 'again' }] });
    expect(second.message.content).toBe('all done');
    expect(p.remaining).toBe(0);
    expect(p.calls.map((c) => c.messages[0]?.content)).toEqual(['hi', 'again']);

    const third = p.complete({ ...simple, messages: [{ role: 'user', content: 'one more' }] });
    await expect(third).rejects.toBeInstanceOf(ScriptExhaustedError);
    await expect(third).rejects.toThrow(/2 step\(s\) but call #3 was made .*one more/);
  });

  test('hands out copies: mutating a response does not change the script', async () => {
    const step: ModelResponse = scriptedText('stable');
    const p = createScriptedProvider([step, step]);
    const a = await p.complete(simple);
    a.message.content = 'mutated';
    const b = await p.complete(simple);
    expect(b.message.content).toBe('stable');
  });

  test('a step can throw (e.g. a ModelCallError) to exercise failure handling', async () => {
    const rateLimited = new ModelCallError('rate limited', { kind: 'rate_limited', retryable: true, retryAfterMs: 10 });
    const p = createScriptedProvider([{ throws: rateLimited }, scriptedText('ok')]);
    await expect(p.complete(simple)).rejects.toBe(rateLimited);
    await expect(p.complete(simple)).resolves.toMatchObject({ message: { content: 'ok' } });
  });

  test('function form computes each response from the request and call index', async () => {
    const p = createScriptedProvider((request, i) => scriptedText(`#${i}: ${request.messages.length} message(s)`));
    await expect(p.complete(simple)).resolves.toMatchObject({ message: { content: '#0: 1 message(s)' } });
    await expect(p.complete({ ...simple, messages: [...simple.messages, { role: 'assistant', content: 'x' }] })).resolves.toMatchObject({
      message: { content: '#1: 2 message(s)' },
    });
    expect(p.remaining).toBe(Infinity);
  });

  test('invalid scripted responses are rejected with a clear message', async () => {
    expect(() => createScriptedProvider([{ message: { content: 'x' }, finishReason: 'stop' } as unknown as ModelResponse])).toThrow(
      /step 0 is not a valid ModelResponse: message\.toolCalls/,
    );
    const p = createScriptedProvider(() => ({ finishReason: 'stop' }) as unknown as ModelResponse);
    await expect(p.complete(simple)).rejects.toThrow(/the response to call 0 is not a valid ModelResponse/);
  });

  test('honours an already-aborted signal', async () => {
    const p = createScriptedProvider([scriptedText('x')]);
    const controller = new AbortController();
    controller.abort();
    await expect(p.complete(simple, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(p.remaining).toBe(1);
  });
});
