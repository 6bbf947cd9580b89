/**
 * The file tools: read_file, write_file and edit_file, and what keeps their writes safe.
 *
 * - Every read, write, mkdir and rename acts on a descriptor proven to lie inside the checkout
 *   (beneath.ts), never on a path string the kernel walks again after the check.
 * - write_file and edit_file compare the caller's version (sha256 of the file's bytes) with the
 *   file's current one and fail with StaleVersion on a mismatch. Check and write are serialized per
 *   file inside this process and the write is atomic (temporary file + rename in the same directory
 *   descriptor); the rename happens only if the name still holds the file whose bytes were
 *   versioned. Two workers sharing one checkout can still race in the instant between that last
 *   check and the rename, and bash writes are not checked at all.
 * - Writes under a `.git` component, or under the hooks directory git is configured with, are
 *   ProtectedPath: what lands there runs later on the host (docs/security.md).
 * - A write_file retried after it already succeeded (e.g. the worker died before reporting) finds
 *   the intended content in place and succeeds again; a retried edit_file reports StaleVersion.
 * - Node's errno failures become typed, model-facing ones (FileNotFound, IsADirectory, ...), whose
 *   messages name root-relative paths only, control characters escaped (paths.ts, messageName).
 * - A read takes at most maxFileBytes + 1 bytes from the one descriptor it opened, whatever the
 *   file grows to meanwhile (FileTooLarge past the bound); only regular files are opened, with
 *   O_NOFOLLOW | O_NONBLOCK, so nothing a member makes (a FIFO, a socket) can hold the call.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import {
  editFileContract,
  readFileContract,
  WORK_TOOL_ERRORS as E,
  WORK_TOOL_LIMITS as LIMITS,
  WorkToolError,
  writeFileContract,
} from '../../shared/agent/workTools';
import { defineTool } from '../../shared/tools/tool';
import { at, type Resolved, resolveBeneath } from './beneath';
import type { WorkToolContext } from './context';
import { type CheckoutPaths, errnoCode, errnoError, messageName } from './paths';
import type { FileOwner } from './sandboxIdentity';

// O_NONBLOCK: opening a FIFO a member made must not hang the tool, nor a libuv thread (it is then
// refused as not a regular file); O_NOCTTY: no terminal becomes the worker's.
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = fs.constants;
/** The first read's buffer, unless the file says it is smaller; it doubles up to maxFileBytes + 1. */
const FIRST_READ_BYTES = 64 * 1024;
/** How often a file whose last component turned into a symlink mid-call is resolved again. */
const RESOLVE_ATTEMPTS = 3;

function versionOf(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Thrown when the last component became a symlink between resolving and opening it. */
class ChangedUnderfoot extends Error {}

/** Runs one file operation and turns every failure into a typed, model-facing one about `label` (a messageName). */
async function typedFs<T>(label: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof WorkToolError || error instanceof ChangedUnderfoot) throw error;
    throw errnoError(error, label);
  }
}

/** Per-file serialization of check-and-write inside this process. */
function createFileLocks() {
  const tails = new Map<string, Promise<unknown>>();
  return async function withFileLock<T>(key: string, body: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(body, body);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/** The file a name held when it was read: its identity, so a rename replaces only that file. */
interface Current {
  bytes: Buffer;
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
}

/**
 * Replaces `resolved` atomically: a temporary file created in the same directory descriptor, then a
 * rename there, but only while the name still holds `current` (or nothing, for a new file).
 */
async function writeAtomically(resolved: Resolved, current: Current | null, content: string, label: string, owner: FileOwner | undefined): Promise<void> {
  const temporary = `.${resolved.name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const mode = current === null ? 0o666 : current.mode;
  const handle = await fsp.open(at(resolved.dir, temporary), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    try {
      await handle.writeFile(content);
      if (current !== null) await handle.chmod(current.mode);
      // A worker running as root keeps what it writes bash's (sandboxIdentity.ts): a replaced file keeps its owner.
      if (owner !== undefined) await handle.chown(current?.uid ?? owner.uid, current?.gid ?? owner.gid);
    } finally {
      await handle.close();
    }
    let now: fs.Stats | null = null;
    try {
      now = await fsp.lstat(at(resolved.dir, resolved.name));
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
    const same = current === null ? now === null : now !== null && now.dev === current.dev && now.ino === current.ino;
    if (!same) throw new WorkToolError(E.staleVersion, `${label} was replaced while it was being written; read_file it again and rebase your change`);
    await fsp.rename(at(resolved.dir, temporary), at(resolved.dir, resolved.name));
  } catch (error) {
    await fsp.unlink(at(resolved.dir, temporary)).catch(() => undefined);
    throw error;
  }
}

/** The lines [offset, offset+limit) of `text`, bounded by the read limits. */
export function sliceLines(text: string, offset: number, limit: number): { content: string; totalLines: number; truncated: boolean } {
  const starts: number[] = [];
  if (text.length > 0) {
    starts.push(0);
    for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  }
  const totalLines = starts.length;
  const first = offset - 1;
  if (first >= totalLines) return { content: '', totalLines, truncated: false };
  const lines = Math.min(limit, LIMITS.readMaxLines, totalLines - first);
  const lineEnd = (index: number) => starts[index + 1] ?? text.length;
  const begin = starts[first] ?? 0;
  let end = begin;
  let bytes = 0;
  for (let index = first; index < first + lines; index++) {
    const next = lineEnd(index);
    const lineBytes = Buffer.byteLength(text.slice(end, next));
    if (bytes + lineBytes > LIMITS.readMaxBytes) {
      if (end === begin) {
        // A single line longer than the byte bound: return its head, cut at a character boundary.
        for (const character of text.slice(end, next)) {
          const size = Buffer.byteLength(character);
          if (bytes + size > LIMITS.readMaxBytes) break;
          bytes += size;
          end += character.length;
        }
      }
      break;
    }
    bytes += lineBytes;
    end = next;
  }
  return { content: text.slice(begin, end), totalLines, truncated: end < text.length };
}

function tooLarge(label: string, size: string): WorkToolError {
  return new WorkToolError(
    E.fileTooLarge,
    `${label} has ${size} bytes, more than the file tools handle (${LIMITS.maxFileBytes}); inspect it with bash (head, sed -n, grep)`,
  );
}

/** Refuses what is not a regular file, before anything opens it (and again on the descriptor, for a swap in between). */
function refuseIrregular(stat: fs.Stats, label: string): void {
  if (stat.isDirectory()) throw new WorkToolError(E.isADirectory, `${label} is a directory; list it with bash (ls)`);
  if (!stat.isFile()) throw new WorkToolError(E.permissionDenied, `${label} is not a regular file; the file tools read and write only regular files`);
}

/**
 * At most maxFileBytes + 1 bytes of `handle`, read at explicit offsets into a buffer that starts at
 * the size fstat gave and doubles up to that bound; null when more than maxFileBytes came, however
 * large the file has grown since fstat (a member may be growing it from bash as we read).
 */
async function readBounded(handle: fsp.FileHandle, sizeHint: number): Promise<Buffer | null> {
  const cap = LIMITS.maxFileBytes + 1;
  let buffer = Buffer.allocUnsafe(Math.min(cap, Math.max(FIRST_READ_BYTES, sizeHint + 1)));
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (buffer.length >= cap) break;
      const grown = Buffer.allocUnsafe(Math.min(cap, buffer.length * 2));
      buffer.copy(grown, 0, 0, total);
      buffer = grown;
    }
    const asked = buffer.length - total;
    const { bytesRead } = await handle.read(buffer, total, asked, total);
    total += bytesRead;
    // A regular file reads short only at its end: no second read to learn that (one syscall per read_file).
    if (bytesRead < asked) break;
  }
  if (total > LIMITS.maxFileBytes) return null;
  // A copy of the exact size: the caller keeps it, and the larger buffer goes.
  return total === buffer.length ? buffer : Buffer.from(buffer.subarray(0, total));
}

/** The file the resolved name holds, read through one descriptor, or null if it does not exist. */
async function readCurrent(resolved: Resolved, label: string): Promise<Current | null> {
  return typedFs(label, async () => {
    const file = at(resolved.dir, resolved.name);
    let before: fs.Stats;
    try {
      before = await fsp.lstat(file);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw error;
    }
    if (before.isSymbolicLink()) throw new ChangedUnderfoot();
    refuseIrregular(before, label);
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      if (errnoCode(error) === 'ELOOP') throw new ChangedUnderfoot();
      throw error;
    }
    try {
      const stat = await handle.stat();
      refuseIrregular(stat, label);
      if (stat.size > LIMITS.maxFileBytes) throw tooLarge(label, String(stat.size));
      const bytes = await readBounded(handle, stat.size);
      if (bytes === null) throw tooLarge(label, `more than ${LIMITS.maxFileBytes}`);
      return { bytes, dev: stat.dev, ino: stat.ino, mode: stat.mode & 0o7777, uid: stat.uid, gid: stat.gid };
    } finally {
      await handle.close().catch(() => undefined);
    }
  });
}

function stale(label: string, current: string): WorkToolError {
  return new WorkToolError(E.staleVersion, `${label} changed since you read it (current version ${current}); read_file again and rebase your change`);
}

/** Non-overlapping occurrences of `needle` in `text`, as `split` counts them. */
function occurrencesOf(text: string, needle: string): number {
  let count = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) count++;
  return count;
}

function protectedPath(label: string): WorkToolError {
  return new WorkToolError(
    E.protectedPath,
    `${label} is git metadata (a .git directory or the configured hooks directory), which runs code on the host later; the file tools do not write it. ` +
      `Use git commands in bash to stage and commit`,
  );
}

export interface FileToolsOptions {
  /**
   * Root-relative components under which the file tools never write (git's hooks directories),
   * besides every `.git`: asked for every write, since the operator may configure one at any time.
   */
  protectedPrefixes?: () => Promise<readonly string[][]>;
  /** Who owns what the tools create (a root worker's writes stay writable by bash's user); default: this process. */
  owner?: FileOwner;
}

/** read_file, write_file and edit_file over the checkout `paths` contains; one lock table for the writes. */
export function createFileTools(paths: CheckoutPaths, options: FileToolsOptions = {}) {
  const withFileLock = createFileLocks();
  const roots = [paths.resolved, paths.real];
  const isProtected = (segments: string[], protectedPrefixes: readonly string[][]) =>
    segments.some((segment) => segment.toLowerCase() === '.git') ||
    protectedPrefixes.some((prefix) => prefix.length > 0 && prefix.every((part, index) => segments[index] === part));

  /**
   * Resolves a path argument beneath the checkout and runs `body` on it, resolving again when its
   * last component turned into a symlink between the walk and the open. `shown` is the path for the
   * result, as the model wrote it (root-relative); `label` the same for messages (messageName).
   */
  async function onFile<T>(
    input: string,
    base: string,
    access: { write: boolean },
    body: (resolved: Resolved, shown: string, label: string) => Promise<T>,
  ): Promise<T> {
    const { segments, shown } = paths.fileArgument(input, base);
    const label = messageName(shown);
    // As written, then at every directory the walk would create, then as resolved through symlinks.
    const protectedPrefixes = access.write && options.protectedPrefixes ? await options.protectedPrefixes() : [];
    const refuseProtected = (candidate: string[]) => {
      if (isProtected(candidate, protectedPrefixes)) throw protectedPath(label);
    };
    if (access.write) refuseProtected(segments);
    for (let attempt = 1; ; attempt++) {
      const resolved = await resolveBeneath(paths.real, roots, segments, {
        createDirectories: access.write,
        shown,
        beforeCreate: refuseProtected,
        ...(options.owner ? { owner: options.owner } : {}),
      });
      try {
        if (access.write) refuseProtected(resolved.segments);
        return await body(resolved, shown, label);
      } catch (error) {
        if (!(error instanceof ChangedUnderfoot)) throw error;
        if (attempt >= RESOLVE_ATTEMPTS) throw new WorkToolError(E.pathOutsideCheckout, `${label} kept changing into a symlink while it was opened; try again`);
      } finally {
        await resolved.release();
      }
    }
  }

  const readFile = defineTool({
    ...readFileContract,
    async execute(input, context: WorkToolContext) {
      return onFile(input.path, context.base, { write: false }, async (resolved, shown, label) => {
        const current = await readCurrent(resolved, label);
        if (current === null) throw new WorkToolError(E.fileNotFound, `${label} does not exist`);
        const sliced = sliceLines(current.bytes.toString('utf8'), input.offset ?? 1, input.limit ?? LIMITS.readMaxLines);
        return { path: shown, content: sliced.content, version: versionOf(current.bytes), totalLines: sliced.totalLines, truncated: sliced.truncated };
      });
    },
  });

  const writeFile = defineTool({
    ...writeFileContract,
    async execute(input, context: WorkToolContext) {
      const bytes = Buffer.byteLength(input.content);
      if (bytes > LIMITS.maxFileBytes) {
        throw new WorkToolError(E.fileTooLarge, `content has ${bytes} bytes, more than write_file handles (${LIMITS.maxFileBytes})`);
      }
      const intended = versionOf(input.content);
      return onFile(input.path, context.base, { write: true }, (resolved, shown, label) =>
        withFileLock(resolved.segments.join('/'), async () => {
          const current = await readCurrent(resolved, label);
          const currentVersion = current === null ? null : versionOf(current.bytes);
          // Already holds exactly this content (e.g. a retry of a write that succeeded): nothing is lost by succeeding.
          if (currentVersion === intended) return { path: shown, version: intended, bytes };
          if (input.version === null && currentVersion !== null) {
            throw new WorkToolError(
              E.staleVersion,
              `${label} already exists (current version ${currentVersion}); read_file it and rebase your change, passing its version`,
            );
          }
          if (input.version !== null && currentVersion === null) {
            throw new WorkToolError(E.staleVersion, `${label} does not exist any more; read the directory again, and pass version null to create it`);
          }
          if (input.version !== null && input.version !== currentVersion) throw stale(label, currentVersion ?? 'none');
          await typedFs(label, () => writeAtomically(resolved, current, input.content, label, options.owner));
          return { path: shown, version: intended, bytes };
        }),
      );
    },
  });

  const editFile = defineTool({
    ...editFileContract,
    async execute(input, context: WorkToolContext) {
      return onFile(input.path, context.base, { write: true }, (resolved, shown, label) =>
        withFileLock(resolved.segments.join('/'), async () => {
          const current = await readCurrent(resolved, label);
          if (current === null) throw new WorkToolError(E.fileNotFound, `${label} does not exist; create it with write_file and version null`);
          const currentVersion = versionOf(current.bytes);
          if (input.version !== currentVersion) throw stale(label, currentVersion);
          const text = current.bytes.toString('utf8');
          const occurrences = occurrencesOf(text, input.oldText);
          if (occurrences === 0) {
            throw new WorkToolError(E.editTextNotFound, `oldText does not occur in ${label}; read_file it and copy the text exactly, whitespace included`);
          }
          if (occurrences > 1 && !input.replaceAll) {
            throw new WorkToolError(
              E.editTextAmbiguous,
              `oldText occurs ${occurrences} times in ${label}; include more surrounding text to make it unique, or pass replaceAll: true`,
            );
          }
          // The size the edit would give, from the counts alone: nothing over the bound is ever built.
          const bytes = Buffer.byteLength(text) + occurrences * (Buffer.byteLength(input.newText) - Buffer.byteLength(input.oldText));
          if (bytes > LIMITS.maxFileBytes) {
            throw new WorkToolError(E.fileTooLarge, `the edit would make ${label} ${bytes} bytes, more than the file tools handle (${LIMITS.maxFileBytes})`);
          }
          const updated = text.split(input.oldText).join(input.newText);
          await typedFs(label, () => writeAtomically(resolved, current, updated, label, options.owner));
          return { path: shown, version: versionOf(updated), replacements: occurrences };
        }),
      );
    },
  });

  return [readFile, writeFile, editFile] as const;
}
