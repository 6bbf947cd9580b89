/**
 * What keeps a member's bash from planting code that the operator's git runs later on the host
 * (docs/security.md), without the worker ever acting on a path a member can change (issue 52,
 * decision 0009). Members may `git add` and `git commit`, so the checkout's `.git` stays writable,
 * except:
 *
 * - `.git`, `.git/config`, `.git/hooks` and the directory `core.hooksPath` names in the checkout
 *   (with each directory on its way) are found by a walk of descriptors from the checkout root, each
 *   component opened with O_NOFOLLOW: a symlink is never followed, a FIFO never opened for reading;
 * - what was found is handed to bubblewrap as those descriptors (`--bind-fd`, `--ro-bind-fd`), never
 *   as a path it would resolve again: `.git` and the hooks directory's ancestors are bound onto
 *   themselves (mount points cannot be renamed or removed), `.git/config` and the hooks directories
 *   read-only;
 * - the repository's `core.hooksPath` is read from the descriptor the walk opened, at most
 *   CONFIG_READ_BYTES of it, and parsed by `git config --file -` from a pipe: git reads no file of
 *   the checkout, follows no include, and runs on no thread of the worker's;
 * - whatever git would read that was absent (or not a plain file or directory) when the call began
 *   is *plantable*: `.git` itself in a checkout without one, `config`, `hooks`, `commondir` and
 *   `config.worktree` in it, and the first missing component of the hooks directory. When the call
 *   is over and nothing of its sandbox runs, whatever stands at one of those names is removed by
 *   `rm -rf` in a sandbox of its own as the member (bash.ts), so the worst a race can reach is what
 *   the member could reach anyway.
 *
 * Everything is computed afresh for every call. The file tools refuse to write any `.git` and the
 * hooks directories (files.ts, ProtectedPath).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { at } from './beneath';
import { errnoCode, isWithin } from './paths';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** Names in the git directory that git reads for its configuration, hooks or another git directory. */
export const GIT_DIRECTORY_NAMES = { config: 'file', hooks: 'directory', commondir: 'file', 'config.worktree': 'file' } as const;
/** A repository's config larger than this is not read for its hooks directory (git's own are a few KB). */
export const CONFIG_READ_BYTES = 1 << 20;
/** A hooks directory deeper than this in the checkout is not pinned. */
const MAX_HOOKS_DEPTH = 64;
const GIT_CONFIG_TIMEOUT_MS = 5000;

/** One pinned thing: the descriptor, where the sandbox shows it, and whether read-only. */
export interface GitBind {
  handle: fsp.FileHandle;
  /** Absolute path in the sandbox (the checkout is bound at its real path). */
  dest: string;
  readOnly: boolean;
}

/** A name that was absent, or not a plain file or directory, when the call began: removed after it if something stands there. */
export interface Plantable {
  /** The directory holding it, pinned by descriptor. */
  dir: fsp.FileHandle;
  name: string;
  /** Root-relative, '/'-separated: what the sweep removes, and the member's notice. */
  shown: string;
}

export interface GitPins {
  /** Bound in this order (parents before children), over the checkout's read-write bind. */
  binds: GitBind[];
  plantables: Plantable[];
  /** The hooks directories, root-relative components: the file tools refuse to write under them. */
  hooksPrefixes: string[][];
  /** Closes every descriptor. */
  release(): Promise<void>;
}

/** Opens `name` in `dir` without following it: a directory, a regular file, or null for anything else or nothing. */
async function openNoFollow(dir: fsp.FileHandle, name: string, kind: 'file' | 'directory'): Promise<fsp.FileHandle | null> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(at(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (kind === 'directory' ? O_DIRECTORY : 0));
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'ENXIO' || code === 'EACCES') return null;
    throw error;
  }
  const stat = await handle.stat();
  if (kind === 'file' ? stat.isFile() : stat.isDirectory()) return handle;
  await handle.close();
  return null;
}

/** At most `cap` bytes of an open file, from that descriptor; null when it holds more. */
async function readCapped(handle: fsp.FileHandle, cap: number): Promise<Buffer | null> {
  const buffer = Buffer.alloc(cap + 1);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled > cap ? null : buffer.subarray(0, filled);
}

/** `git config --get core.hooksPath` of one scope; the repository's config comes on stdin, never as a path. */
function gitConfigHooksPath(scope: string[], stdin: Buffer | null): Promise<string | null> {
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      ['config', '--no-includes', ...scope, '--get', 'core.hooksPath'],
      {
        cwd: '/',
        encoding: 'utf8',
        timeout: GIT_CONFIG_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        maxBuffer: 64 * 1024,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...(process.env.HOME ? { HOME: process.env.HOME } : {}) },
      },
      (error, stdout) => resolve(error ? null : stdout.trim() || null),
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(stdin ?? undefined);
  });
}

/** The operator's config files git reads besides the repository's (HOME's two, and the system one), as git finds them with our env. */
function operatorConfigFiles(): string[] {
  const home = process.env.HOME;
  return [...(home ? [path.join(home, '.gitconfig'), path.join(home, '.config', 'git', 'config')] : []), '/etc/gitconfig'];
}

/** A file's identity and version: any write changes its ctime, which no member can set back. */
const versionOf = (stat: fs.Stats | null) => (stat === null ? '-' : `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`);

/** The last answer of hooksSegments and the versions of the configs it read: git runs again only when one changed. */
let remembered: { key: string; segments: string[] | null } | null = null;

/**
 * The hooks directory git is configured with (core.hooksPath), as root-relative components, when
 * it lies in the checkout: the repository's config (its bytes, read from the descriptor) first, then
 * the worker user's global and the system config, as git's precedence has it. A relative value is
 * relative to the working tree, so a global `.githooks` names a directory in this checkout too.
 * Asked for every call and every write; `git config` runs only when a config changed since.
 */
async function hooksSegments(rootReal: string, repositoryConfig: fsp.FileHandle | null): Promise<string[] | null> {
  const operatorStats = await Promise.all(operatorConfigFiles().map((file) => fsp.stat(file).catch(() => null)));
  const key = [rootReal, versionOf(repositoryConfig === null ? null : await repositoryConfig.stat()), ...operatorStats.map(versionOf)].join('|');
  if (remembered?.key === key) return remembered.segments;
  const segments = await hooksSegmentsFromGit(rootReal, repositoryConfig === null ? null : await readCapped(repositoryConfig, CONFIG_READ_BYTES));
  remembered = { key, segments };
  return segments;
}

async function hooksSegmentsFromGit(rootReal: string, repositoryConfig: Buffer | null): Promise<string[] | null> {
  const scopes: Array<[string[], Buffer | null]> = [
    [['--file', '-'], repositoryConfig],
    [['--global'], null],
    [['--system'], null],
  ];
  for (const [scope, stdin] of scopes) {
    if (scope[0] === '--file' && stdin === null) continue;
    const value = await gitConfigHooksPath(scope, stdin);
    if (value === null) continue;
    // `~` is the operator's home, outside the checkout (and not in the sandbox).
    if (value.startsWith('~')) return null;
    const absolute = path.resolve(rootReal, value);
    if (!isWithin(rootReal, absolute)) return null;
    const segments = path
      .relative(rootReal, absolute)
      .split(path.sep)
      .filter((part) => part !== '');
    return segments.length > 0 && segments.length <= MAX_HOOKS_DEPTH ? segments : null;
  }
  return null;
}

/**
 * Pins the checkout's git metadata for one bash call: what to bind and what to sweep afterwards.
 * Nothing here follows a symlink, opens a FIFO for reading or resolves a path a member wrote.
 */
export async function pinGitMetadata(rootReal: string): Promise<GitPins> {
  const handles: fsp.FileHandle[] = [];
  const release = async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.close().catch(() => undefined)));
  };
  const keep = (handle: fsp.FileHandle | null) => {
    if (handle !== null) handles.push(handle);
    return handle;
  };
  try {
    const root = keep(await fsp.open(rootReal, O_RDONLY | O_DIRECTORY)) as fsp.FileHandle;
    const binds: GitBind[] = [];
    const plantables: Plantable[] = [];
    const dest = (segments: readonly string[]) => path.join(rootReal, ...segments);
    const gitDir = keep(await openNoFollow(root, '.git', 'directory'));
    let repositoryConfig: fsp.FileHandle | null = null;
    if (gitDir === null) {
      // A linked worktree's `.git` file ("gitdir: …") is bound read-only as it is; anything else is the member's.
      const gitFile = keep(await openNoFollow(root, '.git', 'file'));
      if (gitFile !== null) binds.push({ handle: gitFile, dest: dest(['.git']), readOnly: true });
      else plantables.push({ dir: root, name: '.git', shown: '.git' });
    } else {
      binds.push({ handle: gitDir, dest: dest(['.git']), readOnly: false });
      for (const [name, kind] of Object.entries(GIT_DIRECTORY_NAMES)) {
        const found = keep(await openNoFollow(gitDir, name, kind));
        if (found === null) plantables.push({ dir: gitDir, name, shown: `.git/${name}` });
        else if (name === 'config' || name === 'hooks') binds.push({ handle: found, dest: dest(['.git', name]), readOnly: true });
        if (found !== null && name === 'config') repositoryConfig = found;
      }
    }
    const hooksPrefixes: string[][] = [];
    const hooks = await hooksSegments(rootReal, repositoryConfig);
    if (hooks !== null && !(hooks[0] === '.git' && gitDir === null)) {
      hooksPrefixes.push(hooks);
      // Every directory on the way is pinned onto itself, so none can be moved away and replaced by a symlink.
      let dir = root;
      for (let index = 0; index < hooks.length; index++) {
        const name = hooks[index] as string;
        const next = keep(await openNoFollow(dir, name, 'directory'));
        if (next === null) {
          plantables.push({ dir, name, shown: hooks.slice(0, index + 1).join('/') });
          break;
        }
        const last = index === hooks.length - 1;
        const at = dest(hooks.slice(0, index + 1));
        if (!binds.some((bind) => bind.dest === at)) binds.push({ handle: next, dest: at, readOnly: last });
        dir = next;
      }
    }
    return { binds, plantables, hooksPrefixes, release };
  } catch (error) {
    await release();
    throw error;
  }
}

/** The plantables something now stands at (looked up in their pinned directories, not followed). */
export async function plantedSince(pins: GitPins): Promise<Plantable[]> {
  const planted: Plantable[] = [];
  for (const plantable of pins.plantables) {
    try {
      await fsp.lstat(at(plantable.dir, plantable.name));
      planted.push(plantable);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'ENOTDIR') throw error;
    }
  }
  return planted;
}

/** The hooks directories the file tools refuse, root-relative, computed afresh for a write (only what that needs is opened). */
export async function protectedHooksPrefixes(rootReal: string): Promise<string[][]> {
  const opened: fsp.FileHandle[] = [];
  try {
    const root = await fsp.open(rootReal, O_RDONLY | O_DIRECTORY);
    opened.push(root);
    const gitDir = await openNoFollow(root, '.git', 'directory');
    if (gitDir !== null) opened.push(gitDir);
    const config = gitDir === null ? null : await openNoFollow(gitDir, 'config', 'file');
    if (config !== null) opened.push(config);
    const hooks = await hooksSegments(rootReal, config);
    return hooks === null || (hooks[0] === '.git' && gitDir === null) ? [] : [hooks];
  } finally {
    await Promise.all(opened.map((handle) => handle.close().catch(() => undefined)));
  }
}
