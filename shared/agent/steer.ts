/**
 * Steer: a running turn takes the messages that arrived while it ran at its next step boundary
 * (after the current model call or tool batch, before the next model call), as user entries in
 * the same format a turn's opening messages have. Pure: the workflows (a session's, the Lead's)
 * keep the inbox and conversation and call these.
 */
import type { ConversationEntry, InboxMessage } from '../contract';
import type { InboxState } from '../team/inbox';
import { returnToPending, takePending } from '../team/inbox';

/** How an inbox message is recorded in a conversation; `teamId` marks it a record of that Team (a fork of a root drops it). */
export function inboxEntry(message: InboxMessage, turn: number, teamId?: string): ConversationEntry {
  return {
    role: 'user',
    messageId: message.messageId,
    from: message.from,
    content: message.content,
    turn,
    ...(teamId !== undefined ? { teamId } : {}),
  };
}

export interface SteerTake {
  inbox: InboxState;
  /** The messages taken, in arrival order; each is appended to the conversation once. */
  messages: InboxMessage[];
  entries: ConversationEntry[];
}

/** Everything pending, taken into the running turn: the new inbox (nothing pending) and the user entries to append. */
export function takeAtStepBoundary(inbox: InboxState, turn: number, teamIdOf: (m: InboxMessage) => string | undefined): SteerTake {
  const taken = takePending(inbox);
  return { ...taken, entries: taken.messages.map((m) => inboxEntry(m, turn, teamIdOf(m))) };
}

/**
 * The messages of the latest take that no completed model call has seen: their entries are still
 * the conversation's tail (a model call that completes appends its assistant entry after them).
 */
export function unansweredTake(conversation: readonly ConversationEntry[], taken: readonly InboxMessage[]): InboxMessage[] {
  if (taken.length === 0 || conversation.length < taken.length) return [];
  const tail = conversation.slice(conversation.length - taken.length);
  const isTail = tail.every((entry, i) => entry.role === 'user' && entry.messageId === taken[i]!.messageId);
  return isTail ? [...taken] : [];
}

/**
 * A turn cut short (an interrupt) between a take and the model call that would have seen it: the
 * unanswered messages leave the conversation's tail and go back to the front of the inbox, so the
 * next turn takes them as its opening messages. Each stays in exactly one place: the conversation
 * or the pending list. Returns the same values when nothing is unanswered.
 */
export function withdrawUnanswered(
  conversation: readonly ConversationEntry[],
  inbox: InboxState,
  taken: readonly InboxMessage[],
): { conversation: ConversationEntry[]; inbox: InboxState; returned: InboxMessage[] } {
  const returned = unansweredTake(conversation, taken);
  if (returned.length === 0) return { conversation: [...conversation], inbox, returned };
  return { conversation: conversation.slice(0, conversation.length - returned.length), inbox: returnToPending(inbox, returned), returned };
}
