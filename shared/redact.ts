/**
 * Redacting credentials carried in URLs (issue 21): `scheme://user:password@host` and query
 * parameters such as `?api_key=...`. A configured URL (MODEL_BASE_URL, TEMPORAL_UI_URL, an
 * address) reaches start-up logs, provider errors that become activity failures in history, and
 * the model's "turn failed" note; each of those goes through here first.
 *
 * String work only (no URL class, no Node modules): workflows import it for the notes they write,
 * and text that is not a valid URL (an error quoting a malformed MODEL_BASE_URL) must be redacted too.
 */

export const REDACTED = '***';

/** Query parameters whose value is a credential (compared case-insensitively). */
const SECRET_PARAMS = new RegExp(
  '^(key|api[_-]?key|apikey|token|access[_-]?token|refresh[_-]?token|id[_-]?token|auth|password|passwd|pwd|secret|client[_-]?secret|' +
    'sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|.*[_-](token|secret|password|key))$',
  'i',
);

/** A URL in running text: scheme://, then anything up to whitespace or a quote or bracket that ends it. */
const URL_IN_TEXT = /\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>`]*/g;

/**
 * One URL: the authority ends at the first / ? # or \ (the WHATWG parser's rule), and its
 * userinfo at the authority's last @, so `user:p@ss@host` loses all of `user:p@ss`.
 */
function redactOne(url: string, authorityEnd: RegExp): string {
  const scheme = url.indexOf('://') + 3;
  const rest = url.slice(scheme);
  const end = rest.search(authorityEnd);
  const authority = end === -1 ? rest : rest.slice(0, end);
  let tail = end === -1 ? '' : rest.slice(end);
  const at = authority.lastIndexOf('@');
  const host = at === -1 ? authority : `${REDACTED}@${authority.slice(at + 1)}`;
  tail = tail.replace(/([?&;])([^=&#\s]+)=([^&#\s"'<>`)\]},;]*)/g, (whole, sep: string, name: string, value: string) =>
    SECRET_PARAMS.test(safeDecode(name)) && value !== '' ? `${sep}${name}=${REDACTED}` : whole,
  );
  return url.slice(0, scheme) + host + tail;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Every URL in `text` with its userinfo and secret query values replaced by ***. */
export function redactUrlCredentials(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, (url) => redactOne(url, /[/?#\\]/));
}

/**
 * One configured URL, for a log line. Stricter than redactUrlCredentials: a value that is not a
 * valid URL may hold a raw / in its password (`http://u:pa/ss@host`), so the userinfo here runs to
 * the last @ before any ? or # (at worst a path's @ is hidden too).
 */
export function redactUrl(url: string): string {
  if (!url.includes('://')) return url;
  return redactOne(url, /[?#]/);
}

/**
 * Redacts, in place, the message and stack of an error and of every error in its cause chain
 * (a cause becomes part of the failure Temporal records, stack included), and returns it. In place,
 * so its class (ApplicationFailure, AbortError...) and fields are kept. Non-errors pass unchanged.
 */
export function redactErrorCredentials<T>(error: T): T {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const redacted = redactUrlCredentials(current.message);
    if (redacted !== current.message) current.message = redacted;
    if (typeof current.stack === 'string') {
      const stack = redactUrlCredentials(current.stack);
      if (stack !== current.stack) current.stack = stack;
    }
    current = current.cause;
  }
  return error;
}

/**
 * The error of a "turn failed" note (and the Lead's lastError): redacted, then cut to maxLength.
 * In that order: a URL cut before its @ would keep its password where the redaction cannot see it.
 */
export function turnFailureText(message: string, maxLength: number): string {
  return redactUrlCredentials(message).slice(0, maxLength);
}
