/**
 * What every model provider needs of HTTP: byte caps on response bodies, the retry-after a 429 or
 * 503 asks for, error text a person can read (no credentials), and URL userinfo as Basic auth.
 * Runs inside activities (Node's fetch streams and Buffer).
 */
import { redactUrlCredentials } from '../../shared/text/redact';

export const DEFAULT_TIMEOUT_MS = 60_000;

/** MODEL_TIMEOUT_MS (the one HTTP request of a call, body included), when set: a positive integer of milliseconds. */
export function timeoutMsFromEnv(env: Record<string, string | undefined>): number | undefined {
  const timeout = env.MODEL_TIMEOUT_MS?.trim();
  if (!timeout) return undefined;
  const ms = Number(timeout);
  if (!Number.isInteger(ms) || ms <= 0) throw new Error(`MODEL_TIMEOUT_MS must be a positive integer (milliseconds), got ${JSON.stringify(timeout)}`);
  return ms;
}
/** A success body larger than this is not read: the request is aborted and the call fails (malformed_response, not retryable). */
export const MODEL_RESPONSE_MAX_BYTES = 4 * 1024 * 1024;
/** An error body is read up to this many bytes (the rest is dropped and the request aborted); it only feeds the error message. */
export const MODEL_ERROR_BODY_MAX_BYTES = 64 * 1024;
/**
 * A retry-after beyond this is implausible (garbage, or a clock gone wrong) and treated as absent.
 * Plausible waits longer than the activity's cap are refused there (ModelRetryAfterTooLong).
 */
export const MAX_PLAUSIBLE_RETRY_AFTER_MS = 31 * 24 * 60 * 60 * 1000;
const MAX_ERROR_TEXT = 500;

const UNSIGNED_DECIMAL = /^\d+(\.\d+)?$/;

function plausible(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_PLAUSIBLE_RETRY_AFTER_MS ? Math.ceil(ms) : undefined;
}

/**
 * The wait a 429/503 asks for, in ms: `retry-after-ms`, else `retry-after` as seconds or as an
 * HTTP date (a date in the past means now: 0). Undefined when absent, unparseable, negative, not
 * finite or beyond MAX_PLAUSIBLE_RETRY_AFTER_MS; an unusable `retry-after-ms` falls back to
 * `retry-after`. Not capped here: the activity decides what a long wait means.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && UNSIGNED_DECIMAL.test(ms)) {
    const value = plausible(Number(ms));
    if (value !== undefined) return value;
  }
  const after = headers.get('retry-after')?.trim();
  if (!after) return undefined;
  if (UNSIGNED_DECIMAL.test(after)) return plausible(Number(after) * 1000);
  // An HTTP date starts with a day name; anything else (e.g. "-5", which Date.parse reads as a year) is garbage.
  if (!/^[A-Za-z]/.test(after)) return undefined;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return plausible(Math.max(0, date - now));
}

export function abortError(signal: AbortSignal): Error {
  const error = new Error('model call cancelled', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

export function serverErrorText(bodyText: string): string {
  let text = bodyText;
  try {
    const parsed: unknown = JSON.parse(bodyText);
    const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
    if (typeof error === 'string') text = error;
    else if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
      text = (error as { message: string }).message;
    }
  } catch {
    // not JSON: use the raw text
  }
  // A server may echo the request URL, credentials included.
  text = redactUrlCredentials(text).trim();
  if (text.length > MAX_ERROR_TEXT) text = `${text.slice(0, MAX_ERROR_TEXT)}…`;
  return text || '(empty body)';
}

export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}

export interface CappedBody {
  text: string;
  /** The body was longer than the cap: `text` holds at most the first `cap` bytes and the request was aborted. */
  truncated: boolean;
}

/**
 * Reads a response body chunk by chunk and never holds more than `cap` bytes of it. On crossing the
 * cap it stops, cancels the stream and calls `abort` (which aborts the request). With `whole`, a
 * declared content-length over the cap is refused before reading anything.
 */
export async function readCapped(response: Response, cap: number, whole: boolean, abort: () => void): Promise<CappedBody> {
  const body = response.body;
  if (!body) return { text: '', truncated: false };
  const reader: ReadableStreamDefaultReader<Uint8Array> = body.getReader();
  const stop = async (): Promise<void> => {
    abort();
    await reader.cancel().catch(() => undefined);
  };
  const declared = Number(response.headers.get('content-length') ?? '');
  if (whole && Number.isFinite(declared) && declared > cap) {
    await stop();
    return { text: '', truncated: true };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > cap) {
      chunks.push(Buffer.from(value.buffer, value.byteOffset, cap - size));
      size = cap;
      await stop();
      return { text: Buffer.concat(chunks, size).toString('utf8'), truncated: true };
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks, size).toString('utf8'), truncated: false };
}

/**
 * A base URL's userinfo (`http://user:password@host/v1`) as the Basic credentials it stands for,
 * and the URL without it: fetch refuses a URL with credentials (and would quote it, password and
 * all, in its error). Null credentials when there are none or the URL does not parse.
 */
export function splitUrlCredentials(url: string): { url: string; basic: string | null } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, basic: null };
  }
  if (!parsed.username && !parsed.password) return { url, basic: null };
  const basic = Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64');
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, basic };
}
