/**
 * Text a model or a caller wrote, made inert for where a person reads it. Any message, task
 * subject, tool name, member name, model name or team id may carry a prompt injection aimed at the
 * reader's screen: terminal escapes (OSC 52 clipboard writes, screen clears), bidi controls that
 * reorder what is shown, or Markdown that the Temporal Web UI renders as links. Pure and
 * deterministic: shared/text/webUi.ts, bundled into workflows, uses it, and so does the CLI.
 */

/** What a removed control character becomes: visible (a reader sees something was there), one column wide, and never active. */
export const REPLACEMENT = '\ufffd';

/**
 * C0 controls except tab and line feed (ESC starts every terminal escape, BEL ends OSC ones, CR
 * moves the cursor back so later text overwrites earlier), DEL, C1 controls (U+009B is a one-byte
 * CSI to terminals that take 8-bit controls, U+009D an OSC), and the Unicode bidi controls
 * (embeddings, overrides, isolates, marks) that reorder the text a person sees.
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The same, with tab and line feed. */
// eslint-disable-next-line no-control-regex
const CONTROLS_AND_LAYOUT = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text for a terminal. `line` (a table cell, a one-line entry): tab, CR and line feed become a
 * space, so a cell cannot break its row or its columns; `block` (a message body, a final answer):
 * line feeds and tabs stay, CRLF becomes LF and a lone CR is replaced (it would return the cursor
 * and let later text overwrite what the reader saw). Every other control character becomes U+FFFD.
 */
export function terminalText(text: string, layout: 'line' | 'block'): string {
  if (layout === 'line') return text.replace(/[\t\r\n]/g, ' ').replace(CONTROLS_AND_LAYOUT, REPLACEMENT);
  return text.replace(/\r\n/g, '\n').replace(CONTROLS, REPLACEMENT);
}

/**
 * Every character an escape below makes visible: the controls and layout above, and the line and paragraph
 * separators (U+2028/9 end a line to some readers and log viewers).
 */
// eslint-disable-next-line no-control-regex
const CONTROLS_LAYOUT_AND_SEPARATORS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/g;

/** `\uXXXX` of one UTF-16 unit: the escape JSON and JavaScript read back as that character. */
const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON for a terminal: JSON.stringify escapes C0 controls but not DEL, C1, bidi controls or U+2028/9.
 * Those can only stand inside JSON strings (JSON's own syntax is ASCII without DEL), where `\uXXXX` is
 * the same character, so the output parses to exactly the same value and a machine reader loses
 * nothing. `replacer` is JSON.stringify's.
 */
export function terminalJson(value: unknown, replacer?: (this: unknown, key: string, value: unknown) => unknown): string {
  const json: string | undefined = JSON.stringify(value, replacer);
  return (json ?? 'null').replace(CONTROLS_LAYOUT_AND_SEPARATORS, unicodeEscape);
}

/** The escapes logText writes for the layout characters; every other one is `\uXXXX`. */
const LAYOUT_ESCAPES: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One log line's text: every C0 control (tab, line feed and CR too, so one log entry stays one
 * line and no entry can be forged after it), DEL, C1, bidi control and U+2028/9 becomes a visible
 * escape, `\t` `\n` `\r` or `\uXXXX` (ESC reads `\u001b`, the 8-bit CSI `\u009b`). Unlike
 * terminalText nothing is lost: an operator reads which character was there. Backslashes stay as
 * they are, so paths and already-escaped text read as written.
 */
export function logText(text: string): string {
  return text.replace(CONTROLS_LAYOUT_AND_SEPARATORS, (c) => LAYOUT_ESCAPES[c] ?? unicodeEscape(c));
}

/**
 * CommonMark's inline syntax starts with one of these anywhere in a line, so each is backslash-escaped
 * (CommonMark lets any ASCII punctuation be escaped, and an escaped one renders as itself): `\` (else
 * it would escape what follows), `` ` `` (code spans), `*` (emphasis, thematic breaks), `[` `]` `(`
 * `)` `!` (links, images, reference definitions), `<` `>` (HTML, autolinks, block quotes), `&`
 * (entity references: `&#x202E;` would render a bidi override), `|` `~` (GFM tables and
 * strikethrough, should the renderer grow them), `{` `}` (the Web UI replaces `{namespace}`,
 * `{workflowId}` and `{runId}` in what it renders, so a text could forge those). `_` is escaped
 * unless a letter or digit stands on both sides: there CommonMark's flanking rules let it neither
 * open nor close emphasis, and tool names read as written (`task_update`).
 */
const INLINE_ACTIVE = /[\\`*[\]()!<>&|~{}]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
/**
 * These start blocks only as a line's first non-blank character: `#` headings, `-` `+` lists and
 * setext underlines, `=` setext underlines, and a `.` or `)` after leading digits (ordered lists).
 * A text made inert here never spans lines, so only its own start can be a line start; elsewhere
 * they stay unescaped, so member names and models read as written (`parser-dev`, `gpt-4.1`) in the
 * raw strings the Temporal CLI and API show.
 */
const BLOCK_START = /^(\s*)(?:([#+\-=])|(\d{1,9})([.)]))/;

/**
 * One line of Markdown that renders as exactly the text given, and forms no link, image, HTML,
 * emphasis, heading or list. Line breaks and tabs become spaces, other control characters U+FFFD.
 * Bare URLs are defanged so no autolink extension can link them either: `://` becomes `[:]//`,
 * a word `www.` becomes `www[.]` and an `@` before a name becomes `[@]` (mailto autolinks); a
 * person still reads `https[:]//evil.example` as the address it was, and nothing is clickable.
 */
export function markdownText(text: string): string {
  const defanged = terminalText(text, 'line')
    .replace(/:\/\//g, '[:]//')
    .replace(/\b(www)\./gi, '$1[.]')
    .replace(/@(?=[\p{L}\p{N}])/gu, '[@]');
  return defanged
    .replace(INLINE_ACTIVE, '\\$&')
    .replace(BLOCK_START, (_all, blank: string, marker?: string, digits?: string, closer?: string) =>
      marker !== undefined ? `${blank}\\${marker}` : `${blank}${digits}\\${closer}`,
    );
}

/**
 * Cuts Markdown to at most `max` characters, ending with `…` when cut. It never cuts inside an
 * escape (a `\` and the character it escapes) nor between the halves of a surrogate pair, so the cut
 * text is as inert as the whole. Every `\` in a text built from markdownText pieces and fixed
 * templates starts an escape: markdownText escapes every backslash of the text it is given.
 */
export function cutMarkdown(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (;;) {
    const code = text.charCodeAt(end);
    const width = code === 0x5c || (code >= 0xd800 && code <= 0xdbff) ? 2 : 1;
    if (end + width > max - 1) break;
    end += width;
  }
  return `${text.slice(0, end)}…`;
}
