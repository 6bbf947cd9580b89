/**
 * Prompt assembly: a session's durable conversation becomes the chat messages of the next model
 * call. Pure and deterministic (workflow code calls it), so replay rebuilds the same prompt.
 */
import type { ConversationEntry } from '../definitions';
import type { ChatMessage, ToolCall } from '../model';
import { renderInboxMessage } from './transcript';

export interface PromptInput {
  /** The shared policy plus the runtime's identity block. */
  system: string;
  conversation: readonly ConversationEntry[];
  /** The session's own Team. Team records of any other (ancestor) Team are left out: a fork of a root keeps its history, not its ancestor's Team. */
  teamId: string;
}

/** What a call the model made and never saw answered (an interrupted turn) is told. */
export const INTERRUPTED_CALL_RESULT = JSON.stringify({ error: 'Interrupted', message: 'this call did not finish: the turn was interrupted or failed; check the state again before retrying' });

function text(content: ConversationEntry['content']): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

export function isForeignTeamRecord(entry: ConversationEntry, teamId: string): boolean {
  return entry.teamId !== undefined && entry.teamId !== teamId;
}

export function assemblePrompt(input: PromptInput): ChatMessage[] {
  const entries = input.conversation.filter((e) => !isForeignTeamRecord(e, input.teamId));
  const answered = new Set(entries.filter((e) => e.role === 'tool').map((e) => e.toolCallId));
  // Tool calls whose results were dropped with a foreign Team's records are dropped too.
  const dropped = new Set(input.conversation.filter((e) => e.role === 'tool' && isForeignTeamRecord(e, input.teamId)).map((e) => e.toolCallId));
  const messages: ChatMessage[] = [{ role: 'system', content: input.system }];
  let open: ToolCall[] = [];
  const closeOpenCalls = (): void => {
    // Every tool call must be followed by its result; calls cut short by an interrupt get one.
    for (const call of open) if (!answered.has(call.id)) messages.push({ role: 'tool', toolCallId: call.id, content: INTERRUPTED_CALL_RESULT });
    open = [];
  };
  for (const entry of entries) {
    if (entry.role !== 'tool') closeOpenCalls();
    switch (entry.role) {
      case 'user':
        messages.push({ role: 'user', content: entry.messageId && entry.from ? renderInboxMessage({ messageId: entry.messageId, from: entry.from, content: entry.content }) : text(entry.content) });
        break;
      case 'assistant': {
        const calls = (entry.toolCalls ?? []).filter((c) => !dropped.has(c.id));
        const content = entry.content === null ? null : text(entry.content);
        if (calls.length === 0 && (content === null || content === '')) break;
        messages.push(calls.length > 0 ? { role: 'assistant', content, toolCalls: calls } : { role: 'assistant', content });
        open = calls;
        break;
      }
      case 'tool':
        if (entry.toolCallId) messages.push({ role: 'tool', toolCallId: entry.toolCallId, content: text(entry.content) });
        break;
      case 'system':
        // Runtime notes mid-conversation go as user text: not every provider accepts late system messages.
        messages.push({ role: 'user', content: `[runtime note] ${text(entry.content)}` });
        break;
      default: {
        const _never: never = entry.role;
        throw new TypeError(`unknown conversation role ${String(_never)}`);
      }
    }
  }
  closeOpenCalls();
  return messages;
}

/** The completed-turn prefix a fork child captures: every entry of turns before the current one. */
export function completedTurnPrefix(conversation: readonly ConversationEntry[], currentTurn: number | null): ConversationEntry[] {
  return currentTurn === null ? [...conversation] : conversation.filter((e) => e.turn < currentTurn);
}
