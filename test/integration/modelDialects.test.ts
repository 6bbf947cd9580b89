/**
 * A Lead agent on each provider API the worker speaks through the AI SDK (OpenAI Responses and Chat
 * Completions, Anthropic Messages, Gemini generateContent), named `provider:model`, against a local
 * HTTP server that speaks that API, on the real Temporal server: the tool-call round trip to the
 * answer, a 429 retried by Temporal's activity retry, a 401 not retried, and disposal cancelling a
 * model call in flight, which aborts its HTTP request. No real endpoint can be reached here: these
 * servers stand in for them.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { providerFromEnv } from '../../activities/providers/select';
import { LEAD_TURN_FAILED, TeamClient } from '../../client/teamClient';
import { connectClient, startWorker, uniqueId, type RunningWorker } from '../support/temporal';
import { eventually, rejectionOf } from '../support/teams';

type Api = 'openai' | 'openai-chat' | 'anthropic' | 'google';
type Body = Record<string, unknown> & { model?: string };

interface Speaker {
  /** Its base URL under the server's, and the path a call is POSTed to under that. */
  prefix: string;
  path: RegExp;
  keyVariable: string;
  baseVariable: string;
  /** How many tool results the request carries back. */
  toolResults(body: Body): number;
  toolCall(id: string, name: string, args: Record<string, unknown>): unknown;
  answer(text: string): unknown;
  error(status: number, message: string): unknown;
}

const list = (value: unknown): Array<Record<string, unknown>> => (Array.isArray(value) ? (value as Array<Record<string, unknown>>) : []);

const SPEAKERS: Record<Api, Speaker> = {
  openai: {
    prefix: '/openai/v1',
    path: /^\/responses$/,
    keyVariable: 'OPENAI_API_KEY',
    baseVariable: 'OPENAI_BASE_URL',
    toolResults: (body) => list(body.input).filter((item) => item.type === 'function_call_output').length,
    toolCall: (id, name, args) => ({
      id: 'resp',
      created_at: 1,
      model: 'm',
      status: 'completed',
      output: [{ type: 'function_call', id: `fc_${id}`, call_id: id, name, arguments: JSON.stringify(args), status: 'completed' }],
      usage: { input_tokens: 10, output_tokens: 3 },
    }),
    answer: (text) => ({
      id: 'resp',
      created_at: 1,
      model: 'm',
      status: 'completed',
      output: [{ type: 'message', id: 'msg', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
      usage: { input_tokens: 10, output_tokens: 3 },
    }),
    error: (_status, message) => ({ error: { message, type: 'error' } }),
  },
  'openai-chat': {
    // The same base URL and key as openai: one OpenAI account, two of its APIs.
    prefix: '/openai/v1',
    path: /^\/chat\/completions$/,
    keyVariable: 'OPENAI_API_KEY',
    baseVariable: 'OPENAI_BASE_URL',
    toolResults: (body) => list(body.messages).filter((m) => m.role === 'tool').length,
    toolCall: (id, name, args) => ({
      id: 'c',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
          finish_reason: 'tool_calls',
        },
      ],
    }),
    answer: (text) => ({ id: 'c', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] }),
    error: (_status, message) => ({ error: { message } }),
  },
  anthropic: {
    prefix: '/anthropic/v1',
    path: /^\/messages$/,
    keyVariable: 'ANTHROPIC_API_KEY',
    baseVariable: 'ANTHROPIC_BASE_URL',
    toolResults: (body) =>
      list(body.messages)
        .flatMap((m) => list(m.content))
        .filter((part) => part.type === 'tool_result').length,
    toolCall: (id, name, args) => ({
      id: 'msg',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'tool_use', id, name, input: args }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 3 },
    }),
    answer: (text) => ({
      id: 'msg',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 3 },
    }),
    error: (_status, message) => ({ type: 'error', error: { type: 'api_error', message } }),
  },
  google: {
    prefix: '/google/v1beta',
    path: /^\/models\/[^/:]+:generateContent$/,
    keyVariable: 'GOOGLE_GENERATIVE_AI_API_KEY',
    baseVariable: 'GOOGLE_GENERATIVE_AI_BASE_URL',
    toolResults: (body) =>
      list(body.contents)
        .flatMap((c) => list(c.parts))
        .filter((part) => part.functionResponse !== undefined).length,
    toolCall: (_id, name, args) => ({
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name, args } }] }, finishReason: 'STOP', index: 0 }],
    }),
    answer: (text) => ({ candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }] }),
    error: (status, message) => ({ error: { code: status, message, status: 'FAILED' } }),
  },
};

interface Seen {
  api: Api;
  model: string;
}
const seen: Seen[] = [];
/** Model calls whose connection closed before an answer (aborted by the worker). */
const abandoned: Seen[] = [];
const flaked = new Set<Api>();

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const url = req.url ?? '';
    const path = url.split('?')[0]!;
    const api = (Object.keys(SPEAKERS) as Api[]).find(
      (name) => path.startsWith(`${SPEAKERS[name].prefix}/`) && SPEAKERS[name].path.test(path.slice(SPEAKERS[name].prefix.length)),
    );
    if (!api) return void res.writeHead(404).end();
    const speaker = SPEAKERS[api];
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
    const model = api === 'google' ? (/\/models\/([^:]+):/.exec(url)?.[1] ?? '') : String(body.model);
    const call = { api, model };
    seen.push(call);
    const reply = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    if (model === 'hang') {
      res.on('close', () => (res.writableEnded ? undefined : abandoned.push(call)));
      return;
    }
    if (model === 'deny') return reply(401, speaker.error(401, 'invalid api key'));
    if (model === 'flaky' && !flaked.has(api)) {
      flaked.add(api);
      return reply(429, speaker.error(429, 'slow down'), { 'retry-after-ms': '200' });
    }
    if (speaker.toolResults(body) === 0) return reply(200, speaker.toolCall('call_1', 'create_task', { subject: `from ${api}` }));
    reply(200, speaker.answer(`planned by ${api}`));
  });
});

let client: Client;
let closeClient: () => Promise<void>;
let worker: RunningWorker;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The worker's own selection, as a deployment configures it: a key and a base URL per provider.
  const env: Record<string, string> = {};
  for (const speaker of Object.values(SPEAKERS)) {
    env[speaker.keyVariable] = 'sk-test';
    env[speaker.baseVariable] = `${base}${speaker.prefix}`;
  }
  const selected = providerFromEnv(env);
  expect(selected.description).toContain('anthropic:<model>');
  worker = await startWorker(uniqueId('tq-dialects'), { modelProvider: selected.provider });
  ({ client, close: closeClient } = await connectClient());
});
afterAll(async () => {
  await worker.stop();
  await closeClient();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function startLead(model: string): Promise<TeamClient> {
  return TeamClient.start(client, {
    teamId: uniqueId('dialect-team'),
    taskQueue: worker.taskQueue,
    agent: { prompt: 'Plan the parser work.', profile: 'team', model },
  });
}

describe.each(Object.keys(SPEAKERS) as Api[])('a Lead on %s:<model>', (api) => {
  test('the tool-call round trip to the answer, after a 429 that Temporal retried', async () => {
    const team = await startLead(`${api}:flaky`);
    const view = await team.waitForAnswer({ timeoutMs: 60_000 });
    expect(view.finalAnswer).toBe(`planned by ${api}`);
    expect((await team.view()).tasks.map((t) => t.subject)).toEqual([`from ${api}`]);
    // The 429, the tool call and the answer at least, each with the bare model id.
    expect(flaked.has(api)).toBe(true);
    expect(seen.filter((call) => call.api === api && call.model === 'flaky').length).toBeGreaterThanOrEqual(3);
    const history = await team.handle().fetchHistory();
    const attempts = (history.events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : []));
    expect(attempts[0]).toBe(2);
    await team.dispose();
  });

  test('a 401 is not retried: the turn fails naming the key variable', async () => {
    const team = await startLead(`${api}:deny`);
    const failure = await rejectionOf(team.waitForAnswer({ timeoutMs: 60_000 }));
    expect(failure.type).toBe(LEAD_TURN_FAILED);
    expect(failure.message).toContain(SPEAKERS[api].keyVariable);
    expect(seen.filter((call) => call.api === api && call.model === 'deny')).toHaveLength(1);
    await team.dispose();
  });

  test('disposing the Team cancels the model call in flight: its HTTP request is aborted', async () => {
    const team = await startLead(`${api}:hang`);
    const hanging = (calls: Seen[]) => () => Promise.resolve(calls.filter((call) => call.api === api && call.model === 'hang').length);
    await eventually(hanging(seen), (n) => n === 1, 30_000);
    await team.dispose();
    await eventually(hanging(abandoned), (n) => n === 1, 30_000);
  });
});
