/**
 * Size budgets for conversations. Temporal payloads are limited (2 MB per payload by default) and
 * every model call's input is recorded in history, so neither the prompt sent to a model nor the
 * conversation carried across continue-as-new may grow without bound. Old tool results and long
 * old messages are elided first — oldest first, never the current turn — with a note telling the
 * model how to get the content back. Pure and deterministic.
 */
import type { ConversationEntry } from '../definitions';
import type { ChatMessage } from '../model';

/** Upper bound on the chat messages of one model call (UTF-16 length as a byte estimate). */
export const PROMPT_BUDGET = 400_000;
/** Upper bound on a conversation carried across continue-as-new. */
export const CARRIED_CONVERSATION_BUDGET = 1_000_000;
/** Contents shorter than this are never elided: they cost little and carry the thread. */
const KEEP_BELOW = 400;

export function elisionNote(length: number): string {
  return `[elided ${length} characters of an earlier result to stay within the context budget; run the tool again if you need it]`;
}

const sizeOf = (value: unknown): number => (typeof value === 'string' ? value.length : JSON.stringify(value)?.length ?? 0);

/** Elides the oldest long tool results, then the oldest long user messages, until the prompt fits. The last `keepLast` messages stay whole. */
export function fitPrompt(messages: ChatMessage[], budget: number = PROMPT_BUDGET, keepLast = 1): ChatMessage[] {
  let total = messages.reduce((sum, m) => sum + sizeOf(m.content) + ('toolCalls' in m ? sizeOf(m.toolCalls) : 0), 0);
  if (total <= budget) return messages;
  const out = [...messages];
  const cutoff = out.length - keepLast;
  for (const role of ['tool', 'user'] as const) {
    for (let i = 1; i < cutoff && total > budget; i++) {
      const m = out[i]!;
      if (m.role !== role || m.content.length < KEEP_BELOW) continue;
      const note = elisionNote(m.content.length);
      total -= m.content.length - note.length;
      out[i] = { ...m, content: note };
    }
  }
  return out;
}

/**
 * A conversation that fits `budget` (carried across continue-as-new, returned by queries, seeded
 * into forks): long contents of older turns are elided first (tool results, then messages, then
 * replies), then long tool results of the latest turn except its last two entries.
 */
export function compactConversation(conversation: ConversationEntry[], budget: number = CARRIED_CONVERSATION_BUDGET): ConversationEntry[] {
  let total = sizeOf(conversation);
  if (total <= budget) return conversation;
  const lastTurn = conversation.reduce((max, e) => Math.max(max, e.turn), 0);
  const out = [...conversation];
  const passes: ((e: ConversationEntry, i: number) => boolean)[] = [
    (e) => e.role === 'tool' && e.turn < lastTurn,
    (e) => e.role === 'user' && e.turn < lastTurn,
    (e) => e.role === 'assistant' && e.turn < lastTurn,
    (e, i) => e.role === 'tool' && i < out.length - 2,
  ];
  for (const eligible of passes) {
    for (let i = 0; i < out.length && total > budget; i++) {
      const e = out[i]!;
      const size = sizeOf(e.content);
      if (!eligible(e, i) || size < KEEP_BELOW) continue;
      const note = elisionNote(size);
      total -= size - note.length;
      out[i] = { ...e, content: note };
    }
  }
  return out;
}
