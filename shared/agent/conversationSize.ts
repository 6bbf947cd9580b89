/**
 * Size limits for conversations, enforced by construction. Every model call's input is recorded in
 * history and a conversation is carried across continue-as-new, returned by queries and seeded into
 * fork teammates' start inputs: each is a Temporal payload (2 MiB at most), so each gets a size limit
 * from shared/contract/limits.ts and is fitted to it here. Sizes are UTF-8 bytes of the JSON encoding of
 * the whole array, every field of every entry included (tool-call arguments, ids, names, receipts).
 *
 * The order is "oldest first, least useful first":
 *  1. contents are elided, in older turns first, then in the current turn except its last entries:
 *     tool results, then tool-call arguments (replaced by `{"elided":N}`, still a JSON object for
 *     prompt assembly and providers), then user messages and runtime notes, then replies (with their
 *     send receipts). A content is elided whenever its note is smaller, however short it is;
 *  2. if every such content is elided and it is still over, whole oldest turns are dropped (then,
 *     if need be, the oldest steps of the current turn but its last entries), and one runtime note
 *     (a system entry, or a "[runtime note]" user message in a prompt) says how many entries and
 *     turns went (counts of an earlier such note are carried into it). The unit dropped is a block:
 *     a non-tool entry with the tool results right after it, the same grouping prompt assembly
 *     pairs calls and results by, so a call never loses its result;
 *  3. then the protected last entries but the newest are elided, oldest first;
 *  4. then every block but the newest is dropped;
 *  5. then the newest entry is elided.
 * If the newest block alone (every content elided) plus the note is still over the limit, which
 * takes thousands of tool calls in one model reply or ids of hundreds of kilobytes, a typed
 * `ConversationTooLarge` failure is thrown: never a result over the limit. The result is measured
 * once more before it is returned.
 *
 * A prompt's leading system message (the policy) is never elided nor dropped. Pure and
 * deterministic (bundled into workflow code). Each entry is measured once and an elision measures
 * only the field it replaces, so a running total keeps it linear in the input's size. Within the
 * limit, the input array itself is returned.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ConversationEntry } from '../contract';
import { CARRIED_CONVERSATION_MAX_BYTES, PAYLOAD_MAX_BYTES, PROMPT_MAX_BYTES, QUERIED_CONVERSATION_MAX_BYTES, jsonBytes, utf8Length } from '../contract/limits';
import type { ChatMessage, ToolCall } from '../contract/model';
import { RUNTIME_NOTE_PREFIX, renderRuntimeNote } from './prompt';

export { CARRIED_CONVERSATION_MAX_BYTES, PROMPT_MAX_BYTES, QUERIED_CONVERSATION_MAX_BYTES };

/** ApplicationFailure type: even the newest entry cannot be fitted to the size limit. */
export const CONVERSATION_TOO_LARGE = 'ConversationTooLarge';
// The notes below are recorded in history inside conversations: their words ("context budget") stay as recorded.
/** `event` of the runtime note that replaces dropped turns. */
export const DROPPED_EVENT = 'earlier conversation dropped to stay within the context budget';

export interface DroppedCounts {
  droppedEntries: number;
  droppedTurns: number;
}

/** What replaces an elided tool result (`bytes`: UTF-8 bytes of the original content). */
export function elisionNote(bytes: number): string {
  return `[elided ${bytes} bytes of an earlier result to stay within the context budget; run the tool again if you need it]`;
}
/** What replaces an elided user message or runtime note. */
export function messageElisionNote(bytes: number): string {
  return `[elided ${bytes} bytes of message content to stay within the context budget]`;
}
/** What replaces an elided reply of the model. */
export function replyElisionNote(bytes: number): string {
  return `[elided ${bytes} bytes of an earlier reply to stay within the context budget]`;
}
/** What replaces elided tool-call arguments: still a JSON object (`bytes`: UTF-8 bytes of the original). */
export function elidedArguments(bytes: number): string {
  return `{"elided":${bytes}}`;
}
/** The content of the note that replaces dropped turns. */
export function droppedNoteContent(counts: DroppedCounts): { event: string; droppedEntries: number; droppedTurns: number } {
  return { event: DROPPED_EVENT, droppedEntries: counts.droppedEntries, droppedTurns: counts.droppedTurns };
}

/** Its message and `details` (whose `budget` field is the limit in bytes) are recorded in history: their words stay as recorded. */
export function conversationTooLargeFailure(what: string, bytes: number, maxBytes: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: CONVERSATION_TOO_LARGE,
    message:
      `${what} cannot be fitted to its ${maxBytes}-byte budget: ` +
      `with every content elided and every earlier turn dropped, its newest entries still take ${bytes} bytes`,
    details: [{ type: CONVERSATION_TOO_LARGE, bytes, budget: maxBytes }],
    nonRetryable: true,
  });
}

// ---- the fitting engine, shared by prompts (chat messages) and conversations (entries) ----------

type Kind = 'result' | 'args' | 'message' | 'reply';
/** Least useful first. */
const KINDS: readonly Kind[] = ['result', 'args', 'message', 'reply'];

/** An item with some content elided, and the exact change of its JSON size in bytes (negative). */
interface Elided<T> {
  item: T;
  delta: number;
}

/** The fields elision reads and replaces: chat messages and conversation entries both have them. */
interface Elidable {
  role: string;
  content: unknown;
  toolCalls?: ToolCall[];
  receipts?: unknown;
}

/** What tells prompts and conversations apart; `elide` (below) is the one elision routine of both. */
interface Shape<T> {
  /** The roles whose contents the 'message' kind elides (user messages and runtime notes). */
  messageRoles: readonly string[];
  /** Tool results belong to the block of the call before them. */
  isToolResult(item: T): boolean;
  /** The counts of an earlier dropped-turns note, merged into the new one when it is dropped. */
  droppedCounts(item: T): DroppedCounts | null;
  note(counts: DroppedCounts, firstKept: T | undefined): T;
}

interface Plan {
  /** Leading items never elided nor dropped (a prompt's system message). */
  pinned: number;
  /** The last items are elided only after everything older, and never dropped with the rest. */
  keepLast: number;
  turns: readonly number[];
  currentTurn: number;
  /** For the failure message. */
  what: string;
}

const arrayBytes = (itemBytes: number, count: number): number => 2 + itemBytes + Math.max(0, count - 1);

function fit<T extends Elidable>(items: T[], maxBytes: number, shape: Shape<T>, plan: Plan): T[] {
  const n = items.length;
  const sizes = items.map((item) => jsonBytes(item));
  let sum = sizes.reduce((a, b) => a + b, 0);
  if (arrayBytes(sum, n) <= maxBytes) return items;

  const out = items.slice();
  const pinned = Math.min(plan.pinned, n);
  const protectedFrom = Math.max(pinned, n - Math.max(1, plan.keepLast));
  let count = n;
  let dropEnd = pinned; // out[pinned, dropEnd) are dropped
  const dropped: DroppedCounts = { droppedEntries: 0, droppedTurns: 0 };
  let lastDroppedTurn: number | undefined;
  let noteBytes = 0;
  let noteStale = false;
  const total = (): number => {
    if (dropEnd === pinned) return arrayBytes(sum, count);
    if (noteStale) {
      noteBytes = jsonBytes(shape.note(dropped, out[dropEnd]));
      noteStale = false;
    }
    return arrayBytes(sum + noteBytes, count + 1);
  };
  // Without its note, a conversation that does not fit will not fit with it: the note is measured only when it matters.
  const fits = (): boolean => (dropEnd === pinned || arrayBytes(sum, count + 1) <= maxBytes) && total() <= maxBytes;

  const tryElide = (i: number, kind: Kind): void => {
    const elided = elide(out[i]!, kind, shape);
    if (elided === null || elided.delta >= 0) return;
    sum += elided.delta;
    sizes[i]! += elided.delta;
    out[i] = elided.item;
  };
  /** The end of the block starting at `start`: the tool results after it belong to it. */
  const blockEnd = (start: number): number => {
    let j = start + 1;
    while (j < n && shape.isToolResult(out[j]!)) j++;
    return j;
  };
  const dropTo = (end: number): void => {
    for (let j = dropEnd; j < end; j++) {
      const prior = shape.droppedCounts(out[j]!);
      if (prior) {
        dropped.droppedEntries += prior.droppedEntries;
        dropped.droppedTurns += prior.droppedTurns;
      } else {
        dropped.droppedEntries += 1;
        if (plan.turns[j] !== lastDroppedTurn) dropped.droppedTurns += 1;
        lastDroppedTurn = plan.turns[j];
      }
      sum -= sizes[j]!;
      count -= 1;
    }
    dropEnd = end;
    noteStale = true;
  };

  // 1. Elide: older turns, then the current turn but its last entries; least useful kind first, oldest first.
  for (const old of [true, false]) {
    for (const kind of KINDS) {
      for (let i = pinned; i < protectedFrom && !fits(); i++) if (plan.turns[i]! < plan.currentTurn === old) tryElide(i, kind);
    }
  }
  // 2. Drop whole oldest turns, block by block, never a block holding a protected entry.
  while (dropEnd < protectedFrom) {
    const end = blockEnd(dropEnd);
    if (end > protectedFrom) break;
    const turn = plan.turns[dropEnd]!;
    const finishingOlderTurn = turn === lastDroppedTurn && turn < plan.currentTurn;
    if (fits() && !finishingOlderTurn) break;
    dropTo(end);
  }
  const elideAll = (i: number): void => {
    for (const kind of KINDS) if (!fits()) tryElide(i, kind);
  };
  // 3. Elide the protected entries but the newest, oldest first.
  for (let i = Math.max(dropEnd, protectedFrom); i < n - 1 && !fits(); i++) elideAll(i);
  // 4. Drop every block but the newest.
  let lastStart = n - 1;
  while (lastStart > dropEnd && shape.isToolResult(out[lastStart]!)) lastStart--;
  while (!fits() && dropEnd < lastStart) dropTo(blockEnd(dropEnd));
  // 5. Elide the newest entry.
  if (n > pinned) elideAll(n - 1);

  if (!fits()) throw conversationTooLargeFailure(plan.what, total(), maxBytes);
  const result = dropEnd > pinned ? [...out.slice(0, pinned), shape.note(dropped, out[dropEnd]), ...out.slice(dropEnd)] : out;
  // The running total is exact; measure the result once more anyway: a bound is never assumed.
  const measured = jsonBytes(result);
  if (measured > maxBytes) throw conversationTooLargeFailure(plan.what, measured, maxBytes);
  return result;
}

// Elisions replace (or remove) one field's value, so the size change is the difference of the
// values' JSON sizes: an entry is never re-serialized whole.

/** The replacement for a field value and the change of its JSON size, or null when it would not shrink. */
function replaceValue(value: unknown, replacement: (bytes: number) => string): { value: string; delta: number } | null {
  if (value === undefined || value === null) return null; // an absent key would grow; null says nothing worth eliding
  const encoded = jsonBytes(value);
  const next = replacement(typeof value === 'string' ? utf8Length(value) : encoded);
  const delta = jsonBytes(next) - encoded;
  return delta < 0 ? { value: next, delta } : null;
}

function elideContent<T extends { content: unknown }>(item: T, note: (bytes: number) => string): Elided<T> | null {
  const replaced = replaceValue(item.content, note);
  return replaced ? { item: { ...item, content: replaced.value }, delta: replaced.delta } : null;
}

function elideArguments(calls: readonly ToolCall[]): Elided<ToolCall[]> | null {
  let delta = 0;
  const out = calls.map((call) => {
    const replaced = replaceValue(call.argumentsJson, elidedArguments);
    if (!replaced) return call;
    delta += replaced.delta;
    return { ...call, argumentsJson: replaced.value };
  });
  return delta < 0 ? { item: out, delta } : null;
}

function isDroppedCounts(value: unknown): value is DroppedCounts & { event: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return v.event === DROPPED_EVENT && Number.isSafeInteger(v.droppedEntries) && Number.isSafeInteger(v.droppedTurns);
}

/** Removes `receipts` (a reply's send receipts): its key, colon, value and one comma (`role` is always there too). */
function withoutReceipts<T extends Elidable>(elided: Elided<T>): Elided<T> {
  const { receipts, ...rest } = elided.item;
  if (receipts === undefined) return elided;
  // `receipts` is optional in every shape, so the item without it is still a T.
  return { item: rest as T, delta: elided.delta - (jsonBytes('receipts') + 1 + jsonBytes(receipts) + 1) };
}

/** The item with this kind of content elided, or null when the kind does not apply or saves nothing. */
function elide<T extends Elidable>(item: T, kind: Kind, shape: Shape<T>): Elided<T> | null {
  switch (kind) {
    case 'result':
      return item.role === 'tool' ? elideContent(item, elisionNote) : null;
    case 'args': {
      if (item.role !== 'assistant' || !item.toolCalls || item.toolCalls.length === 0) return null;
      const toolCalls = elideArguments(item.toolCalls);
      return toolCalls ? { item: { ...item, toolCalls: toolCalls.item }, delta: toolCalls.delta } : null;
    }
    case 'message':
    case 'reply': {
      // A dropped-turns note is kept as it is: it is small, and a later compaction merges its counts.
      const applies = kind === 'message' ? shape.messageRoles.includes(item.role) && shape.droppedCounts(item) === null : item.role === 'assistant';
      if (!applies) return null;
      // Receipts (a reply's send receipts) go with the text, even when the text is too short (or null) to shrink.
      const elided = withoutReceipts(elideContent(item, kind === 'message' ? messageElisionNote : replyElisionNote) ?? { item, delta: 0 });
      return elided.delta < 0 ? elided : null;
    }
  }
}

// ---- conversations ------------------------------------------------------------------------------

const entryShape: Shape<ConversationEntry> = {
  // Runtime notes are system entries here.
  messageRoles: ['user', 'system'],
  isToolResult: (entry) => entry.role === 'tool',
  droppedCounts: (entry) => (entry.role === 'system' && isDroppedCounts(entry.content) ? entry.content : null),
  note: (counts, firstKept) => ({ role: 'system', content: droppedNoteContent(counts), turn: firstKept?.turn ?? 0 }),
};

/**
 * A conversation within `maxBytes` bytes (carried across continue-as-new, returned by queries,
 * seeded into forks): see the module comment for the order. The current turn is the highest turn
 * number; its last `keepLast` entries are elided only after everything older.
 */
export function compactConversation(conversation: ConversationEntry[], maxBytes: number = CARRIED_CONVERSATION_MAX_BYTES, keepLast = 2): ConversationEntry[] {
  const turns = conversation.map((e) => e.turn);
  const currentTurn = turns.reduce((max, t) => (t > max ? t : max), -Infinity);
  return fit(conversation, maxBytes, entryShape, { pinned: 0, keepLast, turns, currentTurn, what: 'the conversation' });
}

// ---- prompts ------------------------------------------------------------------------------------

const DROPPED_NOTE_START = `${RUNTIME_NOTE_PREFIX}{"event":${JSON.stringify(DROPPED_EVENT)}`;

const messageShape: Shape<ChatMessage> = {
  // Runtime notes are user messages in a prompt (renderRuntimeNote); a system message is the
  // policy, which is pinned when it leads and is never elided anywhere else either.
  messageRoles: ['user'],
  isToolResult: (message) => message.role === 'tool',
  droppedCounts(message) {
    if (message.role !== 'user' || !message.content.startsWith(DROPPED_NOTE_START)) return null;
    try {
      const parsed: unknown = JSON.parse(message.content.slice(RUNTIME_NOTE_PREFIX.length));
      return isDroppedCounts(parsed) ? parsed : null;
    } catch {
      return null;
    }
  },
  note: (counts) => ({ role: 'user', content: renderRuntimeNote(droppedNoteContent(counts)) }),
};

/**
 * The chat messages of one model call within `maxBytes` bytes: see the module comment for the
 * order. A leading system message (the policy) is kept whole; a turn starts at each user message
 * that is not a runtime note; the last `keepLast` messages are elided only after everything older.
 */
export function fitPrompt(messages: ChatMessage[], maxBytes: number = PROMPT_MAX_BYTES, keepLast = 1): ChatMessage[] {
  let turn = 0;
  const turns = messages.map((m) => (m.role === 'user' && !m.content.startsWith(RUNTIME_NOTE_PREFIX) ? ++turn : turn));
  const pinned = messages[0]?.role === 'system' ? 1 : 0;
  return fit(messages, maxBytes, messageShape, { pinned, keepLast, turns, currentTurn: turn, what: 'the model call input' });
}

/**
 * compactConversation for places that must not fail (continue-as-new, queries): if not even the
 * newest entry fits, the whole conversation is replaced by one runtime note saying so, rather
 * than a workflow failure. The turn that produced such an entry has already failed on its own.
 */
export function compactConversationOrDrop(conversation: ConversationEntry[], maxBytes: number = CARRIED_CONVERSATION_MAX_BYTES): ConversationEntry[] {
  try {
    return compactConversation(conversation, maxBytes);
  } catch (error) {
    if (!(error instanceof ApplicationFailure) || error.type !== CONVERSATION_TOO_LARGE) throw error;
    const turn = conversation.reduce((max, e) => Math.max(max, e.turn), 0);
    return [{ role: 'system', content: droppedNoteContent({ droppedEntries: conversation.length, droppedTurns: turn }), turn }];
  }
}

/** The least conversation a rollover keeps (the fixed parts of any carried state leave far more room). */
export const MIN_CARRIED_CONVERSATION_BYTES = 100_000;

/**
 * A continue-as-new input within the payload limit: `build` makes it with its conversation
 * compacted to a given size (default: CARRIED_CONVERSATION_MAX_BYTES). It is measured; if it were over, it
 * is built again with the conversation given only the room the rest leaves (`onOver` is told).
 */
export function carriedWithinPayloadLimit<T>(build: (conversationMaxBytes?: number) => T, onOver?: (bytes: number) => void): T {
  const first = build();
  const bytes = jsonBytes(first);
  if (bytes <= PAYLOAD_MAX_BYTES) return first;
  onOver?.(bytes);
  return build(Math.max(MIN_CARRIED_CONVERSATION_BYTES, CARRIED_CONVERSATION_MAX_BYTES - (bytes - PAYLOAD_MAX_BYTES)));
}
