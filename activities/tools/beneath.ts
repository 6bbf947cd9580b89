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
 *
 * The worker runs as root and a member controls every name here, so a walk is bounded per call
 * (WORK_TOOL_LIMITS): at most 4,096 components resolved (symlink targets and `..` included), 256
 * directories below the root, 40 symlinks, 255 bytes a name; over any of them, PathTooComplex. A
 * descriptor popped by `..`, or dropped by an absolute symlink, is closed at once, so a walk never
 * holds more than 257 descriptors (the root and one per level). Every errno becomes a typed
 * WorkToolError whose message names root-relative paths only, control characters escaped
 * (paths.ts: errnoError, messageName).
 */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WORK_TOOL_ERRORS as E, WORK_TOOL_LIMITS as LIMITS, WorkToolError } from '../../shared/agent/workTools';
import { errnoCode, errnoError, isWithin, messageName, pathTooComplex } from './paths';

// O_NONBLOCK: no open here may wait (a FIFO, were O_DIRECTORY ever not to refuse it first).
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
const DIRECTORY_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK;

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
  /** Closes every descriptor the walk holds. */
  release(): Promise<void>;
}

export interface BeneathOptions {
  /** Create missing directories on the way (write_file); otherwise a missing one is FileNotFound. */
  createDirectories: boolean;
  /** Refuses (throws) before a directory is created at these root-relative components (protected git metadata). */
  beforeCreate?: (segments: string[]) => void;
  /** The path as the model wrote it, root-relative, for messages (escaped there by messageName). */
  shown: string;
  /** Who owns a directory the walk creates (bash's user, when the worker runs as root). */
  owner?: { uid: number; gid: number };
}

function outside(label: string, how: string): WorkToolError {
  return new WorkToolError(E.pathOutsideCheckout, `${label} ${how}, outside the checkout; use paths inside it (relative to your directory)`);
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

const close = (handle: fsp.FileHandle) => handle.close().catch(() => undefined);

/** What a walk leaves open: the directories from the root down, and their names below it. */
interface Walked {
  /** `stack[0]` is the root; `names[i]` is the name of `stack[i + 1]`. */
  stack: fsp.FileHandle[];
  names: string[];
  /** The last component when the walk stopped before opening it ('entry'); null when it opened everything. */
  last: string | null;
  release: () => Promise<void>;
}

/**
 * The walk itself. 'entry': every component but the last must be a directory, and the last is
 * looked at (lstat) but not opened: a symlink there is followed, anything else ends the walk.
 * 'directory': every component, the last included, is opened as a directory.
 */
async function walk(
  rootPath: string,
  roots: readonly string[],
  relative: readonly string[],
  options: BeneathOptions,
  final: 'entry' | 'directory',
): Promise<Walked> {
  const label = messageName(options.shown);
  const stack: fsp.FileHandle[] = [];
  const names: string[] = [];
  const release = async () => {
    await Promise.all(stack.splice(0).map(close));
  };
  try {
    if (relative.length > LIMITS.pathMaxComponents) throw pathTooComplex(label, `has more than ${LIMITS.pathMaxComponents} components`);
    stack.push(await fsp.open(rootPath, O_RDONLY | O_DIRECTORY));
    /** Components still to resolve, the next one last (symlink targets are pushed in front). */
    const pending = [...relative].reverse();
    const pushFront = (parts: readonly string[]) => {
      for (let index = parts.length - 1; index >= 0; index--) pending.push(parts[index] as string);
    };
    /** Closes the directories below `depth` (the root is depth 1), at once: the walk holds no descriptor it left. */
    const truncate = async (depth: number) => {
      const left = stack.splice(depth);
      names.length = depth - 1;
      await Promise.all(left.map(close));
    };
    let symlinks = 0;
    let components = 0;
    const where = (name: string) => messageName([...names, name].join('/'));

    const followSymlink = async (dir: fsp.FileHandle, name: string) => {
      if (++symlinks > LIMITS.pathMaxSymlinks) throw pathTooComplex(label, `leads through more than ${LIMITS.pathMaxSymlinks} symlinks (a loop?)`);
      let target: string;
      try {
        target = await fsp.readlink(at(dir, name));
      } catch (error) {
        // Replaced by something else since we looked: resolve this component again (it counts again).
        if (errnoCode(error) === 'EINVAL' || errnoCode(error) === 'ENOENT') return pending.push(name);
        throw error;
      }
      const resolved = targetSegments(target, roots);
      if (resolved === null) throw outside(label, 'leads through a symlink');
      if (resolved.absolute) await truncate(1);
      pushFront(resolved.parts);
    };

    while (pending.length > 0) {
      if (++components > LIMITS.pathMaxComponents) {
        throw pathTooComplex(label, `takes more than ${LIMITS.pathMaxComponents} steps to resolve, symlinks included`);
      }
      const name = pending.pop() as string;
      const dir = stack[stack.length - 1] as fsp.FileHandle;
      if (name === '' || name === '.') continue;
      if (name === '..') {
        if (stack.length === 1) throw outside(label, 'leads above the checkout root');
        await truncate(stack.length - 1);
        continue;
      }
      if (Buffer.byteLength(name) > LIMITS.nameMaxBytes) throw pathTooComplex(label, `has a name longer than ${LIMITS.nameMaxBytes} bytes`);
      if (name.includes('\0')) throw new WorkToolError(E.fileNotFound, `${label} cannot exist: no file name holds a NUL character`);
      if (pending.length === 0 && final === 'entry') {
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
        return { stack, names, last: name, release };
      }
      if (stack.length - 1 >= LIMITS.pathMaxDepth) throw pathTooComplex(label, `lies more than ${LIMITS.pathMaxDepth} directories deep`);
      let next: fsp.FileHandle;
      try {
        next = await fsp.open(at(dir, name), DIRECTORY_FLAGS);
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
          pending.push(name);
          continue;
        }
        if (code === 'ENOTDIR' || code === 'ELOOP') {
          let stat: fs.Stats;
          try {
            stat = await fsp.lstat(at(dir, name));
          } catch (lstatError) {
            // Gone since the open: resolve it again (it counts again).
            if (errnoCode(lstatError) !== 'ENOENT') throw lstatError;
            pending.push(name);
            continue;
          }
          if (stat.isSymbolicLink()) {
            await followSymlink(dir, name);
            continue;
          }
          if (stat.isDirectory()) {
            // Swapped back into a directory since the open: look again, within the same bound as symlinks.
            if (++symlinks > LIMITS.pathMaxSymlinks) throw outside(label, 'kept changing while it was resolved');
            pending.push(name);
            continue;
          }
          throw new WorkToolError(E.notADirectory, `${where(name)}, a parent of ${label}, is a file, not a directory`);
        }
        if (code === 'ENOENT') throw new WorkToolError(E.fileNotFound, `${label} does not exist (no directory ${where(name)})`);
        throw error;
      }
      stack.push(next);
      names.push(name);
    }
    return { stack, names, last: null, release };
  } catch (error) {
    await release();
    throw errnoError(error, label);
  }
}

/**
 * Resolves `relative` (root-relative components) beneath the directory at `rootPath` and returns
 * its last component's directory, open. Every intermediate component must be a directory inside
 * the checkout; one that leaves it, lexically or through a symlink, is PathOutsideCheckout. Every
 * failure is a WorkToolError.
 */
export async function resolveBeneath(rootPath: string, roots: readonly string[], relative: readonly string[], options: BeneathOptions): Promise<Resolved> {
  const walked = await walk(rootPath, roots, relative, options, 'entry');
  const { stack, names, release } = walked;
  if (walked.last !== null) return { dir: stack[stack.length - 1] as fsp.FileHandle, name: walked.last, segments: [...names, walked.last], release };
  // The path named a directory the walk ended in (".", "sub/.."): its parent and name, if any.
  if (names.length === 0) {
    await release();
    throw new WorkToolError(E.isADirectory, `${messageName(options.shown)} is the checkout root, a directory; list it with bash (ls)`);
  }
  return { dir: stack[stack.length - 2] as fsp.FileHandle, name: names[names.length - 1] as string, segments: [...names], release };
}

/**
 * The directory `relative` names (root-relative components, e.g. a member's directory or where a
 * command ended), resolved through the same bounded descriptor walk as the file tools: symlinks
 * inside the checkout are followed, nothing outside is. Returns its real root-relative components
 * ([] for the root); every descriptor is closed before it returns. Throws only WorkToolErrors:
 * PathOutsideCheckout, FileNotFound, NotADirectory, PathTooComplex, PermissionDenied,
 * FileSystemError; `shown` (default: the components joined) is what their messages call the path.
 */
export async function resolveDirectoryBeneath(rootPath: string, roots: readonly string[], relative: readonly string[], shown?: string): Promise<string[]> {
  const walked = await walk(rootPath, roots, relative, { createDirectories: false, shown: shown ?? (relative.join('/') || '.') }, 'directory');
  const segments = [...walked.names];
  await walked.release();
  return segments;
}
