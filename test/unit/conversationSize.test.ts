/**
 * Conversation size limits (shared/agent/conversationSize.ts): the chat messages of a model call and a carried,
 * queried or forked conversation stay within their size limits for any input. Examples pin the
 * elision order; fast-check properties cover arbitrary conversations (multi-byte and astral text,
 * huge tool arguments, thousands of short entries).
 */
import { ApplicationFailure } from '@temporalio/common';
import fc from 'fast-check';
import {
  CONVERSATION_TOO_LARGE,
  DROPPED_EVENT,
  compactConversation,
  elidedArguments,
  elisionNote,
  fitPrompt,
  messageElisionNote,
  replyElisionNote,
} from '../../shared/agent/conversationSize';
import { runAgentTurn, type DispatchResult } from '../../shared/agent/loop';
import { INTERRUPTED_CALL_RESULT, RUNTIME_NOTE_PREFIX, assemblePrompt, completedTurnPrefix } from '../../shared/agent/prompt';
import type { ConversationEntry, SendOutcome } from '../../shared/contract';
import type { JsonValue } from '../../shared/contract/json';
import {
  CARRIED_CONVERSATION_MAX_BYTES,
  PAYLOAD_MAX_BYTES,
  PROMPT_MAX_BYTES,
  QUERIED_CONVERSATION_MAX_BYTES,
  TEMPORAL_PAYLOAD_LIMIT_BYTES,
  jsonBytes,
  utf8Length,
} from '../../shared/contract/limits';
import type { ChatMessage, ModelResponse, ToolCall } from '../../shared/contract/model';

const SYSTEM = 'policy + identity';
const TEAM = 'team-1';
const big = (n: number, c = 'x'): string => c.repeat(n);

function call(id: string, name = 'read_file', argumentsJson = '{}'): ToolCall {
  return { id, name, argumentsJson };
}
function assemble(conversation: ConversationEntry[]): ChatMessage[] {
  return assemblePrompt({ system: SYSTEM, conversation, teamId: TEAM });
}

/**
 * What prompt assembly guarantees and providers need: one leading system message, every call
 * answered right after its assistant message (and nowhere else), arguments that parse as a JSON
 * object. Problems are collected and asserted once (thousands of messages per run).
 */
function promptProblems(messages: ChatMessage[]): string[] {
  const problems: string[] = [];
  if (messages[0]?.role !== 'system') problems.push('no leading system message');
  let i = 1;
  while (i < messages.length) {
    const message = messages[i]!;
    if (message.role !== 'user' && message.role !== 'assistant') problems.push(`${i}: unexpected ${message.role} message`);
    i += 1;
    if (message.role !== 'assistant' || message.toolCalls === undefined) continue;
    for (const c of message.toolCalls) {
      const next = messages[i];
      if (next?.role !== 'tool' || next.toolCallId !== c.id) problems.push(`${i}: call ${c.id} is not answered right after its message`);
      try {
        const args: unknown = JSON.parse(c.argumentsJson);
        if (typeof args !== 'object' || args === null || Array.isArray(args)) problems.push(`${i}: arguments of ${c.id} are not a JSON object`);
      } catch {
        problems.push(`${i}: arguments of ${c.id} do not parse`);
      }
      i += 1;
    }
  }
  return problems;
}
function expectValidPrompt(messages: ChatMessage[]): void {
  expect(promptProblems(messages)).toEqual([]);
}

function isDroppedNote(entry: ConversationEntry | undefined): boolean {
  return (
    entry?.role === 'system' &&
    typeof entry.content === 'object' &&
    entry.content !== null &&
    (entry.content as Record<string, JsonValue>).event === DROPPED_EVENT
  );
}
const droppedCount = (entry: ConversationEntry): number => (entry.content as { droppedEntries: number }).droppedEntries;
const isNote = (content: JsonValue): boolean => typeof content === 'string' && /^\[elided \d+ bytes /.test(content);
const originalBytes = (content: unknown): number => (typeof content === 'string' ? utf8Length(content) : jsonBytes(content));
const sameFields = (a: object, b: object): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * `out` is `conversation` compacted: an optional dropped-turns note, then a suffix of the
 * conversation starting at a block boundary, each entry the original or it with contents,
 * arguments or receipts elided, and nothing else changed; calls and results still paired.
 */
function expectCompactionOf(conversation: ConversationEntry[], out: ConversationEntry[]): void {
  const problems: string[] = [];
  const noted = isDroppedNote(out[0]) && !isDroppedNote(conversation[0]);
  const kept = noted ? out.slice(1) : out;
  const suffix = conversation.slice(conversation.length - kept.length);
  if (noted) {
    if (kept.length >= conversation.length) problems.push('a note but nothing dropped');
    if (droppedCount(out[0]!) !== conversation.length - kept.length)
      problems.push(`the note counts ${droppedCount(out[0]!)} dropped, not ${conversation.length - kept.length}`);
    if (suffix[0]!.role === 'tool') problems.push('a block was cut: the first kept entry is a tool result');
  } else if (kept.length !== conversation.length) {
    problems.push('entries dropped without a note');
  }
  kept.forEach((entry, i) => {
    const original = suffix[i]!;
    if (entry === original) return;
    const { content, toolCalls, receipts, ...rest } = entry;
    const { content: oContent, toolCalls: oToolCalls, receipts: oReceipts, ...oRest } = original;
    if (!sameFields(rest, oRest)) problems.push(`${i}: fields other than content, arguments and receipts changed`);
    if (content !== oContent && !(isNote(content) && (content as string).startsWith(`[elided ${originalBytes(oContent)} bytes`)))
      problems.push(`${i}: content is neither the original nor its note`);
    if (receipts !== undefined && receipts !== oReceipts) problems.push(`${i}: receipts changed`);
    if (toolCalls?.length !== oToolCalls?.length) problems.push(`${i}: tool calls changed`);
    (toolCalls ?? []).forEach((c, k) => {
      const o = oToolCalls![k]!;
      if (c.id !== o.id || c.name !== o.name) problems.push(`${i}: call ${k} changed`);
      if (c.argumentsJson !== o.argumentsJson && c.argumentsJson !== elidedArguments(utf8Length(o.argumentsJson)))
        problems.push(`${i}: arguments of call ${k} are neither the original nor elided`);
    });
  });
  expect(problems).toEqual([]);
  // Calls and results stay paired: the kept entries assemble to the same calls and answers.
  const prompt = assemble(out);
  expectValidPrompt(prompt);
  const answers = (messages: ChatMessage[]): string[] =>
    messages.flatMap((m) => (m.role === 'tool' ? [`${m.toolCallId}${m.content === INTERRUPTED_CALL_RESULT ? ' interrupted' : ''}`] : []));
  expect(answers(prompt)).toEqual(answers(assemble(suffix)));
}

/** `out` is `messages` fitted: the system message, an optional dropped note, then a suffix at a block boundary. */
function expectFittingOf(messages: ChatMessage[], out: ChatMessage[]): void {
  const problems: string[] = [];
  expect(out[0]).toEqual(messages[0]);
  const second = out[1];
  const note = second?.role === 'user' && second.content.startsWith(`${RUNTIME_NOTE_PREFIX}{"event":"${DROPPED_EVENT}"`) ? second.content : null;
  const kept = out.slice(note === null ? 1 : 2);
  const suffix = messages.slice(messages.length - kept.length);
  if (note !== null) {
    const counted = (JSON.parse(note.slice(RUNTIME_NOTE_PREFIX.length)) as { droppedEntries: number }).droppedEntries;
    if (counted !== messages.length - 1 - kept.length) problems.push(`the note counts ${counted} dropped, not ${messages.length - 1 - kept.length}`);
    if (suffix[0]!.role === 'tool') problems.push('a block was cut: the first kept message is a tool result');
  } else if (kept.length !== messages.length - 1) {
    problems.push('messages dropped without a note');
  }
  kept.forEach((m, i) => {
    const o = suffix[i]!;
    if (m === o) return;
    if (m.role !== o.role) problems.push(`${i}: role changed`);
    if (m.role === 'tool' && m.toolCallId !== (o as { toolCallId: string }).toolCallId) problems.push(`${i}: result id changed`);
    if (m.content !== o.content && !isNote(m.content)) problems.push(`${i}: content is neither the original nor a note`);
    if (m.role === 'assistant' && (m.toolCalls ?? []).map((c) => c.id).join() !== ((o as typeof m).toolCalls ?? []).map((c) => c.id).join())
      problems.push(`${i}: calls changed`);
  });
  expect(problems).toEqual([]);
  expectValidPrompt(out);
}

describe('size limits', () => {
  test('are byte limits from shared/contract/limits.ts, under the payload limit', () => {
    expect(PROMPT_MAX_BYTES).toBe(1_000_000);
    expect(CARRIED_CONVERSATION_MAX_BYTES).toBe(500_000);
    expect(QUERIED_CONVERSATION_MAX_BYTES).toBe(1_000_000);
    for (const maxBytes of [PROMPT_MAX_BYTES, CARRIED_CONVERSATION_MAX_BYTES, QUERIED_CONVERSATION_MAX_BYTES])
      expect(maxBytes).toBeLessThanOrEqual(PAYLOAD_MAX_BYTES);
  });
});

describe('fitPrompt', () => {
  test('a prompt within the limit is returned as is', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'policy' },
      { role: 'user', content: 'hi' },
    ];
    expect(fitPrompt(messages, 1_000)).toBe(messages);
    expect(fitPrompt(messages, jsonBytes(messages))).toBe(messages);
  });

  test('older turns go first: tool results, then call arguments, then user messages, then replies; then the current turn but its last message', () => {
    const args = JSON.stringify({ path: 'a.ts', content: big(3_000, 'w') });
    const messages: ChatMessage[] = [
      { role: 'system', content: big(500, 's') },
      { role: 'user', content: big(2_000, 'u') },
      { role: 'assistant', content: big(1_500, 'r'), toolCalls: [call('a', 'write_file', args)] },
      { role: 'tool', toolCallId: 'a', content: big(3_000, 'a') },
      { role: 'user', content: 'next turn' },
      { role: 'assistant', content: null, toolCalls: [call('b', 'read_file', args)] },
      { role: 'tool', toolCallId: 'b', content: big(3_000, 'b') },
    ];
    const at = (...patches: [number, Partial<ChatMessage>][]): ChatMessage[] => {
      const out = [...messages];
      for (const [i, patch] of patches) out[i] = { ...out[i]!, ...patch } as ChatMessage;
      return out;
    };
    const oldResult: [number, Partial<ChatMessage>] = [3, { content: elisionNote(3_000) }];
    const oldArgs: [number, Partial<ChatMessage>] = [2, { toolCalls: [call('a', 'write_file', elidedArguments(utf8Length(args)))] }];
    const oldUser: [number, Partial<ChatMessage>] = [1, { content: messageElisionNote(2_000) }];
    const oldReply: [number, Partial<ChatMessage>] = [
      2,
      { content: replyElisionNote(1_500), toolCalls: [call('a', 'write_file', elidedArguments(utf8Length(args)))] },
    ];
    const currentArgs: [number, Partial<ChatMessage>] = [5, { toolCalls: [call('b', 'read_file', elidedArguments(utf8Length(args)))] }];
    const stages = [
      at(oldResult),
      at(oldResult, oldArgs),
      at(oldResult, oldArgs, oldUser),
      at(oldResult, oldUser, oldReply),
      at(oldResult, oldUser, oldReply, currentArgs),
    ];
    for (const expected of stages) {
      const fitted = fitPrompt(messages, jsonBytes(expected));
      expect(fitted).toEqual(expected);
      expect(jsonBytes(fitted)).toBeLessThanOrEqual(jsonBytes(expected));
    }
    expect(messages[3]!.content).toHaveLength(3_000); // the input is not modified
    // The last message is the last to go: older turns are dropped first.
    const dropped = fitPrompt(messages, jsonBytes(stages.at(-1)!) - 1);
    expect(dropped.at(-1)).toBe(messages.at(-1));
    expectFittingOf(messages, dropped);
  });

  test('sizes are UTF-8 bytes of the JSON encoding: astral, multi-byte and escaped characters count in full', () => {
    const emoji = big(1_000, '😀'); // 2,000 UTF-16 units, 4,000 bytes
    const messages: ChatMessage[] = [
      { role: 'system', content: 'p' },
      { role: 'assistant', content: null, toolCalls: [call('a')] },
      { role: 'tool', toolCallId: 'a', content: emoji },
      { role: 'assistant', content: 'done' },
    ];
    expect(jsonBytes(messages)).toBeGreaterThan(4_000);
    const fitted = fitPrompt(messages, 3_000);
    expect(fitted[2]).toEqual({ role: 'tool', toolCallId: 'a', content: elisionNote(4_000) });
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(3_000);
    // A quote is 2 bytes in JSON, a control character 6.
    const quoted: ChatMessage[] = [
      { role: 'system', content: 'p' },
      { role: 'user', content: big(600, '"') },
      { role: 'user', content: 'last' },
    ];
    expect(jsonBytes(quoted)).toBeGreaterThan(1_200);
    expect(jsonBytes(fitPrompt(quoted, 1_000))).toBeLessThanOrEqual(1_000);
  });

  test('short contents are elided too when that is what it takes', () => {
    const messages: ChatMessage[] = [{ role: 'system', content: 'p' }];
    for (let i = 0; i < 20; i++)
      messages.push({ role: 'assistant', content: null, toolCalls: [call(`c${i}`)] }, { role: 'tool', toolCallId: `c${i}`, content: big(300, 'r') });
    const fitted = fitPrompt(messages, jsonBytes(messages) - 1_000);
    expect(fitted.filter((m) => m.role === 'tool' && isNote(m.content)).length).toBeGreaterThan(0);
    expect(fitted).toHaveLength(messages.length);
  });

  test('40 write_file calls of 80 kB in one reply: every model call input stays within the prompt size limit', async () => {
    const eighty = big(8_000, 'aé€😀'); // 8,000 × (1 + 2 + 3 + 4 bytes)
    expect(utf8Length(eighty)).toBe(80_000);
    const writes = Array.from({ length: 40 }, (_, i) =>
      call(`call-${i}`, 'write_file', JSON.stringify({ path: `src/f${i}.ts`, version: null, content: eighty })),
    );
    const responses: ModelResponse[] = [
      { message: { content: 'writing', toolCalls: writes }, finishReason: 'tool_calls' },
      { message: { content: 'all written', toolCalls: [] }, finishReason: 'stop' },
    ];
    const seen: ChatMessage[][] = [];
    const conversation: ConversationEntry[] = [{ role: 'user', messageId: 'm-1', from: 'operator', content: 'write the files', turn: 1 }];
    await runAgentTurn({
      conversation: () => conversation,
      append: (entry) => void conversation.push(entry),
      turn: 1,
      teamId: TEAM,
      system: SYSTEM,
      opIdPrefix: 'p',
      callModel: async (messages) => {
        seen.push(messages);
        await Promise.resolve();
        return responses[seen.length - 1]!;
      },
      dispatch: async (c): Promise<DispatchResult> => {
        await Promise.resolve();
        return { ok: true, text: JSON.stringify({ path: (JSON.parse(c.argumentsJson) as { path: string }).path, version: 'sha256:0' }) };
      },
    });
    expect(seen).toHaveLength(2);
    const unfitted = assemble(conversation.slice(0, -1));
    expect(jsonBytes({ model: null, toolset: 'team', messages: unfitted })).toBeGreaterThan(TEMPORAL_PAYLOAD_LIMIT_BYTES); // what used to be sent
    for (const messages of seen) {
      expect(jsonBytes(messages)).toBeLessThanOrEqual(PROMPT_MAX_BYTES);
      expect(jsonBytes({ model: null, toolset: 'team', messages })).toBeLessThan(PAYLOAD_MAX_BYTES);
      expectValidPrompt(messages);
    }
    const last = seen[1]!;
    expectFittingOf(unfitted, last);
    expect(last.at(-1)).toEqual({ role: 'tool', toolCallId: 'call-39', content: '{"path":"src/f39.ts","version":"sha256:0"}' });
    // The carried, queried and forked conversation are within their size limits too.
    for (const [compacted, maxBytes] of [
      [compactConversation(conversation), CARRIED_CONVERSATION_MAX_BYTES],
      [compactConversation(conversation, QUERIED_CONVERSATION_MAX_BYTES), QUERIED_CONVERSATION_MAX_BYTES],
      [compactConversation(completedTurnPrefix(conversation, null)), CARRIED_CONVERSATION_MAX_BYTES],
    ] as const) {
      expect(jsonBytes(compacted)).toBeLessThanOrEqual(maxBytes);
      expectCompactionOf(conversation, compacted);
    }
  });

  test('40 write_file calls of 80 kB, one per step: every model call input stays within the prompt size limit', async () => {
    const eighty = big(20_000, '€') + big(20_000, 'x'); // 60,000 + 20,000 bytes
    expect(utf8Length(eighty)).toBe(80_000);
    const seen: number[] = [];
    const conversation: ConversationEntry[] = [{ role: 'user', content: 'go', turn: 3 }];
    const result = await runAgentTurn({
      conversation: () => conversation,
      append: (entry) => void conversation.push(entry),
      turn: 3,
      teamId: TEAM,
      system: SYSTEM,
      opIdPrefix: 'p',
      maxSteps: 41,
      callModel: async (messages) => {
        seen.push(jsonBytes(messages));
        expectValidPrompt(messages);
        await Promise.resolve();
        const step = seen.length - 1;
        return step < 40
          ? {
              message: { content: null, toolCalls: [call(`call-${step}`, 'write_file', JSON.stringify({ path: `f${step}`, content: eighty }))] },
              finishReason: 'tool_calls',
            }
          : { message: { content: 'done', toolCalls: [] }, finishReason: 'stop' };
      },
      dispatch: async () => {
        await Promise.resolve();
        return { ok: true, text: '{"written":true}' };
      },
    });
    expect(result.reply).toBe('done');
    expect(seen).toHaveLength(41);
    expect(Math.max(...seen)).toBeLessThanOrEqual(PROMPT_MAX_BYTES);
    expect(jsonBytes(conversation)).toBeGreaterThan(TEMPORAL_PAYLOAD_LIMIT_BYTES);
  });

  test('a system message over the limit is a typed ConversationTooLarge failure', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: big(2_000) },
      { role: 'user', content: 'hi' },
    ];
    expect(() => fitPrompt(messages, 1_000)).toThrow(ApplicationFailure);
    try {
      fitPrompt(messages, 1_000);
    } catch (error) {
      expect((error as ApplicationFailure).type).toBe(CONVERSATION_TOO_LARGE);
      expect((error as ApplicationFailure).nonRetryable).toBe(true);
    }
  });
});

describe('one elision routine for prompts and conversations', () => {
  // The two differ only where their items do: runtime notes are system entries in a conversation
  // but user messages in a prompt, and only conversation entries carry send receipts.
  test('a system entry is elided as a runtime note; a reply whose text cannot shrink still loses its receipts', () => {
    const receipts: SendOutcome[] = Array.from({ length: 50 }, (_, i) => ({ ok: false, type: 'MemberUnavailable', message: big(100, `${i % 10}`) }));
    const conversation: ConversationEntry[] = [
      { role: 'system', content: big(3_000), turn: 1 },
      { role: 'assistant', content: null, receipts, turn: 1 },
      { role: 'user', content: 'next', turn: 2 },
      { role: 'assistant', content: 'fine', turn: 2 },
    ];
    const compacted = compactConversation(conversation, 1_000);
    expect(compacted).toEqual([
      { role: 'system', content: messageElisionNote(3_000), turn: 1 },
      { role: 'assistant', content: null, turn: 1 },
      ...conversation.slice(2),
    ]);
    expectCompactionOf(conversation, compacted);
  });

  test('a system message after the leading one is never elided in a prompt: replies go first, then whole turns', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'p' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: big(3_000, 's') },
      { role: 'assistant', content: big(3_000, 'r') },
      { role: 'user', content: 'next' },
    ];
    const fitted = fitPrompt(messages, 4_000);
    expect(fitted).toEqual([...messages.slice(0, 3), { role: 'assistant', content: replyElisionNote(3_000) }, messages[4]]);
    const tighter = fitPrompt(messages, 2_000);
    expect(jsonBytes(tighter)).toBeLessThanOrEqual(2_000);
    expect(tighter.filter((m) => m.role === 'system')).toEqual([messages[0]]);
    expect(tighter.some((m) => m.content === messageElisionNote(3_000))).toBe(false);
    expect(tighter.at(-1)).toBe(messages[4]);
  });
});

describe('compactConversation', () => {
  test('a conversation within the limit is returned as is', () => {
    const conversation: ConversationEntry[] = [{ role: 'user', content: 'hi', turn: 1 }];
    expect(compactConversation(conversation)).toBe(conversation);
    expect(compactConversation(conversation, jsonBytes(conversation))).toBe(conversation);
  });

  test('older turns are compacted first and the latest turn stays whole', () => {
    const conversation: ConversationEntry[] = [
      { role: 'user', content: big(5_000), turn: 1, messageId: 'm1', from: 'lead' },
      { role: 'assistant', content: null, turn: 1, toolCalls: [call('c')] },
      { role: 'tool', content: big(8_000), turn: 1, toolCallId: 'c', toolName: 'read_file', ok: true },
      { role: 'assistant', content: 'short', turn: 1 },
      { role: 'user', content: 'again', turn: 2 },
      { role: 'assistant', content: null, turn: 2, toolCalls: [call('d')] },
      { role: 'tool', content: big(8_000), turn: 2, toolCallId: 'd', toolName: 'read_file', ok: true },
    ];
    const compacted = compactConversation(conversation, 14_000);
    expect(compacted[2]!.content).toBe(elisionNote(8_000)); // the oldest tool result goes first
    expect(compacted[0]).toBe(conversation[0]);
    expect(compacted.slice(3)).toEqual(conversation.slice(3));
    const tighter = compactConversation(conversation, 9_000);
    expect(tighter[0]!.content).toBe(messageElisionNote(5_000));
    expect(tighter.slice(3)).toEqual(conversation.slice(3));
    expect(jsonBytes(tighter)).toBeLessThanOrEqual(9_000);
  });

  test('when the latest turn alone is over the limit, its older entries are elided before its last two', () => {
    const conversation: ConversationEntry[] = [
      { role: 'assistant', content: null, turn: 1, toolCalls: Array.from({ length: 6 }, (_, i) => call(`c${i}`)) },
      ...Array.from({ length: 6 }, (_, i): ConversationEntry => ({
        role: 'tool',
        content: big(1_000),
        turn: 1,
        toolCallId: `c${i}`,
        toolName: 'read_file',
        ok: true,
      })),
    ];
    const compacted = compactConversation(conversation, 3_500);
    expect(compacted.slice(-2)).toEqual(conversation.slice(-2));
    expect(compacted.filter((e) => isNote(e.content)).length).toBeGreaterThan(0);
    expect(jsonBytes(compacted)).toBeLessThanOrEqual(3_500);
    // Tighter still: the last two go too, oldest first, the newest last.
    const tighter = compactConversation(conversation, 3_000);
    expect(jsonBytes(tighter)).toBeLessThanOrEqual(3_000);
    expect(tighter.at(-2)!.content).toBe(elisionNote(1_000));
    expect(tighter.at(-1)).toBe(conversation.at(-1));
    expectCompactionOf(conversation, tighter);
  });

  test('huge tool-call arguments are elided to a JSON object giving their size; receipts of old replies go with their text', () => {
    const args = JSON.stringify({ path: 'a', content: big(100_000, 'ü') });
    const receipts: SendOutcome[] = Array.from({ length: 50 }, (_, i) => ({ ok: false, type: 'MemberUnavailable', message: big(100, `${i % 10}`) }));
    const conversation: ConversationEntry[] = [
      { role: 'user', content: 'write', turn: 1 },
      { role: 'assistant', content: null, turn: 1, toolCalls: [call('w', 'write_file', args)] },
      { role: 'tool', content: 'ok', turn: 1, toolCallId: 'w', toolName: 'write_file', ok: true },
      { role: 'assistant', content: big(2_000, 'r'), receipts, turn: 1 },
      { role: 'user', content: 'next', turn: 2 },
      { role: 'assistant', content: 'fine', turn: 2 },
    ];
    const compacted = compactConversation(conversation, 5_000);
    expect(compacted[1]!.toolCalls).toEqual([call('w', 'write_file', elidedArguments(utf8Length(args)))]);
    expect(JSON.parse(compacted[1]!.toolCalls![0]!.argumentsJson)).toEqual({ elided: 200_000 + utf8Length('{"path":"a","content":""}') });
    expect(compacted[3]).toEqual({ role: 'assistant', content: replyElisionNote(2_000), turn: 1 });
    expect(jsonBytes(compacted)).toBeLessThanOrEqual(5_000);
    expectCompactionOf(conversation, compacted);
  });

  test('thousands of short entries: whole oldest turns are dropped and one note says how many', () => {
    const conversation: ConversationEntry[] = [];
    for (let turn = 1; turn <= 500; turn++) {
      conversation.push(
        { role: 'user', messageId: `m-${turn}`, from: 'lead', content: `task ${turn}`, turn },
        { role: 'assistant', content: null, turn, toolCalls: [call(`call-0-0`, 'list_tasks')] },
        { role: 'tool', content: '{"tasks":[]}', turn, toolCallId: 'call-0-0', toolName: 'list_tasks', ok: true },
        { role: 'assistant', content: `done ${turn}`, turn },
      );
    }
    const compacted = compactConversation(conversation, 20_000);
    expect(jsonBytes(compacted)).toBeLessThanOrEqual(20_000);
    expect(isDroppedNote(compacted[0])).toBe(true);
    const note = compacted[0]!.content as { droppedEntries: number; droppedTurns: number };
    expect(note.droppedEntries % 4).toBe(0); // whole turns
    expect(note.droppedTurns).toBe(note.droppedEntries / 4);
    expect(compacted[1]).toBe(conversation[note.droppedEntries]); // the first kept turn is whole
    expect(compacted[0]!.turn).toBe(compacted[1]!.turn);
    expect(compacted.at(-1)).toBe(conversation.at(-1));
    expectCompactionOf(conversation, compacted);
    // The model is told.
    expect(assemble(compacted)[1]).toEqual({ role: 'user', content: `${RUNTIME_NOTE_PREFIX}${JSON.stringify(note)}` });
    // Compacting again, tighter, carries the earlier counts into one note.
    const again = compactConversation(compacted, 10_000);
    expect(again.filter(isDroppedNote)).toHaveLength(1);
    expect(droppedCount(again[0]!)).toBe(conversation.length - (again.length - 1));
    expect(compactConversation(again, 10_000)).toBe(again);
    // fitPrompt drops whole blocks of the assembled prompt the same way.
    const messages = assemble(conversation);
    const fitted = fitPrompt(messages, 20_000);
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(20_000);
    expectFittingOf(messages, fitted);
  });

  test('a newest entry that cannot fit even elided is a typed ConversationTooLarge failure, never an oversized result', () => {
    const calls = Array.from({ length: 2_000 }, (_, i) => call(`call-${i}-${big(100, 'i')}`, 'read_file'));
    const conversation: ConversationEntry[] = [
      { role: 'user', content: 'x', turn: 1 },
      { role: 'assistant', content: null, turn: 1, toolCalls: calls },
    ];
    let failure: unknown;
    try {
      compactConversation(conversation, 100_000);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe(CONVERSATION_TOO_LARGE);
    expect(jsonBytes(compactConversation(conversation, 500_000))).toBeLessThanOrEqual(500_000);
  });

  test('a 5 MB conversation compacts in well under 100 ms', () => {
    const conversation: ConversationEntry[] = [];
    for (let turn = 1; turn <= 50; turn++) {
      conversation.push({ role: 'user', content: big(2_000, 'é'), turn });
      for (let s = 0; s < 10; s++) {
        conversation.push(
          {
            role: 'assistant',
            content: 'writing',
            turn,
            toolCalls: [call(`call-${s}`, 'write_file', JSON.stringify({ path: 'p', content: big(3_000, '€') }))],
          },
          { role: 'tool', content: big(1_000, 'r'), turn, toolCallId: `call-${s}`, toolName: 'write_file', ok: true },
        );
      }
    }
    expect(jsonBytes(conversation)).toBeGreaterThan(5_000_000);
    compactConversation(conversation); // warm up
    const times: number[] = [];
    // Best of ten: the bound is on the work, not on a busy machine's scheduling.
    for (let i = 0; i < 10; i++) {
      const start = performance.now();
      const compacted = compactConversation(conversation);
      times.push(performance.now() - start);
      expect(jsonBytes(compacted)).toBeLessThanOrEqual(CARRIED_CONVERSATION_MAX_BYTES);
    }
    expect(Math.min(...times)).toBeLessThan(100);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties over arbitrary conversations.
// ---------------------------------------------------------------------------------------------

/** Text of any code points (astral, lone surrogates, quotes, controls), sometimes huge. */
const pieceArb = fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }), fc.constantFrom('x', 'é', '€', '😀', '\ud800', '"', '\\', '\n', '\u0001'));
const textArb = fc
  .tuple(pieceArb, fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 60 }) }, { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }) }))
  .map(([piece, times]) => piece.repeat(times));
const contentArb: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 4, arbitrary: textArb },
  { weight: 1, arbitrary: fc.record({ text: textArb, n: fc.integer() }) },
);

type Block =
  | { kind: 'user'; content: JsonValue; rendered: boolean; newTurn: boolean }
  | { kind: 'system'; content: JsonValue }
  | { kind: 'stray'; content: JsonValue }
  | { kind: 'assistant'; text: string | null; receipts: number; calls: { name: string; args: string; result: JsonValue | undefined }[]; shuffle: boolean };

const blockArb: fc.Arbitrary<Block> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('user' as const), content: contentArb, rendered: fc.boolean(), newTurn: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('system' as const), content: contentArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stray' as const), content: contentArb }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('assistant' as const),
      text: fc.option(textArb, { nil: null }),
      receipts: fc.nat({ max: 3 }),
      calls: fc.array(
        fc.record({
          name: fc.constantFrom('write_file', 'read_file', 'bash', 'ツール'),
          args: textArb,
          result: fc.option(contentArb, { nil: undefined, freq: 6 }),
        }),
        { maxLength: 3 },
      ),
      shuffle: fc.boolean(),
    }),
  },
);

function build(blocks: Block[]): ConversationEntry[] {
  const conversation: ConversationEntry[] = [];
  let turn = 1;
  for (const block of blocks) {
    switch (block.kind) {
      case 'user':
        if (block.newTurn && conversation.length > 0) turn += 1;
        conversation.push({ role: 'user', content: block.content, turn, ...(block.rendered ? { messageId: `m-${conversation.length}`, from: 'alice' } : {}) });
        break;
      case 'system':
        conversation.push({ role: 'system', content: block.content, turn });
        break;
      case 'stray':
        conversation.push({ role: 'tool', toolCallId: 'stray', toolName: 'bash', ok: false, content: block.content, turn });
        break;
      case 'assistant': {
        const calls = block.calls.map((c, i) => call(`call-${i}`, c.name, JSON.stringify({ path: `p${i}`, content: c.args })));
        const receipts: SendOutcome[] = Array.from({ length: block.receipts }, (_, i) => ({
          ok: true,
          acceptance: { messageId: `s-${i}`, to: 'bob', targetPhase: 'active', targetStatus: 'idle' },
        }));
        conversation.push({
          role: 'assistant',
          content: block.text,
          turn,
          ...(calls.length > 0 ? { toolCalls: calls } : {}),
          ...(receipts.length > 0 ? { receipts } : {}),
        });
        const results = block.calls.flatMap((c, i): ConversationEntry[] =>
          c.result === undefined ? [] : [{ role: 'tool', toolCallId: `call-${i}`, toolName: c.name, ok: true, content: c.result, turn }],
        );
        if (block.shuffle) results.reverse();
        conversation.push(...results);
        break;
      }
    }
  }
  return conversation;
}

const conversationArb = fc.array(blockArb, { minLength: 1, maxLength: 25 }).map(build);
/** Enough for the newest block of the generated conversations (three calls with short ids), elided, plus the note. */
const SMALLEST_LIMIT = 4_000;
/** Room that the newest entry's block (elided) and the dropped note take at most in the generated conversations. */
const SLACK = 2_500;

describe('properties', () => {
  test('compactConversation: within the limit, nothing changed when under it, the newest entry kept when it fits, calls paired with results', () => {
    fc.assert(
      fc.property(conversationArb, fc.integer({ min: SMALLEST_LIMIT, max: 300_000 }), (conversation, maxBytes) => {
        const before = JSON.stringify(conversation);
        const out = compactConversation(conversation, maxBytes);
        expect(JSON.stringify(conversation)).toBe(before); // pure
        if (jsonBytes(conversation) <= maxBytes) {
          expect(out).toBe(conversation);
          return;
        }
        expect(jsonBytes(out)).toBeLessThanOrEqual(maxBytes);
        if (jsonBytes(conversation.at(-1)) + SLACK <= maxBytes) expect(out.at(-1)).toBe(conversation.at(-1));
        expectCompactionOf(conversation, out);
        expect(compactConversation(out, maxBytes)).toBe(out); // stable
      }),
      { numRuns: 300 },
    );
  });

  test('fitPrompt: within the limit, nothing changed when under it, the newest message kept when it fits, a valid prompt', () => {
    fc.assert(
      fc.property(conversationArb, fc.integer({ min: SMALLEST_LIMIT, max: 300_000 }), (conversation, maxBytes) => {
        const messages = assemble(conversation);
        const out = fitPrompt(messages, maxBytes);
        if (jsonBytes(messages) <= maxBytes) {
          expect(out).toBe(messages);
          return;
        }
        expect(jsonBytes(out)).toBeLessThanOrEqual(maxBytes);
        if (jsonBytes(messages.at(-1)) + SLACK <= maxBytes) expect(out.at(-1)).toBe(messages.at(-1));
        expectFittingOf(messages, out);
      }),
      { numRuns: 300 },
    );
  });

  test('thousands of short entries: within the limit, whole blocks dropped, still paired', () => {
    const shortArb = fc.array(
      fc.record({
        kind: fc.constantFrom('user', 'assistant', 'calls', 'system'),
        text: fc.string({ unit: 'grapheme', maxLength: 12 }),
        calls: fc.integer({ min: 1, max: 3 }),
      }),
      { minLength: 1, maxLength: 12 },
    );
    fc.assert(
      fc.property(shortArb, fc.integer({ min: 1_000, max: 6_000 }), fc.integer({ min: SMALLEST_LIMIT, max: 100_000 }), (pattern, count, maxBytes) => {
        const conversation: ConversationEntry[] = [];
        for (let i = 0, turn = 1; conversation.length < count; i++) {
          const p = pattern[i % pattern.length]!;
          if (i % pattern.length === 0) turn += 1;
          if (p.kind === 'user') conversation.push({ role: 'user', content: p.text, turn, messageId: `m-${i}`, from: 'lead' });
          else if (p.kind === 'system') conversation.push({ role: 'system', content: { event: p.text }, turn });
          else if (p.kind === 'assistant') conversation.push({ role: 'assistant', content: p.text, turn });
          else {
            const calls = Array.from({ length: p.calls }, (_, k) => call(`call-0-${k}`, 'bash', JSON.stringify({ command: p.text })));
            conversation.push(
              { role: 'assistant', content: null, turn, toolCalls: calls },
              ...calls.map((c): ConversationEntry => ({ role: 'tool', toolCallId: c.id, toolName: 'bash', ok: true, content: p.text, turn })),
            );
          }
        }
        const out = compactConversation(conversation, maxBytes);
        expect(jsonBytes(out)).toBeLessThanOrEqual(maxBytes);
        expectCompactionOf(conversation, out);
        const messages = assemble(conversation);
        const fitted = fitPrompt(messages, maxBytes);
        expect(jsonBytes(fitted)).toBeLessThanOrEqual(maxBytes);
        expectFittingOf(messages, fitted);
      }),
      { numRuns: 25 },
    );
  });

  test('any limit: the result is within it or the failure is ConversationTooLarge', () => {
    fc.assert(
      fc.property(conversationArb, fc.integer({ min: 0, max: 5_000 }), (conversation, maxBytes) => {
        for (const run of [() => compactConversation(conversation, maxBytes), () => fitPrompt(assemble(conversation), maxBytes)]) {
          let out: unknown[] | undefined;
          try {
            out = run();
          } catch (error) {
            expect(error).toBeInstanceOf(ApplicationFailure);
            expect((error as ApplicationFailure).type).toBe(CONVERSATION_TOO_LARGE);
          }
          if (out) expect(jsonBytes(out)).toBeLessThanOrEqual(maxBytes);
        }
      }),
      { numRuns: 300 },
    );
  });
});
