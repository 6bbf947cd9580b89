/**
 * Redacting credentials carried in URLs and addresses (issue 21): `scheme://user:password@host`,
 * query parameters such as `?api_key=...`, and a scheme-less `user:password@host[:port]` (Temporal
 * addresses are given without a scheme: TEMPORAL_ADDRESS=alice:s3cret@temporal.internal:7233). A
 * configured URL or address (MODEL_BASE_URL, TEMPORAL_UI_URL, TEMPORAL_ADDRESS / --address) reaches
 * start-up logs, the CLI's errors and Web UI links, provider errors that become activity failures in
 * history, and the model's "turn failed" note; each of those goes through here first.
 *
 * Two strengths:
 *  - one configured value, where a password may hold any character: redactUrl (a URL: its
 *    userinfo runs to the last @ before any ? or #) and redactAddress (a Temporal address, with or
 *    without a scheme, or a Web UI URL: everything before its last @), at worst hiding more than
 *    the userinfo;
 *  - running text (redactUrlCredentials: log lines, error messages, notes), where ordinary text must
 *    stay as it is. A URL (scheme://) loses its userinfo and secret query values. Any other word
 *    (text between whitespace, quotes, < > and backticks, with no :// before its last @) loses
 *    what stands before its last @ only when that part holds a colon (a password) and a
 *    host[:port] follows the @:
 *    `alice:s3cret@temporal.internal:7233` reads `***@temporal.internal:7233`, while an e-mail
 *    address (`bob@example.com`, `mailto:bob@example.com`), `git@github.com:org/repo` and an image
 *    digest (`nginx:1.25@sha256:…`) are left as they are. A leading `NAME=` (an assignment such as
 *    `TEMPORAL_ADDRESS=…`, `--address=…`) and opening brackets are kept. A user name without a
 *    password (`user@host`) is not hidden in running text: it reads as an e-mail address.
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

/** A word of running text: what a URL in it is made of too. */
const WORD_IN_TEXT = /[^\s"'<>`]+/g;

/**
 * What follows a scheme-less userinfo's @ in running text: a host name or an IPv4 / bracketed IPv6
 * literal, an optional port, then the word's end, a path, a query or closing punctuation (a final
 * . or :). An image digest's `sha256:0123…` is no host:port.
 */
const HOST_PORT = /^(?:\[[0-9A-Za-z:.%]+\]|[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?)(?::\d{1,5})?(?:$|[/?#)\]},;!]|[.:]$)/;

/** Kept before a scheme-less userinfo: opening brackets, and an assignment's name (`TEMPORAL_ADDRESS=`, `--address=`). */
const USERINFO_LEAD = /^[([{]*(?:-{0,2}[A-Za-z_][\w.-]*=)?/;

/** Before the userinfo of one configured address: `scheme://` (and any further /), or a gRPC resolver's `dns:` and the like. */
const ADDRESS_PREFIX = /^(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/+|(?:dns|ipv4|ipv6|unix|unix-abstract|vsock):)/i;

/**
 * One URL: the authority ends at the first / ? # or \ (the WHATWG parser's rule), and its
 * userinfo at the authority's last @, so `user:p@ss@host` loses all of `user:p@ss`. Slashes right
 * after `://` are skipped: a gRPC target `dns:///user:pw@host:7233` has its userinfo after them.
 */
function redactOne(url: string, authorityEnd: RegExp): string {
  let scheme = url.indexOf('://') + 3;
  while (url[scheme] === '/') scheme += 1;
  const rest = url.slice(scheme);
  const end = rest.search(authorityEnd);
  const authority = end === -1 ? rest : rest.slice(0, end);
  const tail = end === -1 ? '' : rest.slice(end);
  const at = authority.lastIndexOf('@');
  const host = at === -1 ? authority : `${REDACTED}@${authority.slice(at + 1)}`;
  return url.slice(0, scheme) + host + redactSecretParams(tail);
}

/** The values of secret query parameters in the part of a URL after its authority. */
function redactSecretParams(tail: string): string {
  return tail.replace(/([?&;])([^=&#\s]+)=([^&#\s"'<>`)\]},;]*)/g, (whole, sep: string, name: string, value: string) =>
    SECRET_PARAMS.test(safeDecode(name)) && value !== '' ? `${sep}${name}=${REDACTED}` : whole,
  );
}

/** One word of running text without a URL before its last @: `user:password@host[:port]` loses `user:password` (the module comment's rule). */
function redactUserinfoWord(word: string): string {
  const at = word.lastIndexOf('@');
  if (at <= 0 || word.slice(0, at).includes('://') || !HOST_PORT.test(word.slice(at + 1))) return word;
  const lead = USERINFO_LEAD.exec(word)?.[0] ?? '';
  const userinfo = word.slice(lead.length, at);
  if (!userinfo.includes(':') || /^mailto:/i.test(userinfo)) return word;
  return `${word.slice(0, lead.length)}${REDACTED}@${word.slice(at + 1)}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Every credential in running text replaced by ***: each URL's userinfo and secret query values,
 * and a scheme-less `user:password@host[:port]`'s `user:password` (see the module comment).
 */
export function redactUrlCredentials(text: string): string {
  const urls = text.includes('://') ? text.replace(URL_IN_TEXT, (url) => redactOne(url, /[/?#\\]/)) : text;
  return urls.includes('@') ? urls.replace(WORD_IN_TEXT, redactUserinfoWord) : urls;
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
 * One configured Temporal address (TEMPORAL_ADDRESS, --address, a profile's address), for a log
 * line or an error: `host:port`, a gRPC target (`dns:///host:port`) or a URL. Whatever stands
 * before its last @ is hidden, user name included and whatever characters the password has
 * (`alice:s3cret@temporal.internal:7233` reads `***@temporal.internal:7233`,
 * `dns:///user:pw@host:7233` reads `dns:///***@host:7233`), and so are secret query values.
 */
export function redactAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at === -1) return redactUrl(address);
  const prefix = ADDRESS_PREFIX.exec(address)?.[0] ?? '';
  return `${address.slice(0, prefix.length)}${REDACTED}@${redactSecretParams(address.slice(at + 1))}`;
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
