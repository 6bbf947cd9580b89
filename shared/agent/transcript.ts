/**
 * How inbox messages appear to a model: one user chat message per inbox message, a one-line header
 * naming the message id and the runtime-attributed sender, then the content (text as is, any other
 * JSON compact). The scripted model parses the same format back, so both live here. Pure.
 */
import type { JsonValue } from '../contract/json';

const HEADER = /^\[message (\S+) from (\S+)\]\n/;

export function renderInboxMessage(message: { messageId: string; from: string; content: JsonValue }): string {
  const body = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  return `[message ${message.messageId} from ${message.from}]\n${body}`;
}

export interface ParsedInboxMessage {
  messageId: string;
  from: string;
  /** The JSON value when the body parses as JSON, else the body text. */
  content: unknown;
}

/** The inverse of renderInboxMessage; null for any other text (e.g. a runtime note). */
export function parseRenderedInboxMessage(text: string): ParsedInboxMessage | null {
  const match = HEADER.exec(text);
  if (!match) return null;
  const body = text.slice(match[0].length);
  let content: unknown = body;
  try {
    content = JSON.parse(body);
  } catch {
    // plain text content
  }
  return { messageId: match[1]!, from: match[2]!, content };
}
