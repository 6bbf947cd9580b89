/**
 * The OpenAI-compatible provider against a REAL local HTTP server (node:http on 127.0.0.1, port 0)
 * speaking the chat-completions API: one HTTP request per call (Temporal is the only retry layer),
 * retry-after parsing and its cap in the activity, byte caps on response bodies; plus the
 * deterministic scripted provider.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createModelActivities, MODEL_RETRY_AFTER_CAP_MS, MODEL_RETRY_AFTER_TOO_LONG_TYPE } from '../../activities/modelCall';
import type { CallModelInput } from '../../shared/contract';
import { configFromEnv, createOpenAICompatibleProvider, type OpenAICompatibleConfig } from '../../activities/providers/openaiCompatible';
import { MAX_PLAUSIBLE_RETRY_AFTER_MS, MODEL_ERROR_BODY_MAX_BYTES, MODEL_RESPONSE_MAX_BYTES, parseRetryAfter } from '../../activities/providers/http';
import { ScriptExhaustedError } from '../../activities/providers/scriptExhausted';
import { createScriptedProvider, scriptedText, scriptedToolCalls } from '../support/scriptedProvider';
import { ModelCallError, type ModelRequest, type ModelResponse, type ToolSpec } from '../../shared/contract/model';
import { modelCallErrorOf } from '../support/modelErrors';

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

const ok =
  (content: string): Reply =>
  (res) =>
    json(res, 200, completion({ content }));
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
  return createOpenAICompatibleProvider({ baseUrl, apiKey: 'sk-test', ...overrides });
}

const simple: ModelRequest = { model: 'test-model', messages: [{ role: 'user', content: 'hi' }], tools: [] };

const failure = modelCallErrorOf;

describe('OpenAI-compatible provider against a local chat-completions server', () => {
  test('happy path: text content, finish reason, usage; POST to {baseUrl}/chat/completions', async () => {
    replies = [(res) => json(res, 200, completion({ content: 'hello there' }, 'stop', { prompt_tokens: 7, completion_tokens: 3 }))];
    const p = provider();
    const response = await p.complete({ ...simple, temperature: 0.2, maxTokens: 64 });
    expect(response).toEqual({
      message: { content: 'hello there', toolCalls: [] },
      finishReason: 'stop',
      usage: { promptTokens: 7, completionTokens: 3, cacheReadTokens: 0, reasoningTokens: 0 },
    });
    expect(received).toHaveLength(1);
    expect(received[0]?.method).toBe('POST');
    expect(received[0]?.url).toBe('/v1/chat/completions');
    expect(received[0]?.headers['content-type']).toBe('application/json');
    // no tools → no `tools` key (OpenAI rejects an empty array)
    expect(received[0]?.body).toEqual({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, max_tokens: 64 });
  });

  test('config model is used when the request has none; no Authorization without apiKey', async () => {
    replies = [ok('x')];
    const p = provider({ apiKey: undefined, model: 'fallback-model' });
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
    const p = provider();
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

  test.each([429, 500, 502, 503, 504, 408])('%i: exactly one HTTP request, thrown retryable for the activity to retry', async (status) => {
    fallback = (res) => json(res, status, { error: { message: `failing with ${status}` } });
    const error = await failure(provider().complete(simple));
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(status);
    expect(error.kind).toBe(status === 429 ? 'rate_limited' : status === 408 ? 'timeout' : 'server_error');
    expect(error.message).toContain(`failing with ${status}`);
    expect(error.retryAfterMs).toBeUndefined();
    expect(received).toHaveLength(1);
    // A second call is a second request, never more: the retry layer is Temporal's.
    await failure(provider().complete(simple));
    expect(received).toHaveLength(2);
  });

  test('429 with retry-after: 1 → rate_limited with retryAfterMs 1000, after one request', async () => {
    replies = [(res) => json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '1' }), ok('never fetched')];
    const error = await failure(provider().complete(simple));
    expect(error).toMatchObject({ kind: 'rate_limited', retryable: true, status: 429, retryAfterMs: 1000 });
    expect(error.message).toContain('slow down');
    expect(received).toHaveLength(1);
  });

  test('429 with retry-after-ms takes precedence', async () => {
    replies = [(res) => json(res, 429, { error: { message: 'slow down' } }, { 'retry-after-ms': '250', 'retry-after': '9' })];
    const error = await failure(provider().complete(simple));
    expect(error.retryAfterMs).toBe(250);
  });

  test('a long retry-after is reported as asked (the activity caps it), after one request', async () => {
    fallback = (res) => json(res, 429, { error: { message: 'daily limit' } }, { 'retry-after': '3600' });
    const error = await failure(provider().complete(simple));
    expect(error).toMatchObject({ kind: 'rate_limited', retryable: true, retryAfterMs: 3_600_000 });
    expect(received).toHaveLength(1);
  });

  test('503 with retry-after carries retryAfterMs; garbage and negative values are ignored', async () => {
    replies = [
      (res) => json(res, 503, { error: { message: 'overloaded' } }, { 'retry-after': '7' }),
      (res) => json(res, 503, { error: { message: 'overloaded' } }, { 'retry-after': '-5' }),
      (res) => json(res, 429, { error: { message: 'slow down' } }, { 'retry-after-ms': 'NaN', 'retry-after': 'soon' }),
    ];
    await expect(failure(provider().complete(simple))).resolves.toMatchObject({ kind: 'server_error', retryAfterMs: 7000 });
    const negative = await failure(provider().complete(simple));
    expect(negative.kind).toBe('server_error');
    expect(negative.retryAfterMs).toBeUndefined();
    const garbage = await failure(provider().complete(simple));
    expect(garbage.kind).toBe('rate_limited');
    expect(garbage.retryAfterMs).toBeUndefined();
    expect(received).toHaveLength(3);
  });

  test('500 with a text body → server_error (retryable) with the server text, one request', async () => {
    fallback = (res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('upstream exploded');
    };
    const error = await failure(provider().complete(simple));
    expect(error.kind).toBe('server_error');
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(500);
    expect(error.message).toContain('upstream exploded');
    expect(received).toHaveLength(1);
  });

  test('connection refused → server_error (retryable), naming MODEL_BASE_URL', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(provider({ baseUrl: `http://127.0.0.1:${port}/v1` }).complete(simple));
    expect(error.kind).toBe('server_error');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('MODEL_BASE_URL');
  });

  test('a connection dropped mid-request → server_error (retryable) after exactly one request', async () => {
    fallback = (res) => res.socket?.destroy();
    const error = await failure(provider().complete(simple));
    expect(error.kind).toBe('server_error');
    expect(error.retryable).toBe(true);
    expect(received).toHaveLength(1);
  });

  test('a server that never answers → timeout (retryable), one request', async () => {
    fallback = hang;
    const started = Date.now();
    const error = await failure(provider({ timeoutMs: 200 }).complete(simple));
    const elapsed = Date.now() - started;
    expect(error.kind).toBe('timeout');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('MODEL_TIMEOUT_MS');
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3000);
    expect(received).toHaveLength(1);
  });

  test('the timeout covers reading the body: a body that stalls halfway → timeout', async () => {
    fallback = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":[');
    };
    const started = Date.now();
    const error = await failure(provider({ timeoutMs: 300 }).complete(simple));
    expect(error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  test('external AbortSignal aborts an in-flight call quickly with an AbortError', async () => {
    fallback = hang;
    const p = provider({ timeoutMs: 60_000 });
    const controller = new AbortController();
    const started = Date.now();
    const call = p.complete(simple, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await expect(call).rejects.not.toBeInstanceOf(ModelCallError);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(received).toHaveLength(1);
  });

  test('external AbortSignal while the body is being read → AbortError, promptly', async () => {
    fallback = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":[');
    };
    const controller = new AbortController();
    const call = provider({ timeoutMs: 60_000 }).complete(simple, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('an already-aborted signal makes no request', async () => {
    const p = provider();
    const controller = new AbortController();
    controller.abort();
    await expect(p.complete(simple, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).toHaveLength(0);
  });

  test('malformed tool-call JSON is returned raw, not thrown; a missing call id is synthesized', async () => {
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
                { type: 'function', function: { name: 'list', arguments: '{"dir":"."}' } },
              ],
            },
            'tool_calls',
          ),
        ),
    ];
    const p = provider();
    const response = await p.complete(simple);
    expect(response.message.toolCalls[0]).toEqual({ id: 'call_bad', name: 'write_file', argumentsJson: '{"path": "a.txt", "content": ' });
    expect(response.message.toolCalls[1]).toMatchObject({ name: 'list', argumentsJson: '{"dir":"."}' });
    expect(response.message.toolCalls[1]?.id).toMatch(/\S/);
  });

  test('tool-call arguments sent as an object, not a JSON string (off the API) → malformed_response naming the field, shortly', async () => {
    const padding = 'x'.repeat(100_000);
    replies = [
      (res) =>
        json(
          res,
          200,
          completion({ content: padding, tool_calls: [{ id: 'c', type: 'function', function: { name: 'list', arguments: { dir: '.' } } }] }, 'tool_calls'),
        ),
    ];
    const error = await failure(provider().complete(simple));
    expect(error).toMatchObject({ kind: 'malformed_response', retryable: false });
    expect(error.message).toContain('choices.0.message.tool_calls.0.function.arguments');
    // The SDK's own message quotes the whole body; the classified one does not.
    expect(error.message.length).toBeLessThan(1_000);
  });

  test('non-JSON body → malformed_response (not retryable)', async () => {
    replies = [
      (res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>welcome to nginx</html>');
      },
    ];
    const p = provider();
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('malformed_response');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('not JSON');
    expect(received).toHaveLength(1);
  });

  test('JSON without choices → malformed_response', async () => {
    replies = [(res) => json(res, 200, { choices: [] })];
    const p = provider();
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('malformed_response');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('choices');
  });

  test('401 → auth, not retried, with the server message and what to check', async () => {
    fallback = (res) => json(res, 401, { error: { message: 'Incorrect API key provided: sk-te***', type: 'invalid_request_error' } });
    const p = provider();
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('auth');
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(401);
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).toContain('check MODEL_API_KEY');
    expect(received).toHaveLength(1);
  });

  test.each([400, 404, 422])('%i → bad_request, not retried, with the server message', async (status) => {
    fallback = (res) => json(res, status, { error: { message: `problem ${status}` } });
    const p = provider();
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('bad_request');
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(status);
    expect(error.message).toContain(`problem ${status}`);
    expect(error.message).toContain('MODEL_NAME');
    expect(received).toHaveLength(1);
  });
});

/** What an endless reply wrote, and when the client went away. */
interface Endless {
  written: number;
  closed: Promise<void>;
}

/** Writes `unit` forever (respecting backpressure) after an optional prefix, until the client goes away. */
function endlessReply(status: number, unit: string, prefix = ''): { reply: Reply; stream: Endless } {
  let resolveClosed: () => void = () => undefined;
  const stream: Endless = { written: 0, closed: new Promise<void>((resolve) => (resolveClosed = resolve)) };
  const chunk = Buffer.from(unit.repeat(Math.ceil((64 * 1024) / unit.length)));
  const reply: Reply = (res) => {
    let open = true;
    res.on('close', () => {
      open = false;
      resolveClosed();
    });
    res.writeHead(status, { 'content-type': 'application/json' });
    res.write(prefix);
    const pump = (): void => {
      while (open) {
        stream.written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  };
  return { reply, stream };
}

/** fetch whose response body hands bytes over only on demand, counting what the provider pulled. */
function countingFetch(counter: { pulled: number }): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const source = response.body;
    if (!source) return response;
    const reader: ReadableStreamDefaultReader<Uint8Array> = source.getReader();
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else {
            counter.pulled += value.byteLength;
            controller.enqueue(value);
          }
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

describe('response bodies are read with a byte cap', () => {
  test('the caps are 4 MiB for a completion and 64 KiB for an error body', () => {
    expect(MODEL_RESPONSE_MAX_BYTES).toBe(4 * 1024 * 1024);
    expect(MODEL_ERROR_BODY_MAX_BYTES).toBe(64 * 1024);
  });

  test('an endless 200 body is cut off at the cap: the request is aborted, malformed_response (not retryable) names the cap', async () => {
    // Valid JSON so far ('{"choices":[' then whitespace forever): only the size is wrong.
    const { reply, stream } = endlessReply(200, ' ', '{"choices":[');
    fallback = reply;
    const counter = { pulled: 0 };
    const started = Date.now();
    const error = await failure(provider({ fetch: countingFetch(counter) }).complete(simple));
    expect(error.kind).toBe('malformed_response');
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(200);
    expect(error.message).toContain('4 MiB (4194304 bytes) cap');
    // The server sees the connection go away, and stops writing.
    await stream.closed;
    expect(Date.now() - started).toBeLessThan(10_000);
    // The provider pulled the cap and at most one more chunk, never the endless rest.
    expect(counter.pulled).toBeGreaterThan(MODEL_RESPONSE_MAX_BYTES);
    expect(counter.pulled).toBeLessThanOrEqual(MODEL_RESPONSE_MAX_BYTES + 256 * 1024);
    const writtenAtClose = stream.written;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stream.written).toBe(writtenAtClose);
    expect(received).toHaveLength(1);
  });

  test('a declared content-length over the cap is refused before reading any of the body', async () => {
    let closed: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    fallback = (res) => {
      res.on('close', () => closed());
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MODEL_RESPONSE_MAX_BYTES + 1) });
      res.write('{"choices":[');
      // ...and the rest never comes: the provider must not wait for it.
    };
    const counter = { pulled: 0 };
    const started = Date.now();
    const error = await failure(provider({ fetch: countingFetch(counter), timeoutMs: 30_000 }).complete(simple));
    expect(error.kind).toBe('malformed_response');
    expect(error.message).toContain('4 MiB');
    expect(counter.pulled).toBe(0);
    await gone;
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('a completion of exactly the cap is accepted; one byte more is refused', async () => {
    const padded = (bytes: number): Buffer => {
      const text = JSON.stringify(completion({ content: 'big but fine' }));
      return Buffer.from(text + ' '.repeat(bytes - Buffer.byteLength(text)));
    };
    replies = [
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(padded(MODEL_RESPONSE_MAX_BYTES));
      },
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(padded(MODEL_RESPONSE_MAX_BYTES + 1));
      },
    ];
    const p = provider();
    await expect(p.complete(simple)).resolves.toMatchObject({ message: { content: 'big but fine' } });
    const error = await failure(p.complete(simple));
    expect(error.kind).toBe('malformed_response');
    expect(error.message).toContain('4 MiB');
  });

  test('an endless error body is read only up to 64 KiB, and the message holds a short, marked excerpt', async () => {
    const { reply, stream } = endlessReply(500, 'upstream exploded; ');
    fallback = reply;
    const counter = { pulled: 0 };
    const error = await failure(provider({ fetch: countingFetch(counter) }).complete(simple));
    expect(error.kind).toBe('server_error');
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(500);
    expect(error.message).toContain('upstream exploded; upstream exploded;');
    expect(error.message).toContain('error body over 64 KiB (65536 bytes): the rest was not read');
    expect(error.message.length).toBeLessThan(1_500);
    await stream.closed;
    expect(counter.pulled).toBeGreaterThan(MODEL_ERROR_BODY_MAX_BYTES);
    expect(counter.pulled).toBeLessThanOrEqual(MODEL_ERROR_BODY_MAX_BYTES + 256 * 1024);
    expect(received).toHaveLength(1);
  });

  test('a long JSON error body under the cap still yields its error.message, shortened', async () => {
    fallback = (res) => json(res, 400, { error: { message: `bad tool schema: ${'x'.repeat(20_000)}` } });
    const error = await failure(provider().complete(simple));
    expect(error.kind).toBe('bad_request');
    expect(error.message).toContain('bad tool schema: xxx');
    expect(error.message).not.toContain('the rest was not read');
    expect(error.message.length).toBeLessThan(1_500);
  });
});

describe('callModel over the OpenAI-compatible provider (MockActivityEnvironment)', () => {
  const toolsFor = (): ToolSpec[] => [];
  const input: CallModelInput = { model: 'test-model', toolset: 'any', messages: [{ role: 'user', content: 'hi' }] };
  const run = (): Promise<unknown> =>
    new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') })
      .run(createModelActivities({ provider: provider(), toolsFor }).callModel, input)
      .then(
        () => {
          throw new Error('expected the activity to fail');
        },
        (error: unknown) => error,
      );

  test('429 with a retry-after under the cap: retryable, nextRetryDelay = retry-after, one request', async () => {
    fallback = (res) => json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '30' });
    const failure = await run();
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ModelRateLimited', nonRetryable: false, nextRetryDelay: 30_000 });
    expect(received).toHaveLength(1);
  });

  test('429 with a retry-after over the 5-minute cap: non-retryable ModelRetryAfterTooLong saying what to do', async () => {
    fallback = (res) => json(res, 429, { error: { message: 'daily quota exhausted' } }, { 'retry-after': '7200' });
    const failure = (await run()) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(MODEL_RETRY_AFTER_TOO_LONG_TYPE);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.message).toContain('daily quota exhausted');
    expect(failure.message).toContain('asked to wait 7200000 ms (about 2 h)');
    expect(failure.message).toMatch(/prompt again .*raise the provider's quota/);
    expect(failure.details).toEqual([{ kind: 'rate_limited', status: 429, retryAfterMs: 7_200_000, capMs: MODEL_RETRY_AFTER_CAP_MS }]);
    expect(received).toHaveLength(1);
  });

  test('503 with an over-cap retry-after fails the same way; an absurd one is ignored (plain retryable 503)', async () => {
    replies = [
      (res) => json(res, 503, { error: { message: 'maintenance' } }, { 'retry-after': '86400' }),
      (res) => json(res, 503, { error: { message: 'maintenance' } }, { 'retry-after': '99999999999' }),
    ];
    await expect(run()).resolves.toMatchObject({ type: MODEL_RETRY_AFTER_TOO_LONG_TYPE, nonRetryable: true });
    const absurd = (await run()) as ApplicationFailure;
    expect(absurd).toMatchObject({ type: 'ModelServerError', nonRetryable: false });
    expect(absurd.nextRetryDelay).toBeUndefined();
  });

  test('an endless body: non-retryable ModelMalformedResponse naming the cap', async () => {
    fallback = endlessReply(200, ' ', '{"choices":[').reply;
    const failure = (await run()) as ApplicationFailure;
    expect(failure).toMatchObject({ type: 'ModelMalformedResponse', nonRetryable: true });
    expect(failure.message).toContain('4 MiB (4194304 bytes) cap');
  });
});

describe('parseRetryAfter', () => {
  const h = (entries: Record<string, string>) => new Headers(entries);
  test('negative, NaN, infinite, exponent, signed and implausibly long values are ignored (treated as absent)', () => {
    expect(parseRetryAfter(h({ 'retry-after': '-5' }))).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': '+5' }))).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': 'NaN' }))).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': 'Infinity' }))).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': '1e3' }))).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after-ms': '-250' }))).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after-ms': 'Infinity' }))).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': '99999999999999999999' }))).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': String(MAX_PLAUSIBLE_RETRY_AFTER_MS / 1000 + 1) }))).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after': String(MAX_PLAUSIBLE_RETRY_AFTER_MS / 1000) }))).toBe(MAX_PLAUSIBLE_RETRY_AFTER_MS);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(h({ 'retry-after': 'Fri, 01 Jan 2100 00:00:00 GMT' }), now)).toBeUndefined();
    // An unusable retry-after-ms falls back to retry-after.
    expect(parseRetryAfter(h({ 'retry-after-ms': '-1', 'retry-after': '2' }))).toBe(2000);
    expect(parseRetryAfter(h({ 'retry-after-ms': 'soon', 'retry-after': '-2' }))).toBeUndefined();
  });

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
