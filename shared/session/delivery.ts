/**
 * The structural check of a delivered message, as a session's inbox (and a workflow input's
 * initial message) takes it: untrusted, so inspected field by field and never rebuilt (an own
 * `__proto__` key in the content survives).
 */
import { jsonProblem } from '../contract/json';
import { MAX_ID_LENGTH, MAX_MESSAGE_BYTES, jsonBytes } from '../contract/limits';
import { MAX_MEMBER_NAME_LENGTH } from '../contract/callers';

/** Structural check of a delivery envelope; the content is inspected, never rebuilt. */
export function deliveryProblem(message: unknown): string | null {
  if (typeof message !== 'object' || message === null) return 'a delivery must be an object';
  const m = message as Record<string, unknown>;
  const field = (key: string): unknown => Object.getOwnPropertyDescriptor(m, key)?.value;
  const messageId = field('messageId');
  const from = field('from');
  const sentAt = field('sentAt');
  const relaySeq = field('relaySeq');
  if (typeof messageId !== 'string' || messageId.length === 0 || messageId.length > MAX_ID_LENGTH)
    return `messageId must be a string of 1-${MAX_ID_LENGTH} characters`;
  if (typeof from !== 'string' || from.length === 0 || from.length > MAX_MEMBER_NAME_LENGTH) return 'from must name the sender';
  if (typeof sentAt !== 'string' || sentAt.length > 64) return 'sentAt must be a timestamp';
  if (relaySeq !== undefined && !(Number.isSafeInteger(relaySeq) && (relaySeq as number) > 0)) return 'relaySeq must be a positive integer';
  const content: unknown = field('content');
  const problem = jsonProblem(content);
  if (problem) return problem;
  const bytes = jsonBytes(content);
  return bytes > MAX_MESSAGE_BYTES ? `content is ${bytes} bytes, over the ${MAX_MESSAGE_BYTES}-byte message limit` : null;
}

export function relaySeqOf(message: unknown): number | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const value: unknown = Object.getOwnPropertyDescriptor(message, 'relaySeq')?.value;
  return Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : undefined;
}
