/**
 * The agent loop (shared/agent/loop.ts) with fake callModel/dispatch: plain async functions that
 * record what they were given. No Temporal.
 */
import { DEFAULT_MAX_STEPS_PER_TURN, runAgentTurn, type AgentTurnInput, type DispatchResult } from '../../shared/agent/loop';
import { INTERRUPTED_CALL_RESULT } from '../../shared/agent/prompt';
import { renderInboxMessage } from '../../shared/agent/transcript';
import type { ConversationEntry, SendOutcome } from '../../shared/contract';
import type { ChatMessage, ModelResponse, ToolCall } from '../../shared/contract/model';

const TEAM = 'team-1';
const SYSTEM = 'you are the lead';
const PREFIX = 'team-1/lead/turn-2';

function call(id: string, name: string, args: Record<string, unknown> = {}): ToolCall {
  return { id, name, argumentsJson: JSON.stringify(args) };
}
function reply(content: string | null, toolCalls: ToolCall[] = []): ModelResponse {
  return { message: { content, toolCalls }, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop' };
}
function acceptance(to: string, messageId: string): SendOutcome {
  return { ok: true, acceptance: { messageId, to, targetPhase: 'active', targetStatus: 'idle' } };
}

/** A scripted model that records (a snapshot of) the messages of every call. */
function fakeModel(responses: (ModelResponse | Error)[]) {
  const seen: ChatMessage[][] = [];
  const callModel = async (messages: ChatMessage[]): Promise<ModelResponse> => {
    seen.push(structuredClone(messages));
    await Promise.resolve();
    const next = responses[seen.length - 1];
    if (next === undefined) throw new Error(`unexpected model call #${seen.length}`);
    if (next instanceof Error) throw next;
    return next;
  };
  return { seen, callModel };
}

/** A dispatcher that records calls, their op ids and the order they started and finished in. */
function fakeDispatch(results: Record<string, (call: ToolCall) => DispatchResult>) {
  const calls: { call: ToolCall; opId: string }[] = [];
  const log: string[] = [];
  const dispatch = async (c: ToolCall, opId: string): Promise<DispatchResult> => {
    calls.push({ call: c, opId });
    log.push(`start ${c.id}`);
    await new Promise((resolve) => setImmediate(resolve));
    log.push(`end ${c.id}`);
    const make = results[c.name];
    return make ? make(c) : { ok: true, text: JSON.stringify({ echo: c.name }) };
  };
  return { calls, log, dispatch };
}

function turnInput(
  conversation: ConversationEntry[],
  model: ReturnType<typeof fakeModel>,
  dispatch: ReturnType<typeof fakeDispatch>,
  extra: Partial<AgentTurnInput> = {},
): AgentTurnInput {
  return {
    conversation: () => conversation,
    // Frozen as appended: the loop hands over each entry complete and never changes it after.
    append: (entry) => void conversation.push(Object.freeze(entry)),
    turn: 2,
    teamId: TEAM,
    system: SYSTEM,
    opIdPrefix: PREFIX,
    callModel: model.callModel,
    dispatch: dispatch.dispatch,
    ...extra,
  };
}

const opening: ConversationEntry = { role: 'user', messageId: 'op-1', from: 'operator', content: 'do the thing', turn: 2 };

describe('runAgentTurn', () => {
  test('a reply without tool calls ends the turn after one model call', async () => {
    const conversation: ConversationEntry[] = [opening];
    const model = fakeModel([reply('all done')]);
    const dispatch = fakeDispatch({});
    const result = await runAgentTurn(turnInput(conversation, model, dispatch));
    expect(result).toEqual({ reply: 'all done', steps: 1, receipts: [], stepLimitReached: false });
    expect(model.seen).toEqual([
      [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: renderInboxMessage({ messageId: 'op-1', from: 'operator', content: 'do the thing' }) },
      ],
    ]);
    expect(dispatch.calls).toEqual([]);
    expect(conversation).toEqual([opening, { role: 'assistant', content: 'all done', turn: 2 }]);
    expect(conversation[1]).not.toHaveProperty('toolCalls');
    expect(conversation[1]).not.toHaveProperty('receipts');
  });

  test('tool calls are dispatched sequentially, in order, with op ids <prefix>/step-<s>/call-<i>', async () => {
    const conversation: ConversationEntry[] = [opening];
    const step0 = [call('c-a', 'read_file', { path: 'a' }), call('c-b', 'bash', { cmd: 'ls' }), call('c-c', 'read_file', { path: 'c' })];
    const step1 = [call('c-d', 'list_tasks')];
    const model = fakeModel([reply('looking', step0), reply(null, step1), reply('finished')]);
    const dispatch = fakeDispatch({});
    const result = await runAgentTurn(turnInput(conversation, model, dispatch));
    expect(result).toMatchObject({ reply: 'finished', steps: 3, stepLimitReached: false });
    expect(dispatch.calls).toEqual([
      { call: step0[0], opId: `${PREFIX}/step-0/call-0` },
      { call: step0[1], opId: `${PREFIX}/step-0/call-1` },
      { call: step0[2], opId: `${PREFIX}/step-0/call-2` },
      { call: step1[0], opId: `${PREFIX}/step-1/call-0` },
    ]);
    // Each call finishes before the next starts.
    expect(dispatch.log).toEqual(['start c-a', 'end c-a', 'start c-b', 'end c-b', 'start c-c', 'end c-c', 'start c-d', 'end c-d']);
  });

  test('results are appended as tool entries (teamId only for Team records) and the next model call sees them', async () => {
    const conversation: ConversationEntry[] = [opening];
    const calls = [call('call-0-0', 'read_file', { path: 'a' }), call('call-0-1', 'list_tasks'), call('call-0-2', 'bash')];
    const model = fakeModel([reply('checking', calls), reply('ok')]);
    const dispatch = fakeDispatch({
      read_file: () => ({ ok: true, text: '{"content":"A"}' }),
      list_tasks: () => ({ ok: true, text: '{"tasks":[]}', teamRecord: true }),
      bash: () => ({ ok: false, text: '{"error":"Failed"}', teamRecord: false }),
    });
    await runAgentTurn(turnInput(conversation, model, dispatch));

    expect(conversation).toEqual([
      opening,
      { role: 'assistant', content: 'checking', toolCalls: calls, turn: 2 },
      { role: 'tool', toolCallId: 'call-0-0', toolName: 'read_file', ok: true, content: '{"content":"A"}', turn: 2 },
      { role: 'tool', toolCallId: 'call-0-1', toolName: 'list_tasks', ok: true, content: '{"tasks":[]}', turn: 2, teamId: TEAM },
      { role: 'tool', toolCallId: 'call-0-2', toolName: 'bash', ok: false, content: '{"error":"Failed"}', turn: 2 },
      { role: 'assistant', content: 'ok', turn: 2 },
    ]);
    expect(conversation[2]).not.toHaveProperty('teamId');
    expect(conversation[4]).not.toHaveProperty('teamId');

    expect(model.seen).toHaveLength(2);
    expect(model.seen[0]).toHaveLength(2); // system + the opening message
    expect(model.seen[1]).toEqual([
      ...model.seen[0]!,
      { role: 'assistant', content: 'checking', toolCalls: calls },
      { role: 'tool', toolCallId: 'call-0-0', content: '{"content":"A"}' },
      { role: 'tool', toolCallId: 'call-0-1', content: '{"tasks":[]}' },
      { role: 'tool', toolCallId: 'call-0-2', content: '{"error":"Failed"}' },
    ]);
  });

  test('send_message receipts are collected onto the final assistant entry', async () => {
    const conversation: ConversationEntry[] = [opening];
    const rejected: SendOutcome = { ok: false, type: 'UnknownMember', message: 'no member "zed"' };
    let sent = 0;
    const model = fakeModel([
      reply(null, [call('s1', 'send_message', { to: 'alice' }), call('r1', 'read_file')]),
      reply(null, [call('s2', 'send_message', { to: 'zed' }), call('s3', 'send_message', { to: 'bob' })]),
      reply('sent them'),
    ]);
    const dispatch = fakeDispatch({
      send_message: (c) => {
        sent += 1;
        const to = (JSON.parse(c.argumentsJson) as { to: string }).to;
        const receipt = to === 'zed' ? rejected : acceptance(to, `m-${sent}`);
        return { ok: receipt.ok, text: JSON.stringify(receipt), teamRecord: true, receipt };
      },
    });
    const result = await runAgentTurn(turnInput(conversation, model, dispatch));
    const expected = [acceptance('alice', 'm-1'), rejected, acceptance('bob', 'm-3')];
    expect(result.receipts).toEqual(expected);
    const assistants = conversation.filter((e) => e.role === 'assistant');
    expect(assistants).toHaveLength(3);
    expect(assistants.at(-1)).toEqual({ role: 'assistant', content: 'sent them', turn: 2, receipts: expected });
    // Only the final entry carries them.
    expect(assistants.slice(0, -1).some((e) => e.receipts !== undefined)).toBe(false);
  });

  test('the step limit appends a system note and returns stepLimitReached', async () => {
    const conversation: ConversationEntry[] = [opening];
    const model = fakeModel([0, 1, 2].map((s) => reply(null, [call(`call-${s}-0`, 'send_message', { to: 'alice' })])));
    const receipt = acceptance('alice', 'm');
    const dispatch = fakeDispatch({ send_message: () => ({ ok: true, text: '{}', teamRecord: true, receipt }) });
    const result = await runAgentTurn(turnInput(conversation, model, dispatch, { maxSteps: 3 }));
    expect(result).toEqual({ reply: null, steps: 3, receipts: [receipt, receipt, receipt], stepLimitReached: true });
    expect(model.seen).toHaveLength(3);
    expect(dispatch.calls.map((c) => c.opId)).toEqual([0, 1, 2].map((s) => `${PREFIX}/step-${s}/call-0`));
    // opening + 3 × (assistant + tool) + the note
    expect(conversation).toHaveLength(1 + 3 * 2 + 1);
    // With no final reply, the turn's receipts ride on the note.
    expect(conversation.at(-1)).toEqual({
      role: 'system',
      content: { event: 'step limit reached', maxSteps: 3 },
      turn: 2,
      receipts: [receipt, receipt, receipt],
    });
    expect(conversation.some((e) => e.role === 'assistant' && e.receipts !== undefined)).toBe(false);
  });

  test('the step-limit note carries no receipts when nothing was sent; the default limit applies', async () => {
    const conversation: ConversationEntry[] = [];
    const model = fakeModel(Array.from({ length: DEFAULT_MAX_STEPS_PER_TURN }, (_, s) => reply(null, [call(`c${s}`, 'read_file')])));
    const result = await runAgentTurn(turnInput(conversation, model, fakeDispatch({})));
    expect(result).toEqual({ reply: null, steps: DEFAULT_MAX_STEPS_PER_TURN, receipts: [], stepLimitReached: true });
    expect(model.seen).toHaveLength(DEFAULT_MAX_STEPS_PER_TURN);
    expect(conversation.at(-1)).toEqual({ role: 'system', content: { event: 'step limit reached', maxSteps: DEFAULT_MAX_STEPS_PER_TURN }, turn: 2 });
  });

  test('an exception from callModel propagates; entries appended before it stay', async () => {
    const conversation: ConversationEntry[] = [opening];
    const failure = new Error('model server error: 503');
    const calls = [call('call-0-0', 'read_file'), call('call-0-1', 'send_message', { to: 'bob' })];
    const model = fakeModel([reply('first', calls), failure]);
    const dispatch = fakeDispatch({ send_message: () => ({ ok: true, text: '{"sent":true}', teamRecord: true, receipt: acceptance('bob', 'm-1') }) });
    await expect(runAgentTurn(turnInput(conversation, model, dispatch))).rejects.toBe(failure);
    expect(model.seen).toHaveLength(2);
    expect(conversation).toEqual([
      opening,
      { role: 'assistant', content: 'first', toolCalls: calls, turn: 2 },
      { role: 'tool', toolCallId: 'call-0-0', toolName: 'read_file', ok: true, content: '{"echo":"read_file"}', turn: 2 },
      { role: 'tool', toolCallId: 'call-0-1', toolName: 'send_message', ok: true, content: '{"sent":true}', turn: 2, teamId: TEAM },
    ]);
  });

  test('an exception on the very first model call leaves the conversation as it was', async () => {
    const conversation: ConversationEntry[] = [opening];
    const model = fakeModel([new Error('rate limited')]);
    await expect(runAgentTurn(turnInput(conversation, model, fakeDispatch({})))).rejects.toThrow('rate limited');
    expect(conversation).toEqual([opening]);
  });

  test('a dispatch that throws mid-step leaves a call the next prompt answers as interrupted', async () => {
    const conversation: ConversationEntry[] = [opening];
    const calls = [call('call-0-0', 'read_file'), call('call-0-1', 'bash')];
    const model = fakeModel([reply(null, calls)]);
    const dispatch = async (c: ToolCall): Promise<DispatchResult> => {
      await Promise.resolve();
      if (c.name === 'bash') throw new Error('cancelled');
      return { ok: true, text: 'A' };
    };
    await expect(runAgentTurn({ ...turnInput(conversation, model, fakeDispatch({})), dispatch })).rejects.toThrow('cancelled');
    expect(conversation.map((e) => e.role)).toEqual(['user', 'assistant', 'tool']);
    // The next turn's prompt still answers every call.
    const next = fakeModel([reply('resumed')]);
    await runAgentTurn({ ...turnInput(conversation, next, fakeDispatch({})), turn: 3 });
    expect(next.seen[0]!.slice(2)).toEqual([
      { role: 'assistant', content: null, toolCalls: calls },
      { role: 'tool', toolCallId: 'call-0-0', content: 'A' },
      { role: 'tool', toolCallId: 'call-0-1', content: INTERRUPTED_CALL_RESULT },
    ]);
  });

  test('the model does not see records of another Team (seeded ancestor messages of a fork)', async () => {
    const conversation: ConversationEntry[] = [
      opening,
      { role: 'user', messageId: 'x', from: 'bob', content: 'ancestor member message', turn: 1, teamId: 'root-team' },
    ];
    const model = fakeModel([reply('hi')]);
    await runAgentTurn(turnInput(conversation, model, fakeDispatch({})));
    expect(JSON.stringify(model.seen[0])).not.toContain('ancestor member message');
  });
});

describe('runAgentTurn yielding at a rollover', () => {
  it('stops only at a step boundary after the first step, and a resumed turn goes on with the next step ids', async () => {
    const conversation: ConversationEntry[] = [opening];
    let yieldNow = false;
    let rolloverDue = true;
    const model = fakeModel([reply(null, [call('c1', 'list_tasks')]), reply(null, [call('c2', 'list_tasks')]), reply('done')]);
    const dispatch = fakeDispatch({
      list_tasks: () => {
        yieldNow = rolloverDue; // the rollover becomes due while the first step's tool runs
        return { ok: true, text: '[]' };
      },
    });
    const first = await runAgentTurn(turnInput(conversation, model, dispatch, { shouldYield: () => yieldNow }));
    expect(first).toMatchObject({ reply: null, yieldedAtStep: 1, stepLimitReached: false });
    expect(model.seen).toHaveLength(1); // the step that was running completed (model call and its tool), nothing more
    expect(conversation.map((e) => e.role)).toEqual(['user', 'assistant', 'tool']);

    // The next run: the same conversation (carried), resumed at step 1 with yielding off.
    yieldNow = false;
    rolloverDue = false;
    const resumed = await runAgentTurn(turnInput(conversation, model, dispatch, { firstStep: 1, shouldYield: () => yieldNow }));
    expect(resumed).toMatchObject({ reply: 'done' });
    expect(resumed.yieldedAtStep).toBeUndefined();
    expect(dispatch.calls.map((c) => c.opId)).toEqual([`${PREFIX}/step-0/call-0`, `${PREFIX}/step-1/call-0`]);
    // The resumed step saw everything the first run did: prompt holds the first step's call and result.
    expect(model.seen[1]!.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(conversation.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  });

  it('never yields before the first step of a (resumed) turn, so a turn always makes progress', async () => {
    const model = fakeModel([reply('answer')]);
    const result = await runAgentTurn(turnInput([opening], model, fakeDispatch({}), { firstStep: 3, shouldYield: () => true }));
    expect(result).toMatchObject({ reply: 'answer', steps: 4 });
  });
});

describe('runAgentTurn steering at step boundaries', () => {
  it('send_message steers a running turn: a message taken at the step boundary is in the very next model call, once', async () => {
    const conversation: ConversationEntry[] = [opening];
    const mail: ConversationEntry[] = [];
    const model = fakeModel([reply(null, [call('c1', 'list_tasks')]), reply(null, [call('c2', 'list_tasks')]), reply('done')]);
    const dispatch = fakeDispatch({
      list_tasks: (c) => {
        // A message arrives while the first tool runs.
        if (c.id === 'c1') mail.push({ role: 'user', messageId: 'steer-1', from: 'bob', content: 'new facts', turn: 2 });
        return { ok: true, text: '[]' };
      },
    });
    const boundaries: number[] = [];
    const atStepBoundary = (): void => {
      boundaries.push(model.seen.length);
      conversation.push(...mail.splice(0));
    };
    await runAgentTurn(turnInput(conversation, model, dispatch, { atStepBoundary }));
    // Called before every model call (with the number of calls made so far), never after the last.
    expect(boundaries).toEqual([0, 1, 2]);
    const rendered = renderInboxMessage({ messageId: 'steer-1', from: 'bob', content: 'new facts' });
    expect(model.seen[0]!.some((m) => m.content === rendered)).toBe(false);
    expect(model.seen[1]!.at(-1)).toEqual({ role: 'user', content: rendered });
    expect(model.seen[2]!.filter((m) => m.content === rendered)).toHaveLength(1);
    expect(conversation.map((e) => e.messageId ?? e.role)).toEqual(['op-1', 'assistant', 'tool', 'steer-1', 'assistant', 'tool', 'assistant']);
  });

  it('a turn yielding at a rollover does not take at that boundary: the resumed turn does, before its first model call', async () => {
    const conversation: ConversationEntry[] = [opening];
    const taken: number[] = [];
    const model = fakeModel([reply(null, [call('c1', 'list_tasks')]), reply('done')]);
    const first = await runAgentTurn(
      turnInput(conversation, model, fakeDispatch({}), { shouldYield: () => true, atStepBoundary: () => taken.push(model.seen.length) }),
    );
    expect(first.yieldedAtStep).toBe(1);
    expect(taken).toEqual([0]);
    await runAgentTurn(turnInput(conversation, model, fakeDispatch({}), { firstStep: 1, atStepBoundary: () => taken.push(model.seen.length) }));
    expect(taken).toEqual([0, 1]);
  });
});
