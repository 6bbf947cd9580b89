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

export interface CheckoutPaths {
  /** The root as configured, resolved to an absolute path. */
  resolved: string;
  /** The root's real path (through every symlink). */
  real: string;
  /** Whether an absolute path lies (lexically) inside the checkout, under either form of the root. */
  inRoot(candidate: string): boolean;
  /** Root-relative display path of an absolute path that lies (lexically) inside the checkout. */
  display(absolute: string): string;
  /** The real path of `absolute` (through every symlink of its existing part), checked to stay inside the checkout. */
  containedRealPath(absolute: string, shown: string): Promise<string>;
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

  function fileArgument(input: string, base: string): { segments: string[]; shown: string } {
    const absolute = path.resolve(base, input);
    if (!inRoot(absolute)) throw outside(input);
    const shown = display(absolute);
    return { segments: shown === '.' ? [] : shown.split('/'), shown };
  }

  return { resolved, real, inRoot, display, containedRealPath, fileArgument };
}
