/**
 * How inbox messages appear to a model: one user chat message per inbox message, a one-line header
 * naming the message id and the runtime-attributed sender, then the content on the next line as
 * one JSON value (text as a JSON string, any other JSON compact):
 *
 *   [message m-7 from alice]
 *   "text as written by alice,\nits line breaks escaped"
 *
 * The body is never a second line of its own: JSON escapes every C0 control (line feed, CR, VT, FF,
 * NUL, the separators U+001C to U+001E) and inertJson escapes the Unicode line breaks JSON leaves
 * as they are (U+0085, U+2028, U+2029), so whatever a sender writes, even a copy of a header, stays
 * inside the one line after the real header, between quotes, and can never start a line that reads
 * as a header, a runtime note or a tool result. The header's fields are runtime-attributed; one
 * that is not plain printable ASCII is a JSON string too. The scripted model parses the same format
 * back, so both live here. Pure.
 */
import type { JsonValue } from '../contract/json';

/** Line breaks JSON.stringify leaves unescaped: any of them could end a line for a reader, a tokenizer or an editor. */
const UNICODE_LINE_BREAKS = /[\u0085\u2028\u2029]/g;
/** The C0 controls that end a line: JSON.stringify escapes them (and every other C0 control). */
// eslint-disable-next-line no-control-regex
const C0_LINE_BREAK = /[\n\v\f\r\u001c-\u001e]/;
/** Every character a reader may take as the end of a line: neither a header nor a rendered body ever holds one. */
// eslint-disable-next-line no-control-regex
export const LINE_BREAK = /[\n\v\f\r\u001c-\u001e\u0085\u2028\u2029]/;

function escapeUnicodeLineBreaks(json: string): string {
  return json.replace(UNICODE_LINE_BREAKS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Compact JSON on one line: JSON.stringify, with U+0085, U+2028 and U+2029 escaped as well. Those
 * can only stand inside JSON strings (JSON's own syntax is ASCII), where `\uXXXX` is the same
 * character, so the text parses to exactly the same value.
 */
export function inertJson(value: unknown): string {
  const json: string | undefined = JSON.stringify(value);
  return escapeUnicodeLineBreaks(json ?? 'null');
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A tool result or a runtime note on one line. Text without a line break (every tool result is
 * compact JSON) stays as it is; JSON whose strings hold a Unicode line break (the only place one can
 * stand in JSON) gets it escaped, the same value; any other text becomes one JSON string.
 */
export function inertLine(text: string): string {
  if (!LINE_BREAK.test(text)) return text;
  if (!C0_LINE_BREAK.test(text) && isJson(text)) return escapeUnicodeLineBreaks(text);
  return inertJson(text);
}

/** A header field (message id, sender) as written when it is plain printable ASCII without quotes, brackets or backslashes, else as a JSON string. */
const BARE_FIELD = /^[\x21\x23-\x5a\x5e-\x7e]+$/;
function headerField(value: string): string {
  return BARE_FIELD.test(value) ? value : inertJson(value);
}

/** A header field as rendered: a JSON string (no raw line break), or anything without white space (also the earlier, unquoted form). */
const FIELD = String.raw`("(?:[^"\\\n\r]|\\.)*"|\S+)`;
const HEADER = new RegExp(String.raw`^\[message ${FIELD} from ${FIELD}\]\n`);

function parseField(field: string): string {
  if (!field.startsWith('"')) return field;
  try {
    const value: unknown = JSON.parse(field);
    return typeof value === 'string' ? value : field;
  } catch {
    return field;
  }
}

export function renderInboxMessage(message: { messageId: string; from: string; content: JsonValue }): string {
  return `[message ${headerField(message.messageId)} from ${headerField(message.from)}]\n${inertJson(message.content)}`;
}

export interface ParsedInboxMessage {
  messageId: string;
  from: string;
  /** The JSON value of the body; the body text itself when it is not JSON (a message rendered before bodies were JSON). */
  content: unknown;
}

/** The inverse of renderInboxMessage (and of its earlier form, whose body was the text as is); null for any other text (e.g. a runtime note). */
export function parseRenderedInboxMessage(text: string): ParsedInboxMessage | null {
  const match = HEADER.exec(text);
  if (!match) return null;
  const body = text.slice(match[0].length);
  let content: unknown = body;
  try {
    content = JSON.parse(body);
  } catch {
    // plain text content (the earlier form)
  }
  return { messageId: parseField(match[1]!), from: parseField(match[2]!), content };
}
