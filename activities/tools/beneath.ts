/**
 * Path resolution beneath the checkout through file descriptors (decision 0006). A path string
 * that was checked and is then walked again by the kernel can be redirected between the two walks
 * (a member's bash swaps a directory for a symlink out of the checkout). So the file tools never
 * hand the kernel a checked path: they hold an open descriptor of each directory on the way,
 * opened with O_NOFOLLOW from the descriptor before it, and act on `<dir fd>/<name>` through
 * /proc/self/fd, which the kernel resolves to the directory the descriptor pins, not to a path.
 *
 * Symlinks inside the checkout keep working: a component that is a symlink is read (readlink) and
 * its target walked the same way, from the descriptor of its directory (relative) or of the root
 * (absolute, when it names a path inside the checkout); `..` steps back to the descriptor one
 * level up and never above the root. The sandbox's mounts keep a member from moving a directory
 * out of the checkout while its descriptor is held (a rename across mounts fails with EXDEV).
 */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WORK_TOOL_ERRORS as E, WorkToolError } from '../../shared/agent/workTools';
import { errnoCode, isWithin } from './paths';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
/** As the kernel's own limit on symlinks followed in one lookup. */
const MAX_SYMLINKS = 40;

/** `<name>` inside the directory `dir` pins, as a path the kernel resolves through the descriptor. */
export function at(dir: fsp.FileHandle, name: string): string {
  return `/proc/self/fd/${dir.fd}/${name}`;
}

/** Where a path ends: the open directory holding its last component, and that component's name. */
export interface Resolved {
  /** The directory containing `name`, open; closed by `release`. */
  dir: fsp.FileHandle;
  /** The last component: not `.` or `..`, and not a symlink when resolution looked at it. */
  name: string;
  /** The root-relative components of the file, symlinks resolved: the same file gives the same key. */
  segments: string[];
  /** Closes every descriptor the walk opened. */
  release(): Promise<void>;
}

export interface BeneathOptions {
  /** Create missing directories on the way (write_file); otherwise a missing one is FileNotFound. */
  createDirectories: boolean;
  /** Refuses (throws) before a directory is created at these root-relative components (protected git metadata). */
  beforeCreate?: (segments: string[]) => void;
  /** The path as the model wrote it, root-relative, for messages. */
  shown: string;
  /** Who owns a directory the walk creates (bash's user, when the worker runs as root). */
  owner?: { uid: number; gid: number };
}

function outside(shown: string, how: string): WorkToolError {
  return new WorkToolError(E.pathOutsideCheckout, `${shown} ${how}, outside the checkout; use paths inside it (relative to your directory)`);
}

/** The components of a relative path; `.` and empty parts dropped. */
function split(relative: string): string[] {
  return relative.split('/').filter((part) => part !== '' && part !== '.');
}

/**
 * The root-relative components a symlink target stands for, or null when an absolute target lies
 * outside the checkout (under neither form of its root).
 */
function targetSegments(target: string, roots: readonly string[]): { absolute: boolean; parts: string[] } | null {
  if (!path.isAbsolute(target)) return { absolute: false, parts: split(target) };
  const normalized = path.resolve(target);
  for (const root of roots) {
    if (isWithin(root, normalized)) return { absolute: true, parts: split(path.relative(root, normalized).split(path.sep).join('/')) };
  }
  return null;
}

/**
 * Resolves `relative` (root-relative components) beneath the directory at `rootPath` and returns
 * its last component's directory, open. Every intermediate component must be a directory inside
 * the checkout; one that leaves it, lexically or through a symlink, is PathOutsideCheckout.
 */
export async function resolveBeneath(rootPath: string, roots: readonly string[], relative: string[], options: BeneathOptions): Promise<Resolved> {
  const opened: fsp.FileHandle[] = [];
  const release = async () => {
    await Promise.all(opened.splice(0).map((handle) => handle.close().catch(() => undefined)));
  };
  try {
    const root = await fsp.open(rootPath, O_RDONLY | O_DIRECTORY);
    opened.push(root);
    /** The open directories from the root down; `names[i]` is the name of `stack[i + 1]`. */
    const stack: fsp.FileHandle[] = [root];
    const names: string[] = [];
    const pending = [...relative];
    let symlinks = 0;

    const followSymlink = async (dir: fsp.FileHandle, name: string) => {
      if (++symlinks > MAX_SYMLINKS) throw outside(options.shown, `has more than ${MAX_SYMLINKS} symlinks on its way`);
      let target: string;
      try {
        target = await fsp.readlink(at(dir, name));
      } catch (error) {
        // Replaced by something else since we looked: resolve this component again.
        if (errnoCode(error) === 'EINVAL' || errnoCode(error) === 'ENOENT') return pending.unshift(name);
        throw error;
      }
      const resolved = targetSegments(target, roots);
      if (resolved === null) throw outside(options.shown, 'leads through a symlink');
      if (resolved.absolute) {
        stack.length = 1;
        names.length = 0;
      }
      pending.unshift(...resolved.parts);
    };

    while (pending.length > 0) {
      const name = pending.shift() as string;
      const dir = stack[stack.length - 1] as fsp.FileHandle;
      if (name === '..') {
        if (stack.length === 1) throw outside(options.shown, 'leads above the checkout root');
        stack.pop();
        names.pop();
        continue;
      }
      if (pending.length === 0) {
        // The last component: what it is decides what the caller does; a symlink is walked on.
        let isSymlink = false;
        try {
          isSymlink = (await fsp.lstat(at(dir, name))).isSymbolicLink();
        } catch (error) {
          if (errnoCode(error) !== 'ENOENT') throw error;
        }
        if (isSymlink) {
          await followSymlink(dir, name);
          continue;
        }
        return { dir, name, segments: [...names, name], release };
      }
      let next: fsp.FileHandle;
      try {
        next = await fsp.open(at(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (error) {
        const code = errnoCode(error);
        if (code === 'ENOENT' && options.createDirectories) {
          options.beforeCreate?.([...names, name]);
          const made = await fsp.mkdir(at(dir, name)).then(
            () => true,
            (mkdirError: unknown) => {
              if (errnoCode(mkdirError) !== 'EEXIST') throw mkdirError;
              return false;
            },
          );
          if (made && options.owner) await fsp.lchown(at(dir, name), options.owner.uid, options.owner.gid);
          pending.unshift(name);
          continue;
        }
        if (code === 'ENOTDIR' || code === 'ELOOP') {
          const stat = await fsp.lstat(at(dir, name));
          if (stat.isSymbolicLink()) {
            await followSymlink(dir, name);
            continue;
          }
          if (stat.isDirectory()) {
            // Swapped back into a directory since the open: look again, within the same bound as symlinks.
            if (++symlinks > MAX_SYMLINKS) throw outside(options.shown, 'kept changing while it was resolved');
            pending.unshift(name);
            continue;
          }
          throw new WorkToolError(E.notADirectory, `${[...names, name].join('/')}, a parent of ${options.shown}, is a file, not a directory`);
        }
        if (code === 'ENOENT') throw new WorkToolError(E.fileNotFound, `${options.shown} does not exist (no directory ${[...names, name].join('/')})`);
        throw error;
      }
      opened.push(next);
      stack.push(next);
      names.push(name);
    }
    // The path named a directory the walk ended in (".", "sub/.."): its parent and name, if any.
    if (names.length === 0) throw new WorkToolError(E.isADirectory, `${options.shown} is the checkout root, a directory; list it with bash (ls)`);
    const name = names[names.length - 1] as string;
    return { dir: stack[stack.length - 2] as fsp.FileHandle, name, segments: [...names], release };
  } catch (error) {
    await release();
    throw error;
  }
}
