/**
 * The worker's log lines, in its two formats (worker/telemetry.ts writes every entry through one of them). Both are
 * inert: a message or a metadata value may quote what a model, a caller or a hostile member wrote (a directory name
 * in an activity's error, which the SDK's "Activity failed" warning carries in `meta.error`), so no control character
 * reaches the operator's terminal raw and one entry is always one line (shared/text/inertText.ts).
 *
 * JSON (AGENT_TEAMS_LOG_FORMAT=json): one object per line, `time` (ISO 8601, UTC), `level`, `message`, then the
 * entry's metadata. Never throws: errors become {name, message, stack}, bigints strings, repeated or circular objects
 * "[Circular]"; a metadata key that would shadow time/level/message is kept as `meta.<key>`. C0 controls are JSON's
 * own escapes, DEL, C1, bidi controls and U+2028/9 `\uXXXX` (terminalJson): the line parses to the same values.
 */
import { inspect, types } from 'node:util';
import type { LogEntry } from '@temporalio/worker';
import { logText, terminalJson } from '../shared/text/inertText';

const OWN_FIELDS = new Set(['time', 'level', 'message']);

export function formatJsonLogLine(entry: LogEntry): string {
  const line: Record<string, unknown> = {
    time: timeOf(entry),
    level: entry.level,
    message: entry.message,
  };
  for (const [key, value] of Object.entries(entry.meta ?? {})) line[OWN_FIELDS.has(key) ? `meta.${key}` : key] = value;
  return terminalJson(line, jsonSafe());
}

/**
 * Text (the default): the SDK's DefaultLogger line, `<time> [<level>] <message> <meta>`, the metadata as
 * util.inspect shows it, on one line and without colours. inspect escapes the controls of the strings it quotes
 * but prints an Error's stack raw, line breaks and all, so every Error in the metadata is shown as its stack made
 * logText (`Error: …\n    at …`), then its other properties. The whole line then goes through logText too: any
 * control character left, in the message, a symbol's description, a string inspect does not escape (U+2028, bidi
 * controls), anything a custom inspect printed, becomes a visible escape.
 */
export function formatTextLogLine(entry: LogEntry): string {
  let meta = '';
  if (entry.meta !== undefined) {
    try {
      meta = ` ${inspect(withInertErrors(entry.meta, 0, new Map()), INSPECT_OPTIONS)}`;
    } catch (error) {
      meta = ` [metadata not shown: ${errorText(error)}]`;
    }
  }
  return logText(`${timeOf(entry)} [${entry.level}] ${entry.message}${meta}`);
}

const INSPECT_OPTIONS = { breakLength: Infinity, compact: true, colors: false } as const;
/** Deeper than inspect's default depth (2) nothing is shown but `[Object]`, so nothing there needs a stand-in. */
const INSPECT_DEPTH = 3;

/** An Error of any realm (the workflow sandbox's, a test's). */
function isError(value: object): value is Error {
  return value instanceof Error || types.isNativeError(value);
}

/** A plain object or array of any realm: the containers whose values inspect shows. */
function isPlainContainer(value: object): boolean {
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || (Object.getPrototypeOf(prototype) === null && Object.prototype.toString.call(value) === '[object Object]');
}

/**
 * The metadata with every Error, in plain objects and arrays, replaced by a stand-in that inspect shows as the
 * error's stack (or `name: message`) made logText, followed by its other own properties, cause included. Other
 * values are kept, getters unread; shared and circular references stay shared and circular.
 */
function withInertErrors(value: unknown, depth: number, copies: Map<object, unknown>): unknown {
  if (typeof value !== 'object' || value === null || depth > INSPECT_DEPTH) return value;
  if (copies.has(value)) return copies.get(value);
  if (isError(value)) {
    const head = logText(typeof value.stack === 'string' ? value.stack : `${String(value.name)}: ${String(value.message)}`);
    const extras: Record<PropertyKey, unknown> = {};
    const standIn = { [inspect.custom]: () => (Reflect.ownKeys(extras).length === 0 ? head : `${head} ${inspect(extras, { ...INSPECT_OPTIONS, depth: 1 })}`) };
    copies.set(value, standIn);
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
      if (key === 'stack' || key === 'message' || key === 'name' || !('value' in descriptor)) continue;
      if (descriptor.enumerable || key === 'cause') extras[key] = withInertErrors(descriptor.value, depth + 1, copies);
    }
    return standIn;
  }
  if (!isPlainContainer(value)) return value;
  const copy = (Array.isArray(value) ? [] : Object.create(Object.getPrototypeOf(value) as object | null)) as object;
  copies.set(value, copy);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
    if ('value' in descriptor) descriptor.value = withInertErrors(descriptor.value, depth + 1, copies);
    Object.defineProperty(copy, key, descriptor);
  }
  return copy;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function timeOf(entry: LogEntry): string {
  return new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
}

function jsonSafe(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'object' && value !== null && isError(value))
      return { name: value.name, message: value.message, stack: value.stack, ...(value.cause === undefined ? {} : { cause: value.cause }) };
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}
