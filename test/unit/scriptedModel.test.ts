/**
 * The deterministic scripted model: a pure function of the request (plus sleeping).
 */
import {
  SCRIPTED_CHARS_PER_TOKEN,
  abortableSleep,
  chunkScript,
  createScriptedModel,
  currentScriptedTurn,
  scriptStepsOf,
} from '../../activities/providers/scriptedModel';
import { renderInboxMessage } from '../../shared/agent/transcript';
import type { JsonValue } from '../../shared/contract/json';
import type { ChatMessage, ModelRequest, ModelResponse } from '../../shared/contract/model';

/** A rendered inbox message (content: any JSON; scripts written inline read as unions TS will not call JsonValue). */
function inbox(messageId: string, content: unknown, from = 'lead'): ChatMessage {
  return { role: 'user', content: renderInboxMessage({ messageId, from, content: content as JsonValue }) };
}

function request(messages: ChatMessage[]): ModelRequest {
  return { model: '', messages, tools: [] };
}

/** Records sleeps instead of waiting. */
function recordingSleep() {
  const slept: number[] = [];
  const sleep = (ms: number) => {
    slept.push(ms);
    return Promise.resolve();
  };
  return { slept, sleep };
}

/** Appends the assistant reply and one tool result per call, as the runtime would. */
function continueWith(messages: ChatMessage[], response: ModelResponse): ChatMessage[] {
  const next: ChatMessage[] = [...messages, { role: 'assistant', content: response.message.content, toolCalls: response.message.toolCalls }];
  for (const call of response.message.toolCalls) next.push({ role: 'tool', toolCallId: call.id, content: '{"ok":true}' });
  return next;
}

const system: ChatMessage = { role: 'system', content: 'You are worker-1.' };

describe('scripted model', () => {
  test('think + send + send: one response with both calls after thinking, then the handled reply', async () => {
    const { slept, sleep } = recordingSleep();
    const model = createScriptedModel({ sleep });
    let messages = [
      system,
      inbox('m-1', { script: [{ think: 450 }, { send: { to: 'lead', content: 'hi' } }, { send: { to: 'worker-2', content: { n: 1 } } }] }),
    ];
    const first = await model.complete(request(messages));
    expect(slept).toEqual([200, 200, 50]);
    expect(first).toMatchObject({
      message: {
        content: null,
        toolCalls: [
          { id: 'call-0-0', name: 'send_message', argumentsJson: '{"to":"lead","content":"hi"}' },
          { id: 'call-0-1', name: 'send_message', argumentsJson: '{"to":"worker-2","content":{"n":1}}' },
        ],
      },
      finishReason: 'tool_calls',
    });
    messages = continueWith(messages, first);
    const second = await model.complete(request(messages));
    expect(second).toMatchObject({ message: { content: '{"handled":["m-1"]}', toolCalls: [] }, finishReason: 'stop' });
    expect(slept).toEqual([200, 200, 50]);
  });

  test('a tool step calls that tool with its args', async () => {
    const model = createScriptedModel({ sleep: () => Promise.resolve() });
    const response = await model.complete(request([inbox('m-1', { script: [{ tool: { name: 'task_claim', args: { taskId: 't-1' } } }] })]));
    expect(response.finishReason).toBe('tool_calls');
    expect(response.message.toolCalls).toEqual([{ id: 'call-0-0', name: 'task_claim', argumentsJson: '{"taskId":"t-1"}' }]);
  });

  test('an answer is the final reply and ends the script', async () => {
    const { slept, sleep } = recordingSleep();
    const model = createScriptedModel({ sleep });
    let messages = [
      inbox('m-1', { script: [{ tool: { name: 'task_list', args: {} } }, { think: 100 }, { answer: 'all done' }, { send: { to: 'lead', content: 'never' } }] }),
    ];
    const first = await model.complete(request(messages));
    expect(first.message.toolCalls.map((c) => c.name)).toEqual(['task_list']);
    messages = continueWith(messages, first);
    const second = await model.complete(request(messages));
    expect(second).toMatchObject({ message: { content: 'all done', toolCalls: [] }, finishReason: 'stop' });
    expect(slept).toEqual([100]);
    // Asked again past the end: still the answer, without thinking again.
    const third = await model.complete(request(continueWith(messages, second)));
    expect(third.message.content).toBe('all done');
    expect(slept).toEqual([100]);
  });

  test("the turn's messages' scripts are concatenated in order; earlier turns are ignored", async () => {
    const model = createScriptedModel({ sleep: () => Promise.resolve() });
    const earlier = [inbox('m-0', { script: [{ send: { to: 'lead', content: 'old' } }] }), { role: 'assistant', content: 'ok' } as ChatMessage];
    const messages: ChatMessage[] = [
      system,
      ...earlier,
      inbox('m-1', { script: [{ send: { to: 'lead', content: 'a' } }] }),
      { role: 'user', content: 'Note from the runtime: you were interrupted.' },
      inbox('m-2', 'plain text, no script'),
      inbox('m-3', { script: [{ send: { to: 'lead', content: 'b' } }, { think: 10 }, { tool: { name: 'task_list', args: {} } }] }),
    ];
    expect(currentScriptedTurn(messages)).toMatchObject({ messageIds: ['m-1', 'm-2', 'm-3'], callIndex: 0 });
    const first = await model.complete(request(messages));
    expect(first.message.toolCalls.map((c) => c.argumentsJson)).toEqual(['{"to":"lead","content":"a"}', '{"to":"lead","content":"b"}']);
    const second = await model.complete(request(continueWith(messages, first)));
    expect(second.message.toolCalls).toEqual([{ id: 'call-1-0', name: 'task_list', argumentsJson: '{}' }]);
    const third = await model.complete(request(continueWith(continueWith(messages, first), second)));
    expect(third.message.content).toBe('{"handled":["m-1","m-2","m-3"]}');
  });

  test('the step position is the number of assistant messages after the turn, tool results do not count', async () => {
    const { slept, sleep } = recordingSleep();
    const model = createScriptedModel({ sleep });
    const script = { script: [{ send: { to: 'a', content: 1 } }, { think: 30 }, { send: { to: 'b', content: 2 } }, { think: 40 }] };
    const messages: ChatMessage[] = [
      inbox('m-1', script),
      { role: 'assistant', content: null, toolCalls: [{ id: 'call-0-0', name: 'send_message', argumentsJson: '{}' }] },
      { role: 'tool', toolCallId: 'call-0-0', content: 'delivered' },
    ];
    const second = await model.complete(request(messages));
    expect(slept).toEqual([30]);
    expect(second.message.toolCalls).toEqual([{ id: 'call-1-0', name: 'send_message', argumentsJson: '{"to":"b","content":2}' }]);
    // Trailing thinks: slept, then the handled reply.
    const third = await model.complete(request(continueWith(messages, second)));
    expect(slept).toEqual([30, 40]);
    expect(third.message.content).toBe('{"handled":["m-1"]}');
    expect(third.finishReason).toBe('stop');
  });

  test('no script: immediately the handled reply', async () => {
    const { slept, sleep } = recordingSleep();
    const model = createScriptedModel({ sleep });
    const response = await model.complete(request([system, inbox('m-7', 'hello'), inbox('m-8', { task: 'x' })]));
    expect(response).toMatchObject({ message: { content: '{"handled":["m-7","m-8"]}', toolCalls: [] }, finishReason: 'stop' });
    expect(slept).toEqual([]);
    expect((await model.complete(request([system]))).message.content).toBe('{"handled":[]}');
  });

  test('abort during a think rejects promptly with an AbortError (real timers)', async () => {
    const model = createScriptedModel();
    const controller = new AbortController();
    const started = Date.now();
    const call = model.complete(request([inbox('m-1', { script: [{ think: 60_000 }, { send: { to: 'lead', content: 'late' } }] })]), {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('interrupted')), 50);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test('an already aborted signal rejects with an AbortError without thinking', async () => {
    const { slept, sleep } = recordingSleep();
    const model = createScriptedModel({ sleep });
    const controller = new AbortController();
    controller.abort();
    await expect(model.complete(request([inbox('m-1', { script: [{ think: 10 }] })]), { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(slept).toEqual([]);
  });

  test('a sleep that ignores the signal is still stopped between slices', async () => {
    const controller = new AbortController();
    let calls = 0;
    const model = createScriptedModel({
      sleep: () => {
        calls++;
        if (calls === 2) controller.abort();
        return Promise.resolve();
      },
    });
    await expect(model.complete(request([inbox('m-1', { script: [{ think: 1_000 }] })]), { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(calls).toBe(2);
  });

  test('script parsing: own keys only, unrecognised steps ignored, combined step keys in order', () => {
    const polluted = JSON.parse('{"__proto__":{"script":[{"think":5}]}}') as unknown;
    expect(scriptStepsOf(polluted)).toEqual([]);
    expect(scriptStepsOf({ script: [{ bogus: 1 }, { think: -5 }, { think: 'x' }, 7, null, { tool: { name: '' } }] })).toEqual([]);
    expect(scriptStepsOf({ script: [{ think: 5, send: { to: 'lead' } }] })).toEqual([
      { kind: 'think', ms: 5 },
      { kind: 'call', name: 'send_message', args: { to: 'lead', content: null } },
    ]);
    expect(chunkScript(scriptStepsOf({ script: [{ think: 1 }, { think: 2 }, { answer: 'x' }] }))).toEqual([{ thinkMs: [1, 2], calls: [], answer: 'x' }]);
  });

  test('abortableSleep resolves after the time and clears its listener', async () => {
    const controller = new AbortController();
    await expect(abortableSleep(5, controller.signal)).resolves.toBeUndefined();
    controller.abort();
    await expect(abortableSleep(5, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });

  test('it reports usage like a provider: a token per four characters of the prompt and of its reply, the same for the same request', async () => {
    const model = createScriptedModel({ sleep: () => Promise.resolve() });
    const messages: ChatMessage[] = [system, inbox('m-7', 'hello')];
    const first = await model.complete(request(messages));
    const reply = '{"handled":["m-7"]}';
    expect(first.usage).toEqual({ promptTokens: expect.any(Number), completionTokens: Math.ceil(reply.length / SCRIPTED_CHARS_PER_TOKEN) });
    expect(await model.complete(request(messages))).toEqual(first);
    const longer = await model.complete(request([system, inbox('m-7', 'hello'.repeat(100))]));
    expect(longer.usage?.promptTokens).toBeGreaterThanOrEqual((first.usage?.promptTokens ?? 0) + Math.floor((99 * 5) / SCRIPTED_CHARS_PER_TOKEN));
  });
});
