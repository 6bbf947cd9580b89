/**
 * Containment of the work tools in the checkout. Every path a tool touches, and the member's
 * directory itself, must stay inside the checkout root, lexically and through symlinks; anything
 * that leaves it fails with PathOutsideCheckout. This module holds the lexical checks and the
 * member directory's check; the file tools' symlink containment is the descriptor walk in
 * beneath.ts, which no path swap can redirect. Paths shown to the model are root-relative, with
 * '/' separators.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { WORK_TOOL_ERRORS as E, WorkToolError } from '../../shared/agent/workTools';
import { terminalJson, terminalText } from '../../shared/text/inertText';

export const CHECKOUT_ROOT_ENV = 'AGENT_TEAMS_CHECKOUT';

/** The checkout the work tools operate on: $AGENT_TEAMS_CHECKOUT, else the process's directory. */
export function checkoutRootFromEnv(env: Record<string, string | undefined> = process.env): string {
  const configured = env[CHECKOUT_ROOT_ENV]?.trim();
  return path.resolve(configured ? configured : process.cwd());
}

/** Whether `child` is `parent` or lies under it (lexically). */
export function isWithin(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (relative !== '..' && !relative.startsWith('..' + path.sep) && !path.isAbsolute(relative));
}

/** A relative path as the model sees it: '/' separators, '.' for the root. */
export function toPosix(relative: string): string {
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}

/** The errno code (ENOENT, ...) of a failed Node call, if it has one. */
export function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** How many characters of a name or path a message quotes. */
const MESSAGE_NAME_CHARS = 300;

/**
 * A name or path as a message to the model quotes it: at most 300 characters (cut at a character,
 * never inside a surrogate pair), and, when it holds a control character (C0, DEL, C1, bidi), as a
 * JSON string (`"a\u001b]52;…"`) so every control reads as an inert escape and the name is still
 * exact. Anything a member could have named (a symlink's target, a directory) goes through here.
 */
export function messageName(name: string): string {
  let cut = name;
  if (name.length > MESSAGE_NAME_CHARS) {
    const code = name.charCodeAt(MESSAGE_NAME_CHARS - 1);
    cut = `${name.slice(0, code >= 0xd800 && code <= 0xdbff ? MESSAGE_NAME_CHARS - 1 : MESSAGE_NAME_CHARS)}…`;
  }
  return terminalText(cut, 'line') === cut ? cut : terminalJson(cut);
}

/** PathTooComplex: `label` (a messageName) is over the walk's bounds, `how` says which. */
export const pathTooComplex = (label: string, how: string) =>
  new WorkToolError(E.pathTooComplex, `${label} ${how}; name the file by a shorter, more direct path (inspect it with bash: ls -l, readlink)`);

/**
 * The model-facing form of a failed filesystem call on `label` (a messageName): typed by its errno,
 * never quoting the error's own text, which names host paths (`/proc/self/fd/…`, the checkout's).
 */
export function errnoError(error: unknown, label: string): WorkToolError {
  if (error instanceof WorkToolError) return error;
  const code = errnoCode(error);
  switch (code) {
    case 'ENOENT':
      return new WorkToolError(E.fileNotFound, `${label} does not exist`);
    case 'EISDIR':
      return new WorkToolError(E.isADirectory, `${label} is a directory; list it with bash (ls)`);
    case 'ENOTDIR':
      return new WorkToolError(E.notADirectory, `a parent of ${label} is a file, not a directory`);
    case 'ENXIO':
    case 'ENODEV':
    case 'EOPNOTSUPP':
      return new WorkToolError(E.permissionDenied, `${label} is not a regular file; the file tools read and write only regular files`);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'ETXTBSY':
      return new WorkToolError(E.permissionDenied, `permission denied on ${label} (${code})`);
    case 'ELOOP':
      return pathTooComplex(label, 'leads through too many symlinks');
    case 'ENAMETOOLONG':
      return pathTooComplex(label, 'is longer than the filesystem allows');
    case 'EMFILE':
    case 'ENFILE':
      return new WorkToolError(E.fileSystemError, `the worker has too many files open (${code}) to open ${label}; try again shortly`);
    case 'ENOMEM':
    case 'EAGAIN':
    case 'EBUSY':
    case 'EINTR':
      return new WorkToolError(E.fileSystemError, `the worker ran short of resources (${code}) on ${label}; try again shortly`);
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
      return new WorkToolError(E.fileSystemError, `no space left for ${label} (${code}); make room with bash, or tell the Lead`);
    default:
      return new WorkToolError(E.fileSystemError, `the filesystem failed on ${label} (${code ?? 'no error code'}); try again, or inspect it with bash`);
  }
}

export interface CheckoutPaths {
  /** The root as configured, resolved to an absolute path. */
  resolved: string;
  /** The root's real path (through every symlink). */
  real: string;
  /** Whether an absolute path lies (lexically) inside the checkout, under either form of the root. */
  inRoot(candidate: string): boolean;
  /** Root-relative display path of an absolute path that lies (lexically) inside the checkout. */
  display(absolute: string): string;
  /**
   * The real path of `absolute` (through every symlink of its existing part), checked to stay
   * inside the checkout. Path strings only: the tools never use it (a member can swap what it
   * walks); the benchmark's path-string baseline (bench/fileTools.ts) does.
   */
  containedRealPath(absolute: string, shown: string): Promise<string>;
  /**
   * A message made fit for the model and for the worker's log: the checkout's absolute path (either
   * form) becomes root-relative, `/proc/self/fd/<n>/` goes, and control characters but tab and line
   * feed become U+FFFD.
   */
  hostFree(message: string): string;
  /**
   * A file tool's path argument, resolved lexically against the member's directory `base`: its
   * root-relative components, for the descriptor walk (beneath.ts) that contains it through symlinks.
   */
  fileArgument(input: string, base: string): { segments: string[]; shown: string };
}

/** The containment checks for the checkout at `root`, which must exist. */
export function checkoutPaths(root: string): CheckoutPaths {
  const resolved = path.resolve(root);
  const real = fs.realpathSync(resolved);

  const inRoot = (candidate: string) => isWithin(resolved, candidate) || isWithin(real, candidate);

  function display(absolute: string): string {
    return toPosix(path.relative(isWithin(resolved, absolute) ? resolved : real, absolute));
  }

  function outside(what: string): WorkToolError {
    return new WorkToolError(E.pathOutsideCheckout, `${what} is outside the checkout; use paths inside it (relative to your directory)`);
  }

  async function containedRealPath(absolute: string, shown: string): Promise<string> {
    if (!inRoot(absolute)) throw outside(shown);
    let existing = absolute;
    const missing: string[] = [];
    for (;;) {
      try {
        await fsp.lstat(existing);
        break;
      } catch (error) {
        const code = errnoCode(error);
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
        const parent = path.dirname(existing);
        if (parent === existing) throw outside(shown);
        missing.unshift(path.basename(existing));
        existing = parent;
      }
    }
    let existingReal: string;
    try {
      existingReal = await fsp.realpath(existing);
    } catch (error) {
      // A dangling symlink (or loop): where it would write is not checkable, so refuse.
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ELOOP') throw outside(`${shown} (through a dangling symlink)`);
      throw error;
    }
    const full = path.join(existingReal, ...missing);
    if (!isWithin(real, full)) throw outside(`${shown} (through a symlink)`);
    return full;
  }

  // Longest first, so the real root is not cut short by a configured root that is its prefix.
  const rootForms = [...new Set([resolved, real])].filter((form) => form !== path.sep).sort((a, b) => b.length - a.length);

  function hostFree(message: string): string {
    let relative = message.replace(/\/proc\/self\/fd\/\d+\/?/g, '');
    for (const form of rootForms) relative = relative.split(`${form}/`).join('').split(form).join('.');
    return terminalText(relative, 'block');
  }

  function fileArgument(input: string, base: string): { segments: string[]; shown: string } {
    const absolute = path.resolve(base, input);
    if (!inRoot(absolute)) throw outside(messageName(input));
    const shown = display(absolute);
    return { segments: shown === '.' ? [] : shown.split('/'), shown };
  }

  return { resolved, real, inRoot, display, containedRealPath, hostFree, fileArgument };
}
