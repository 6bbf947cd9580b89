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
  /** The configured hooks directory when it does not exist yet: nothing to bind, so a run that creates it has it removed. */
  absentHooks: string | null;
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
 * The hooks directory git is configured with (core.hooksPath), absolute, when it lies in the
 * checkout: the repository's own config first, then the worker user's global and the system
 * config, as git's precedence has it. Each is read with `git config --file`/`--global`/`--system`,
 * which parse that one file and run nothing. A relative value is relative to the working tree, so
 * a global `.githooks` names a directory in this checkout too.
 */
export function configuredHooksDirectory(rootReal: string, gitDir: string): string | null {
  const scopes = [['--file', path.join(gitDir, 'config')], ['--global'], ['--system']];
  for (const scope of scopes) {
    const result = spawnSync('git', ['config', ...scope, '--get', 'core.hooksPath'], {
      cwd: '/',
      encoding: 'utf8',
      timeout: 5000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...(process.env.HOME ? { HOME: process.env.HOME } : {}) },
    });
    const value = result.status === 0 ? result.stdout.trim() : '';
    if (value === '') continue;
    // `~` is the operator's home, outside the checkout (and read-only in the sandbox).
    if (value.startsWith('~')) return null;
    const absolute = path.resolve(rootReal, value);
    return isWithin(rootReal, absolute) ? absolute : null;
  }
  return null;
}

/** The sandbox mounts that protect the checkout's git metadata (none when it has no `.git` directory). */
export function gitMounts(rootReal: string): GitMounts {
  const dotGit = path.join(rootReal, '.git');
  // A `.git` file (a linked worktree's "gitdir:" pointer) is bound read-only as a whole.
  if (exists(dotGit, 'file')) return { pinned: [], readOnly: [dotGit], absentHooks: null };
  const gitDir = gitDirectoryOf(rootReal);
  if (gitDir === null) return { pinned: [], readOnly: [], absentHooks: null };
  const readOnly: string[] = [];
  if (exists(path.join(gitDir, 'config'), 'file')) readOnly.push(path.join(gitDir, 'config'));
  if (exists(path.join(gitDir, 'hooks'), 'directory')) readOnly.push(path.join(gitDir, 'hooks'));
  const hooks = configuredHooksDirectory(rootReal, gitDir);
  if (hooks !== null && exists(hooks, 'directory') && !readOnly.includes(hooks)) readOnly.push(hooks);
  const absentHooks = hooks !== null && !fs.existsSync(hooks) ? hooks : null;
  return { pinned: [gitDir], readOnly, absentHooks };
}

/** What a run may plant that no mount can stop: the redirecting files and a hooks directory absent before it. */
export interface GitPlantables {
  gitDir: string | null;
  /** Redirecting files present before the run (the operator's own are kept). */
  redirectsBefore: Set<string>;
  absentHooks: string | null;
}

/** Taken before a run, compared after it. */
export function gitPlantablesBefore(rootReal: string, mounts: GitMounts): GitPlantables {
  const gitDir = gitDirectoryOf(rootReal);
  const redirectsBefore = new Set<string>();
  for (const name of GIT_REDIRECT_FILES) if (gitDir !== null && lexists(path.join(gitDir, name))) redirectsBefore.add(name);
  return { gitDir, redirectsBefore, absentHooks: mounts.absentHooks };
}

function lexists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes what the run planted: redirecting files absent before it, and the configured hooks
 * directory if it was absent before. Returns their root-relative names, for the member's notice.
 */
export function removePlanted(rootReal: string, before: GitPlantables): string[] {
  const planted: string[] = [];
  for (const name of GIT_REDIRECT_FILES) {
    if (before.gitDir !== null && !before.redirectsBefore.has(name) && lexists(path.join(before.gitDir, name))) planted.push(path.join(before.gitDir, name));
  }
  if (before.absentHooks !== null && lexists(before.absentHooks)) planted.push(before.absentHooks);
  for (const file of planted) fs.rmSync(file, { recursive: true, force: true });
  return planted.map((file) => path.relative(rootReal, file).split(path.sep).join('/'));
}
