/**
 * Prompt caching, against local servers that speak each API. An Anthropic multi-step turn, driven by
 * the agent loop itself (prompt assembly and size fitting included), sends every request with
 * cache_control breakpoints on the system message and on the last message, and each request's
 * prefix (tools, system, earlier messages, breakpoints aside) is byte for byte the previous request:
 * the bytes sent are asserted, not the server's answer. The cache reads and writes the servers
 * report come back in the usage, for Anthropic, OpenAI (both APIs) and DeepSeek.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { namedProvider } from '../../activities/providers/router';
import { runAgentTurn } from '../../shared/agent/loop';
import type { ConversationEntry } from '../../shared/contract';
import type { ChatMessage, ModelRequest } from '../../shared/contract/model';

let server: http.Server;
let base: string;
let bodies: string[] = [];
let reply: (index: number) => unknown = () => ({});

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply(bodies.length - 1)));
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
  bodies = [];
});

const TOOLS = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }];

/** An Anthropic message: a tool call for the first two requests, then the answer; usage as a caching server reports it. */
function anthropicReply(index: number): unknown {
  const content =
    index < 2 ? [{ type: 'tool_use', id: `call_${index}`, name: 'read_file', input: { path: `f${index}.txt` } }] : [{ type: 'text', text: 'all read' }];
  return {
    id: `msg_${index}`,
    type: 'message',
    role: 'assistant',
    model: 'm',
    content,
    stop_reason: index < 2 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    // The first request writes the prefix to the cache; each later one reads what the one before wrote.
    usage: {
      input_tokens: 7,
      cache_creation_input_tokens: index === 0 ? 1_000 : 40,
      cache_read_input_tokens: index === 0 ? 0 : 1_000 + 40 * (index - 1),
      output_tokens: 5,
    },
  };
}

type Json = Record<string, unknown>;
const withoutBreakpoints = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === 'cache_control' ? undefined : v)));
const breakpoints = (body: string): number => body.split('"cache_control"').length - 1;

describe('Anthropic: cache breakpoints on an unchanged prefix', () => {
  test('every request of a multi-step turn marks the system message and the last message, and repeats the previous request as its prefix', async () => {
    reply = anthropicReply;
    const provider = namedProvider('anthropic', { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: `${base}/v1` });
    const conversation: ConversationEntry[] = [{ role: 'user', content: 'read two files, then answer', turn: 1, from: 'lead', messageId: 'm-1' }];
    const usages: unknown[] = [];
    const result = await runAgentTurn({
      conversation: () => conversation,
      append: (entry) => void conversation.push(entry),
      turn: 1,
      teamId: 't',
      system: 'You are a careful teammate.',
      opIdPrefix: 't/turn-1',
      callModel: async (messages: ChatMessage[]) => {
        const response = await provider.complete({ model: 'claude-test', messages, tools: TOOLS } satisfies ModelRequest);
        usages.push(response.usage);
        return response;
      },
      dispatch: (call) => Promise.resolve({ ok: true, text: `contents of ${JSON.parse(call.argumentsJson).path as string}` }),
    });
    expect(result.reply).toBe('all read');
    expect(bodies).toHaveLength(3);

    const sent = bodies.map((b) => JSON.parse(b) as Json);
    for (const [index, body] of sent.entries()) {
      expect([index, breakpoints(bodies[index]!)]).toEqual([index, 2]);
      const system = body.system as Json[];
      expect(system.at(-1)).toMatchObject({ type: 'text', cache_control: { type: 'ephemeral' } });
      const messages = body.messages as { content: Json[] }[];
      expect(messages.at(-1)?.content.at(-1)).toMatchObject({ cache_control: { type: 'ephemeral' } });
    }
    // The prefix: each request's tools, system and messages, breakpoints aside, start the next request unchanged.
    for (let k = 0; k + 1 < sent.length; k++) {
      const [before, after] = [withoutBreakpoints(sent[k]) as Json, withoutBreakpoints(sent[k + 1]) as Json];
      expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
      expect(JSON.stringify(after.system)).toBe(JSON.stringify(before.system));
      const [was, is] = [before.messages as unknown[], after.messages as unknown[]];
      expect(is.length).toBeGreaterThan(was.length);
      // Anthropic merges a tool result into the next user turn: compare all but the previous last message whole, and that one as a prefix.
      expect(JSON.stringify(is.slice(0, was.length - 1))).toBe(JSON.stringify(was.slice(0, -1)));
      const [lastWas, sameIs] = [was.at(-1) as { content: unknown[] }, is[was.length - 1] as { content: unknown[] }];
      expect(JSON.stringify(sameIs.content.slice(0, lastWas.content.length))).toBe(JSON.stringify(lastWas.content));
    }
    // The usage carries what the server said it read from and wrote to the cache.
    expect(usages).toEqual([
      { promptTokens: 1_007, completionTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 1_000 },
      { promptTokens: 1_047, completionTokens: 5, cacheReadTokens: 1_000, cacheWriteTokens: 40 },
      { promptTokens: 1_087, completionTokens: 5, cacheReadTokens: 1_040, cacheWriteTokens: 40 },
    ]);
  });

  test('no other API gets breakpoints: an OpenAI chat request carries no cache_control', async () => {
    reply = () => ({
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
    });
    await namedProvider('openai-chat', { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${base}/v1` }).complete({
      model: 'm',
      messages: [
        { role: 'system', content: 'be terse' },
        { role: 'user', content: 'hi' },
      ],
      tools: TOOLS,
    });
    expect(bodies).toHaveLength(1);
    expect(breakpoints(bodies[0]!)).toBe(0);
  });
});

describe('automatic caches report their hits in the usage', () => {
  const simple: ModelRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [] };
  const chat = (usage: unknown) => ({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
    usage,
  });

  test('OpenAI chat completions: prompt_tokens_details.cached_tokens, and reasoning tokens', async () => {
    reply = () =>
      chat({
        prompt_tokens: 2_000,
        completion_tokens: 300,
        total_tokens: 2_300,
        prompt_tokens_details: { cached_tokens: 1_536 },
        completion_tokens_details: { reasoning_tokens: 200 },
      });
    const response = await namedProvider('openai-chat', { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${base}/v1` }).complete(simple);
    expect(response.usage).toEqual({ promptTokens: 2_000, completionTokens: 300, cacheReadTokens: 1_536, reasoningTokens: 200 });
  });

  test('OpenAI Responses: input_tokens_details.cached_tokens', async () => {
    reply = () => ({
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      model: 'm',
      status: 'completed',
      output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hi', annotations: [] }] }],
      usage: { input_tokens: 2_000, output_tokens: 30, input_tokens_details: { cached_tokens: 1_024 }, output_tokens_details: { reasoning_tokens: 0 } },
    });
    const response = await namedProvider('openai', { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${base}/v1` }).complete(simple);
    expect(response.usage).toMatchObject({ promptTokens: 2_000, completionTokens: 30, cacheReadTokens: 1_024 });
  });

  test('DeepSeek: its own prompt_cache_hit_tokens, which the chat-completions provider does not read, become the cache reads', async () => {
    reply = () => chat({ prompt_tokens: 900, completion_tokens: 20, total_tokens: 920, prompt_cache_hit_tokens: 640, prompt_cache_miss_tokens: 260 });
    const response = await namedProvider('deepseek', { DEEPSEEK_API_KEY: 'sk-test', DEEPSEEK_BASE_URL: `${base}/v1` }).complete(simple);
    expect(response.usage).toMatchObject({ promptTokens: 900, completionTokens: 20, cacheReadTokens: 640 });
  });
});
