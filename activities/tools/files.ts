/**
 * The file tools: read_file, write_file and edit_file, and what keeps their writes safe.
 *
 * - write_file and edit_file compare the caller's version (sha256 of the file's bytes) with the
 *   file's current one and fail with StaleVersion on a mismatch. Check and write are serialized per
 *   file inside this process and the write is atomic (temporary file + rename); two workers sharing
 *   one checkout can still race between check and rename, and bash writes are not checked at all.
 * - A write_file retried after it already succeeded (e.g. the worker died before reporting) finds
 *   the intended content in place and succeeds again; a retried edit_file reports StaleVersion.
 * - Node's errno failures become typed, model-facing ones (FileNotFound, IsADirectory, ...).
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import {
  editFileContract,
  readFileContract,
  WORK_TOOL_ERRORS as E,
  WORK_TOOL_LIMITS as LIMITS,
  WorkToolError,
  writeFileContract,
} from '../../shared/agent/workTools';
import { defineTool } from '../../shared/tools/tool';
import type { WorkToolContext } from './context';
import { type CheckoutPaths, errnoCode } from './paths';

const ERRNO_TYPES: Record<string, string> = {
  ENOENT: E.fileNotFound,
  EISDIR: E.isADirectory,
  ENOTDIR: E.notADirectory,
  EACCES: E.permissionDenied,
  EPERM: E.permissionDenied,
};

function versionOf(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Runs one file operation and turns Node's errno failures into typed, model-facing ones. */
async function typedFs<T>(display: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof WorkToolError) throw error;
    const type = ERRNO_TYPES[errnoCode(error) ?? ''];
    if (!type) throw error;
    const what: Record<string, string> = {
      [E.fileNotFound]: `${display} does not exist`,
      [E.isADirectory]: `${display} is a directory; list it with bash (ls)`,
      [E.notADirectory]: `a parent of ${display} is a file, not a directory`,
      [E.permissionDenied]: `permission denied on ${display}`,
    };
    throw new WorkToolError(type, what[type] ?? String(error));
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

/** Replaces a file atomically (same-directory temporary file, then rename), keeping its mode. */
async function writeAtomically(target: string, content: string): Promise<void> {
  await fsp.mkdir(path.dirname(target), { recursive: true });
  let mode: number | undefined;
  try {
    mode = (await fsp.stat(target)).mode & 0o7777;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await fsp.writeFile(temporary, content, mode === undefined ? { flag: 'wx' } : { flag: 'wx', mode });
    if (mode !== undefined) await fsp.chmod(temporary, mode);
    await fsp.rename(temporary, target);
  } catch (error) {
    await fsp.rm(temporary, { force: true });
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

/** The file's bytes, or null if it does not exist. */
async function readCurrent(real: string, shown: string): Promise<Buffer | null> {
  return typedFs(shown, async () => {
    let size: number;
    try {
      const stat = await fsp.stat(real);
      if (stat.isDirectory()) throw new WorkToolError(E.isADirectory, `${shown} is a directory; list it with bash (ls)`);
      size = stat.size;
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw error;
    }
    if (size > LIMITS.maxFileBytes) {
      throw new WorkToolError(
        E.fileTooLarge,
        `${shown} has ${size} bytes, more than the file tools handle (${LIMITS.maxFileBytes}); inspect it with bash (head, sed -n, grep)`,
      );
    }
    return fsp.readFile(real);
  });
}

function stale(shown: string, current: string): WorkToolError {
  return new WorkToolError(E.staleVersion, `${shown} changed since you read it (current version ${current}); read_file again and rebase your change`);
}

/** read_file, write_file and edit_file over the checkout `paths` contains; one lock table for the writes. */
export function createFileTools(paths: CheckoutPaths) {
  const withFileLock = createFileLocks();

  const readFile = defineTool({
    ...readFileContract,
    async execute(input, context: WorkToolContext) {
      const { real, shown } = await paths.resolveFile(input.path, context.base);
      const bytes = await readCurrent(real, shown);
      if (bytes === null) throw new WorkToolError(E.fileNotFound, `${shown} does not exist`);
      const sliced = sliceLines(bytes.toString('utf8'), input.offset ?? 1, input.limit ?? LIMITS.readMaxLines);
      return { path: shown, content: sliced.content, version: versionOf(bytes), totalLines: sliced.totalLines, truncated: sliced.truncated };
    },
  });

  const writeFile = defineTool({
    ...writeFileContract,
    async execute(input, context: WorkToolContext) {
      const { real, shown } = await paths.resolveFile(input.path, context.base);
      const bytes = Buffer.byteLength(input.content);
      if (bytes > LIMITS.maxFileBytes) {
        throw new WorkToolError(E.fileTooLarge, `content has ${bytes} bytes, more than write_file handles (${LIMITS.maxFileBytes})`);
      }
      const intended = versionOf(input.content);
      return withFileLock(real, async () => {
        const current = await readCurrent(real, shown);
        const currentVersion = current === null ? null : versionOf(current);
        // Already holds exactly this content (e.g. a retry of a write that succeeded): nothing is lost by succeeding.
        if (currentVersion === intended) return { path: shown, version: intended, bytes };
        if (input.version === null && currentVersion !== null) {
          throw new WorkToolError(
            E.staleVersion,
            `${shown} already exists (current version ${currentVersion}); read_file it and rebase your change, passing its version`,
          );
        }
        if (input.version !== null && currentVersion === null) {
          throw new WorkToolError(E.staleVersion, `${shown} does not exist any more; read the directory again, and pass version null to create it`);
        }
        if (input.version !== null && input.version !== currentVersion) throw stale(shown, currentVersion ?? 'none');
        await typedFs(shown, () => writeAtomically(real, input.content));
        return { path: shown, version: intended, bytes };
      });
    },
  });

  const editFile = defineTool({
    ...editFileContract,
    async execute(input, context: WorkToolContext) {
      const { real, shown } = await paths.resolveFile(input.path, context.base);
      return withFileLock(real, async () => {
        const current = await readCurrent(real, shown);
        if (current === null) throw new WorkToolError(E.fileNotFound, `${shown} does not exist; create it with write_file and version null`);
        const currentVersion = versionOf(current);
        if (input.version !== currentVersion) throw stale(shown, currentVersion);
        const text = current.toString('utf8');
        const parts = text.split(input.oldText);
        const occurrences = parts.length - 1;
        if (occurrences === 0) {
          throw new WorkToolError(E.editTextNotFound, `oldText does not occur in ${shown}; read_file it and copy the text exactly, whitespace included`);
        }
        if (occurrences > 1 && !input.replaceAll) {
          throw new WorkToolError(
            E.editTextAmbiguous,
            `oldText occurs ${occurrences} times in ${shown}; include more surrounding text to make it unique, or pass replaceAll: true`,
          );
        }
        const updated = parts.join(input.newText);
        const bytes = Buffer.byteLength(updated);
        if (bytes > LIMITS.maxFileBytes) {
          throw new WorkToolError(E.fileTooLarge, `the edit would make ${shown} ${bytes} bytes, more than the file tools handle (${LIMITS.maxFileBytes})`);
        }
        await typedFs(shown, () => writeAtomically(real, updated));
        return { path: shown, version: versionOf(updated), replacements: occurrences };
      });
    },
  });

  return [readFile, writeFile, editFile] as const;
}
