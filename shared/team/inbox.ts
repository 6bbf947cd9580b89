import { SEEN_MAX_BYTES, jsonBytes } from '../contract/limits';
import type { InboxMessage } from '../contract/team';

export interface InboxState {
  pending: InboxMessage[];
  /** Recently recorded message ids, oldest first, bounded by SEEN_WINDOW. */
  seen: string[];
  /** Total messages ever recorded (duplicates excluded). */
  received: number;
  /** Total messages handed to a turn. */
  consumed: number;
}

/** How many message ids are remembered for de-duplication (carried across continue-as-new). */
export const SEEN_WINDOW = 2_048;

export function emptyInbox(): InboxState {
  return { pending: [], seen: [], received: 0, consumed: 0 };
}

export function hasSeen(inbox: InboxState, messageId: string): boolean {
  return inbox.seen.includes(messageId);
}

/** Records a message unless its id was seen before. */
export function receive(inbox: InboxState, message: InboxMessage): { inbox: InboxState; duplicate: boolean } {
  if (hasSeen(inbox, message.messageId)) return { inbox, duplicate: true };
  return {
    inbox: {
      ...inbox,
      pending: [...inbox.pending, message],
      seen: rememberSeen(inbox.seen, message.messageId),
      received: inbox.received + 1,
    },
    duplicate: false,
  };
}

/** Hands every pending message to a turn, in arrival order. */
export function takePending(inbox: InboxState): { inbox: InboxState; messages: InboxMessage[] } {
  return { inbox: { ...inbox, pending: [], consumed: inbox.consumed + inbox.pending.length }, messages: inbox.pending };
}

/**
 * Messages a turn took and no model call saw (an interrupt came between), back at the front of
 * pending in their order, no longer counted as consumed. Their ids stay seen: a retried send is
 * still a duplicate.
 */
export function returnToPending(inbox: InboxState, messages: readonly InboxMessage[]): InboxState {
  if (messages.length === 0) return inbox;
  return { ...inbox, pending: [...messages, ...inbox.pending], consumed: inbox.consumed - messages.length };
}

/** The newest ids, at most SEEN_WINDOW of them and at most SEEN_MAX_BYTES of JSON (they are carried state). */
function rememberSeen(seen: readonly string[], messageId: string): string[] {
  const next = [...seen, messageId];
  let start = Math.max(0, next.length - SEEN_WINDOW);
  let bytes = jsonBytes(next.slice(start));
  while (bytes > SEEN_MAX_BYTES && start < next.length - 1) {
    bytes -= jsonBytes(next[start]) + 1;
    start += 1;
  }
  return start === 0 ? next : next.slice(start);
}
