/**
 * What keeps a member's bash from planting code that the operator's git runs later on the host
 * (docs/security.md). Members may `git add` and `git commit`, so the checkout's `.git` stays
 * writable, except:
 *
 * - `.git` is bound onto itself inside the sandbox, a mount point, so it cannot be moved, removed
 *   or replaced by a fresh `git init` (rename and rmdir of a mount point fail with EBUSY);
 * - `.git/config`, `.git/hooks` and the hooks directory `core.hooksPath` names (when it lies in
 *   the checkout) are bound read-only, so no fsmonitor, pager, filter or hook can be configured;
 * - a file git reads to find its configuration elsewhere (`commondir`, `config.worktree`) that a
 *   run created is removed once the run is over, when nothing of the sandbox is left running
 *   (bwrap's PID namespace dies with the command). A placeholder cannot be mounted instead: bwrap
 *   would create it on the host, and git refuses an empty `commondir`.
 *
 * The file tools refuse to write any of this (files.ts, ProtectedPath).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isWithin } from './paths';

/** Files in a git directory that make git read its configuration, and run its commands, from elsewhere. */
export const GIT_REDIRECT_FILES = ['commondir', 'config.worktree'] as const;

export interface GitMounts {
  /** Directories bound onto themselves, so they cannot be renamed or removed. */
  pinned: string[];
  /** Paths bound read-only over the checkout's read-write bind. */
  readOnly: string[];
}

/** The git directory the checkout's `.git` is, when it is a real directory (not a symlink). */
export function gitDirectoryOf(rootReal: string): string | null {
  const candidate = path.join(rootReal, '.git');
  try {
    return fs.lstatSync(candidate).isDirectory() ? candidate : null;
  } catch {
    return null;
  }
}

function exists(file: string, kind: 'file' | 'directory'): boolean {
  try {
    const stat = fs.lstatSync(file);
    return kind === 'file' ? stat.isFile() : stat.isDirectory();
  } catch {
    return false;
  }
}

/**
 * The hooks directory the repository's own config names (core.hooksPath), absolute, when it lies in
 * the checkout. Read with `git config --file`, which parses only that file and runs nothing.
 */
export function configuredHooksDirectory(rootReal: string, gitDir: string): string | null {
  const result = spawnSync('git', ['config', '--file', path.join(gitDir, 'config'), '--get', 'core.hooksPath'], {
    encoding: 'utf8',
    timeout: 5000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  const value = result.status === 0 ? result.stdout.trim() : '';
  // `~` is the operator's home, outside the checkout (and read-only in the sandbox).
  if (value === '' || value.startsWith('~')) return null;
  // A relative hooksPath is relative to the working tree's root.
  const absolute = path.resolve(rootReal, value);
  return isWithin(rootReal, absolute) ? absolute : null;
}

/** The sandbox mounts that protect the checkout's git metadata (none when it has no `.git` directory). */
export function gitMounts(rootReal: string): GitMounts {
  const dotGit = path.join(rootReal, '.git');
  // A `.git` file (a linked worktree's "gitdir:" pointer) is bound read-only as a whole.
  if (exists(dotGit, 'file')) return { pinned: [], readOnly: [dotGit] };
  const gitDir = gitDirectoryOf(rootReal);
  if (gitDir === null) return { pinned: [], readOnly: [] };
  const readOnly: string[] = [];
  if (exists(path.join(gitDir, 'config'), 'file')) readOnly.push(path.join(gitDir, 'config'));
  if (exists(path.join(gitDir, 'hooks'), 'directory')) readOnly.push(path.join(gitDir, 'hooks'));
  const hooks = configuredHooksDirectory(rootReal, gitDir);
  if (hooks !== null && exists(hooks, 'directory') && !readOnly.includes(hooks)) readOnly.push(hooks);
  return { pinned: [gitDir], readOnly };
}

/** Which redirecting files the git directory holds now; taken before a run, compared after it. */
export function redirectFilesPresent(gitDir: string | null): Set<string> {
  const present = new Set<string>();
  if (gitDir === null) return present;
  for (const name of GIT_REDIRECT_FILES) {
    try {
      fs.lstatSync(path.join(gitDir, name));
      present.add(name);
    } catch {
      // absent
    }
  }
  return present;
}

/**
 * Removes the redirecting files a run created (those absent from `before`) and returns their
 * root-relative names, for the notice the member gets.
 */
export function removeNewRedirectFiles(rootReal: string, gitDir: string | null, before: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  for (const name of redirectFilesPresent(gitDir)) {
    if (before.has(name) || gitDir === null) continue;
    const file = path.join(gitDir, name);
    fs.rmSync(file, { recursive: true, force: true });
    removed.push(path.relative(rootReal, file).split(path.sep).join('/'));
  }
  return removed;
}
