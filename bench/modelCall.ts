/**
 * A model call's overhead through the AI SDK layer (issue 26): one chat-completions call with one
 * tool call in the answer, against a local HTTP server on this machine, through the provider the
 * worker uses (`createOpenAICompatibleProvider`: translation, `doGenerate`, capped body, parsing),
 * against a bare `fetch` of the same request whose body is parsed with `JSON.parse` (the floor).
 * With BENCH_OLD_PROVIDER=<module path> (the hand-written client this layer replaced, taken from
 * git history), a third side runs the old client too. Rounds alternate the sides; the ratios are
 * medians of paired rounds. Needs no Temporal server: `npx ts-node bench/modelCall.ts` runs it
 * alone, `npm run bench` as a row.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAICompatibleProvider } from '../activities/providers/openaiCompatible';
import type { ModelProvider, ModelRequest } from '../shared/contract/model';

const ROUNDS = Number(process.env.BENCH_MODEL_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_MODEL_CALLS ?? 300);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const ANSWER = JSON.stringify({
  id: 'c',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_tasks', arguments: '{}' } }] },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 900, completion_tokens: 12, total_tokens: 912 },
});

/** A request the size of a Lead's early turn: the policy, a prompt, a tool result, and a tool catalog. */
const REQUEST: ModelRequest = {
  model: 'm',
  messages: [
    { role: 'system', content: 'policy '.repeat(300) },
    { role: 'user', content: 'Plan the parser work.' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'call_0', name: 'list_tasks', argumentsJson: '{}' }] },
    { role: 'tool', toolCallId: 'call_0', content: '{"tasks":[]}' },
  ],
  tools: Array.from({ length: 20 }, (_, i) => ({
    name: `tool_${i}`,
    description: 'a tool of the catalog',
    parameters: { type: 'object', properties: { id: { type: 'integer' }, text: { type: 'string' } }, required: ['id'] },
  })),
};

async function perCallMicros(call: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await call();
  return Number(process.hrtime.bigint() - start) / 1e3 / CALLS;
}

export async function benchModelCall(): Promise<string[][]> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(ANSWER);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    const sides: Array<[string, () => Promise<unknown>]> = [];
    const layer = createOpenAICompatibleProvider({ baseUrl, apiKey: 'sk-bench' });
    sides.push(['AI SDK layer', () => layer.complete(REQUEST)]);
    const oldPath = process.env.BENCH_OLD_PROVIDER;
    if (oldPath) {
      const oldModule = (await import(oldPath)) as { createOpenAICompatibleProvider: (config: { baseUrl: string; apiKey: string }) => ModelProvider };
      const old = oldModule.createOpenAICompatibleProvider({ baseUrl, apiKey: 'sk-bench' });
      sides.push(['hand-written client', () => old.complete(REQUEST)]);
    }
    const body = JSON.stringify({ model: 'm', messages: REQUEST.messages, tools: REQUEST.tools });
    sides.push([
      'bare fetch',
      async () => {
        const response = await fetch(`${baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
          body,
        });
        return JSON.parse(await response.text()) as unknown;
      },
    ]);
    for (const [, call] of sides) await perCallMicros(call); // warm
    const times = new Map<string, number[]>(sides.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, call] of round % 2 === 0 ? sides : [...sides].reverse()) times.get(name)!.push(await perCallMicros(call));
    }
    const layerTimes = times.get('AI SDK layer')!;
    const paired = (other: string): number => median(layerTimes.map((t, i) => t / times.get(other)![i]!));
    const rows = [
      [
        'one model call (chat completions, a tool call back) through the AI SDK layer (median µs/call) vs a bare fetch and JSON.parse, local server',
        median(layerTimes).toFixed(0),
        median(times.get('bare fetch')!).toFixed(0),
        paired('bare fetch').toFixed(2),
      ],
    ];
    if (times.has('hand-written client')) {
      rows.push([
        'the same call through the AI SDK layer vs the hand-written client it replaced',
        median(layerTimes).toFixed(0),
        median(times.get('hand-written client')!).toFixed(0),
        paired('hand-written client').toFixed(2),
      ]);
    }
    return rows;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

if (require.main === module) {
  benchModelCall()
    .then((rows) => console.log(rows.map((row) => `| ${row.join(' | ')} |`).join('\n')))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
