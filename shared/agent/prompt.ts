/**
 * Prompt assembly: a session's durable conversation becomes the chat messages of the next model
 * call. Pure and deterministic (workflow code calls it), so replay rebuilds the same prompt.
 * Nothing a member, the operator or a tool wrote can start a line of its own: a message is a header
 * and its content as one line of JSON (shared/agent/transcript.ts), and a tool result or a runtime
 * note is one line (inertLine), so no content reads as a header, a runtime note or a tool result.
 */
import type { ConversationEntry } from '../contract';
import type { ChatMessage, ToolCall } from '../contract/model';
import { inertJson, inertLine, renderInboxMessage } from './transcript';

export interface PromptInput {
  /** The shared policy plus the runtime's identity block. */
  system: string;
  conversation: readonly ConversationEntry[];
  /** The session's own Team. Team records of any other (ancestor) Team are left out: a fork of a root keeps its history, not its ancestor's Team. */
  teamId: string;
}

/** What a call the model made and never saw answered (an interrupted turn) is told. */
export const INTERRUPTED_CALL_RESULT = JSON.stringify({
  error: 'Interrupted',
  message: 'this call did not finish: the turn was interrupted or failed; check the state again before retrying',
});

function text(content: ConversationEntry['content']): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** How a runtime note (a system entry) reaches the model: user text with this prefix. */
export const RUNTIME_NOTE_PREFIX = '[runtime note] ';

export function renderRuntimeNote(content: ConversationEntry['content']): string {
  return `${RUNTIME_NOTE_PREFIX}${inertLine(text(content))}`;
}

export function isForeignTeamRecord(entry: ConversationEntry, teamId: string): boolean {
  return entry.teamId !== undefined && entry.teamId !== teamId;
}

export function assemblePrompt(input: PromptInput): ChatMessage[] {
  const all = input.conversation;
  const messages: ChatMessage[] = [{ role: 'system', content: input.system }];
  for (let i = 0; i < all.length; i++) {
    const entry = all[i]!;
    if (entry.role === 'tool') continue; // emitted with the assistant entry that called it
    if (isForeignTeamRecord(entry, input.teamId) && entry.role !== 'assistant') continue;
    switch (entry.role) {
      case 'user':
        messages.push({
          role: 'user',
          // Without an id and a sender (no inbox message makes one) the content alone, as one line of JSON.
          content:
            entry.messageId && entry.from
              ? renderInboxMessage({ messageId: entry.messageId, from: entry.from, content: entry.content })
              : inertJson(entry.content),
        });
        break;
      case 'assistant': {
        // Its results are the tool entries right after it (ids may repeat across turns, so match by position).
        const results: ConversationEntry[] = [];
        for (let j = i + 1; j < all.length && all[j]!.role === 'tool'; j++) results.push(all[j]!);
        const resultOf = (call: ToolCall): ConversationEntry | undefined => results.find((r) => r.toolCallId === call.id);
        // A fork of a root drops the ancestor Team's records: those calls go with their results.
        const calls = (entry.toolCalls ?? []).filter((call) => {
          const result = resultOf(call);
          return !(result ? isForeignTeamRecord(result, input.teamId) : isForeignTeamRecord(entry, input.teamId));
        });
        const content = entry.content === null ? null : text(entry.content);
        if (calls.length === 0 && (content === null || content === '')) break;
        if (calls.length === 0) {
          messages.push({ role: 'assistant', content });
          break;
        }
        messages.push({ role: 'assistant', content, toolCalls: calls });
        // Every call must be followed by its result; calls cut short by an interrupt get one.
        for (const call of calls)
          messages.push({ role: 'tool', toolCallId: call.id, content: resultOf(call) ? inertLine(text(resultOf(call)!.content)) : INTERRUPTED_CALL_RESULT });
        break;
      }
      case 'system':
        // Runtime notes mid-conversation go as user text: not every provider accepts late system messages.
        messages.push({ role: 'user', content: renderRuntimeNote(entry.content) });
        break;
      default: {
        const _never: never = entry.role;
        throw new TypeError(`unknown conversation role ${String(_never)}`);
      }
    }
  }
  return messages;
}

/** The completed-turn prefix a fork child captures: every entry of turns before the current one. */
export function completedTurnPrefix(conversation: readonly ConversationEntry[], currentTurn: number | null): ConversationEntry[] {
  return currentTurn === null ? [...conversation] : conversation.filter((e) => e.turn < currentTurn);
}
