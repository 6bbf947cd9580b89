/**
 * Each provider API the worker speaks through the AI SDK (OpenAI Responses and Chat Completions,
 * Anthropic Messages, Gemini generateContent), against a local HTTP server that speaks it: a
 * tool-call round trip, the failures with their retry behaviour (429 with retry-after, 401, 400, 5xx,
 * a malformed body), exactly one request per call, and cancellation aborting the request.
 * No real endpoint can be reached here: these servers stand in for them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { namedProvider, type NamedProvider } from '../../activities/providers/router';
import { ModelCallError, type ModelRequest } from '../../shared/contract/model';
import { modelCallErrorOf } from '../support/modelErrors';

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

type Reply = (res: http.ServerResponse, req: Received) => void;

let server: http.Server;
let base: string;
let received: Received[] = [];
let reply: Reply = (res) => res.end();
/** Requests whose connection closed before an answer (the client aborted). */
let abandoned = 0;

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { url: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> };
      received.push(entry);
      res.on('close', () => {
        if (!res.writableEnded) abandoned += 1;
      });
      reply(res, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
  abandoned = 0;
});

interface Dialect {
  provider: NamedProvider;
  keyVariable: string;
  baseVariable: string;
  /** The path a call to model `m` is POSTed to. */
  path: string;
  /** A reply that calls read_file({"path":"b.txt"}) as call `call_2`. */
  toolCall: unknown;
  /** The dialect's error body carrying `message`. */
  error(status: number, message: string): unknown;
  /** The tool result for call_1 ("contents of a") as this API carries it in the request, and the tool as declared. */
  sentToolResult(body: Record<string, unknown>): unknown;
  sentToolName(body: Record<string, unknown>): unknown;
}

const DIALECTS: Dialect[] = [
  {
    provider: 'openai',
    keyVariable: 'OPENAI_API_KEY',
    baseVariable: 'OPENAI_BASE_URL',
    path: '/v1/responses',
    toolCall: {
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      model: 'm',
      status: 'completed',
      output: [{ type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'read_file', arguments: '{"path":"b.txt"}', status: 'completed' }],
      usage: { input_tokens: 10, output_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    },
    error: (status, message) => ({ error: { message, type: 'invalid_request_error', code: String(status) } }),
    sentToolResult: (body) => (body.input as Array<{ type?: string }>).find((item) => item.type === 'function_call_output'),
    sentToolName: (body) => (body.tools as Array<{ name: string }>)[0]?.name,
  },
  {
    provider: 'openai-chat',
    keyVariable: 'OPENAI_API_KEY',
    baseVariable: 'OPENAI_BASE_URL',
    path: '/v1/chat/completions',
    toolCall: {
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.txt"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    },
    error: (_status, message) => ({ error: { message } }),
    sentToolResult: (body) => (body.messages as Array<{ role: string }>).find((m) => m.role === 'tool'),
    sentToolName: (body) => (body.tools as Array<{ function: { name: string } }>)[0]?.function.name,
  },
  {
    provider: 'anthropic',
    keyVariable: 'ANTHROPIC_API_KEY',
    baseVariable: 'ANTHROPIC_BASE_URL',
    path: '/v1/messages',
    toolCall: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'tool_use', id: 'call_2', name: 'read_file', input: { path: 'b.txt' } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 3 },
    },
    error: (_status, message) => ({ type: 'error', error: { type: 'api_error', message } }),
    sentToolResult: (body) =>
      (body.messages as Array<{ role: string; content: Array<{ type: string }> }>).flatMap((m) => m.content).find((part) => part.type === 'tool_result'),
    sentToolName: (body) => (body.tools as Array<{ name: string }>)[0]?.name,
  },
  {
    provider: 'google',
    keyVariable: 'GOOGLE_GENERATIVE_AI_API_KEY',
    baseVariable: 'GOOGLE_GENERATIVE_AI_BASE_URL',
    path: '/v1beta/models/m:generateContent',
    toolCall: {
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { path: 'b.txt' } } }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 },
    },
    error: (status, message) => ({ error: { code: status, message, status: 'FAILED' } }),
    sentToolResult: (body) =>
      (body.contents as Array<{ parts: Array<{ functionResponse?: unknown }> }>).flatMap((c) => c.parts).find((part) => part.functionResponse !== undefined),
    sentToolName: (body) => (body.tools as Array<{ functionDeclarations: Array<{ name: string }> }>)[0]?.functionDeclarations[0]?.name,
  },
];

const roundTrip: ModelRequest = {
  model: 'm',
  tools: [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
  messages: [
    { role: 'system', content: 'be terse' },
    { role: 'user', content: 'read a.txt' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'read_file', argumentsJson: '{"path":"a.txt"}' }] },
    { role: 'tool', toolCallId: 'call_1', content: 'contents of a' },
  ],
};
const simple: ModelRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [] };

const failure = modelCallErrorOf;

describe.each(DIALECTS)('$provider against a local server speaking its API', (dialect) => {
  const version = dialect.provider === 'google' ? 'v1beta' : 'v1';
  const env = (): Record<string, string> => ({ [dialect.keyVariable]: 'sk-test', [dialect.baseVariable]: `${base}/${version}` });
  const provider = () => namedProvider(dialect.provider, env());

  test('a tool-call round trip: the tool result goes back in the API shape, the next call comes back parsed', async () => {
    reply = (res) => send(res, 200, dialect.toolCall);
    const response = await provider().complete(roundTrip);
    expect(response.message.toolCalls).toHaveLength(1);
    expect(response.message.toolCalls[0]).toMatchObject({ name: 'read_file' });
    expect(JSON.parse(response.message.toolCalls[0]!.argumentsJson)).toEqual({ path: 'b.txt' });
    // The kinds a dialect reports come along (0 here); test/host/promptCache.test.ts checks them with real figures.
    expect(response.usage).toMatchObject({ promptTokens: 10, completionTokens: 3 });
    expect(received).toHaveLength(1);
    expect(received[0]!.url.split('?')[0]).toBe(dialect.path);
    expect(dialect.sentToolName(received[0]!.body)).toBe('read_file');
    expect(JSON.stringify(dialect.sentToolResult(received[0]!.body))).toContain('contents of a');
  });

  test('429 with retry-after: rate_limited, retryable, retryAfterMs, after exactly one request', async () => {
    reply = (res) => send(res, 429, dialect.error(429, 'slow down'), { 'retry-after': '2' });
    const error = await failure(provider().complete(simple));
    expect(error).toMatchObject({ kind: 'rate_limited', retryable: true, status: 429, retryAfterMs: 2000 });
    expect(error.message).toContain('slow down');
    expect(received).toHaveLength(1);
  });

  test('401: auth, not retryable, naming the key variable', async () => {
    reply = (res) => send(res, 401, dialect.error(401, 'invalid key'));
    const error = await failure(provider().complete(simple));
    expect(error).toMatchObject({ kind: 'auth', retryable: false, status: 401 });
    expect(error.message).toContain(dialect.keyVariable);
    expect(error.message).not.toContain('sk-test');
    expect(received).toHaveLength(1);
  });

  test('400: bad_request, not retryable, with the server message', async () => {
    reply = (res) => send(res, 400, dialect.error(400, 'tools[0] is invalid'));
    const error = await failure(provider().complete(simple));
    expect(error).toMatchObject({ kind: 'bad_request', retryable: false, status: 400 });
    expect(error.message).toContain('tools[0] is invalid');
    expect(received).toHaveLength(1);
  });

  test("an error body is cut only by its size: a server's own truncation mark is not believed", async () => {
    reply = (res) => send(res, 400, dialect.error(400, 'short'), { 'x-agent-teams-body-truncated': '1' });
    const error = await failure(provider().complete(simple));
    expect(error.message).toContain('short');
    expect(error.message).not.toContain('the rest was not read');
  });

  test('503: server_error, retryable, after exactly one request', async () => {
    reply = (res) => send(res, 503, dialect.error(503, 'overloaded'));
    const error = await failure(provider().complete(simple));
    expect(error).toMatchObject({ kind: 'server_error', retryable: true, status: 503 });
    expect(received).toHaveLength(1);
  });

  test('a body that is not JSON: malformed_response, not retryable', async () => {
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>welcome to nginx</html>');
    };
    const error = await failure(provider().complete(simple));
    expect(error).toMatchObject({ kind: 'malformed_response', retryable: false });
    expect(error.message).toContain('not JSON');
    expect(received).toHaveLength(1);
  });

  test('cancellation aborts the request: an AbortError at once, and the server sees the connection go', async () => {
    reply = () => undefined; // never answers
    const controller = new AbortController();
    const call = provider().complete(simple, { signal: controller.signal });
    while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const started = Date.now();
    controller.abort(new Error('activity cancelled'));
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(1_000);
    while (abandoned === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(abandoned).toBe(1);
  });

  test('without its key: refused before any request, auth, naming the variable', () => {
    expect(() => namedProvider(dialect.provider, { [dialect.baseVariable]: `${base}/v1` })).toThrow(ModelCallError);
    expect(() => namedProvider(dialect.provider, { [dialect.baseVariable]: `${base}/v1` })).toThrow(dialect.keyVariable);
    expect(received).toHaveLength(0);
  });
});
