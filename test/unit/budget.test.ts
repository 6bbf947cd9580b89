import { compactConversation, elisionNote, fitPrompt } from '../../shared/agent/budget';
import type { ConversationEntry } from '../../shared/definitions';
import type { ChatMessage } from '../../shared/model';

const big = (n: number, c = 'x'): string => c.repeat(n);

test('a prompt within budget is returned as is', () => {
  const messages: ChatMessage[] = [{ role: 'system', content: 'policy' }, { role: 'user', content: 'hi' }];
  expect(fitPrompt(messages, 1_000)).toBe(messages);
});

test('the oldest long tool results are elided first, then user messages; the system message and the last message stay', () => {
  const messages: ChatMessage[] = [
    { role: 'system', content: big(500, 's') },
    { role: 'user', content: big(2_000, 'u') },
    { role: 'assistant', content: null, toolCalls: [{ id: 'a', name: 'read_file', argumentsJson: '{}' }] },
    { role: 'tool', toolCallId: 'a', content: big(3_000, 'a') },
    { role: 'assistant', content: null, toolCalls: [{ id: 'b', name: 'read_file', argumentsJson: '{}' }] },
    { role: 'tool', toolCallId: 'b', content: big(3_000, 'b') },
  ];
  const fitted = fitPrompt(messages, 6_000);
  expect(fitted[0]).toEqual(messages[0]);
  expect(fitted[3]).toEqual({ role: 'tool', toolCallId: 'a', content: elisionNote(3_000) });
  expect(fitted[5]).toEqual(messages[5]); // the newest result is kept whole
  expect(fitted[1]).toEqual(messages[1]); // enough was saved without touching the prompt
  const tighter = fitPrompt(messages, 4_000);
  expect(tighter[1]).toEqual({ role: 'user', content: elisionNote(2_000) });
  expect(messages[3]!.content).toHaveLength(3_000); // the input is not modified
  // Tool calls still pair with their results after elision.
  expect(tighter.filter((m) => m.role === 'tool').map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(['a', 'b']);
});

test('a carried conversation is compacted from older turns and keeps the latest turn whole', () => {
  const conversation: ConversationEntry[] = [
    { role: 'user', content: big(5_000), turn: 1, messageId: 'm1', from: 'lead' },
    { role: 'tool', content: big(8_000), turn: 1, toolCallId: 'c', toolName: 'read_file', ok: true },
    { role: 'assistant', content: 'short', turn: 1 },
    { role: 'tool', content: big(8_000), turn: 2, toolCallId: 'd', toolName: 'read_file', ok: true },
  ];
  const compacted = compactConversation(conversation, 14_000);
  expect(compacted[1]!.content).toBe(elisionNote(8_000)); // the oldest long tool result goes first
  expect(compacted[0]).toEqual(conversation[0]);
  expect(compacted[3]).toEqual(conversation[3]);
  expect(compactConversation(conversation, 1_000_000)).toBe(conversation);
});

test('when the latest turn alone is over budget, its older long tool results are elided too, never its last two entries', () => {
  const conversation: ConversationEntry[] = Array.from({ length: 6 }, (_, i) => ({ role: 'tool' as const, content: big(1_000), turn: 1, toolCallId: `c${i}`, toolName: 'read_file', ok: true }));
  const compacted = compactConversation(conversation, 3_500);
  expect(compacted.slice(-2)).toEqual(conversation.slice(-2));
  expect(compacted.filter((e) => typeof e.content === 'string' && e.content.startsWith('[elided')).length).toBeGreaterThan(0);
  expect(JSON.stringify(compacted).length).toBeLessThanOrEqual(3_500);
});
