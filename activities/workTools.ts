/**
 * The work tools as a Temporal activity: `runWorkTool` runs one model tool call (read_file,
 * write_file, edit_file, bash) on the shared checkout under `root` and returns the model-facing
 * result text plus the member's directory afterwards.
 *
 * - Paths resolve against the member's directory (`cwd`, relative to root); anything that leaves
 *   the checkout, lexically or through a symlink, fails with PathOutsideCheckout.
 * - write_file and edit_file compare the caller's version (sha256 of the file's bytes) with the
 *   file's current one and fail with StaleVersion on a mismatch. Check and write are serialized per
 *   file inside this process and the write is atomic (temporary file + rename); two workers sharing
 *   one checkout can still race between check and rename, and bash writes are not checked at all.
 * - A write_file retried after it already succeeded (e.g. the worker died before reporting) finds
 *   the intended content in place and succeeds again; a retried edit_file reports StaleVersion.
 * - bash runs `bash -c` under bubblewrap (activities/bashSandbox.ts; SandboxUnavailable when it
 *   cannot start, unsandboxed only with AGENT_TEAMS_BASH_SANDBOX=none) in its own process group,
 *   heartbeats while it runs, and is killed (whole group, SIGKILL; the sandbox dies with its parent)
 *   on timeout or activity cancellation. Its final directory comes back on fd 3
 *   from an EXIT trap, so `cd` persists across calls (unless the command replaces the trap, execs,
 *   or is killed: then the directory stays as it was).
 */
import { Context } from '@temporalio/activity';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import {
  bashContract,
  editFileContract,
  readFileContract,
  type RunWorkToolInput,
  type RunWorkToolOutput,
  WORK_TOOL_ERRORS as E,
  WORK_TOOL_LIMITS as LIMITS,
  WORK_TOOL_NAMES,
  WorkToolError,
  writeFileContract,
} from '../shared/agent/workTools';
import { type AnyTool, defineTool, runToolCall } from '../shared/tools/tool';
import { type BashSandboxConfig, bwrapArgs, credentialFiles, probeSandbox, sandboxConfigFromEnv, sandboxEnv, sandboxHome } from './bashSandbox';

export { WorkToolError };

export const CHECKOUT_ROOT_ENV = 'AGENT_TEAMS_CHECKOUT';

/** The checkout the work tools operate on: $AGENT_TEAMS_CHECKOUT, else the process's directory. */
export function checkoutRootFromEnv(env: Record<string, string | undefined> = process.env): string {
  const configured = env[CHECKOUT_ROOT_ENV]?.trim();
  return path.resolve(configured ? configured : process.cwd());
}

/** Worker secrets that bash commands (and so the model and its transcript) must not see. */
const HIDDEN_ENV = ['MODEL_API_KEY', 'TEMPORAL_API_KEY'];

export interface WorkToolOptions {
  /** The checkout; must exist. */
  root: string;
  /** Called periodically while bash runs; default: the current activity's heartbeat, if any. */
  heartbeat?: () => void;
  heartbeatIntervalMs?: number;
  /**
   * The worker environment bash draws on; default: this process's. Sandboxed, bash sees only the
   * allow-list from it; unsandboxed, all of it without MODEL_API_KEY and TEMPORAL_API_KEY.
   */
  env?: Record<string, string | undefined>;
  /** The bash sandbox; default: from AGENT_TEAMS_BASH_SANDBOX / _NETWORK / _ENV (bubblewrap on). */
  sandbox?: Partial<BashSandboxConfig>;
}

interface WorkToolContext {
  /** Absolute directory relative paths resolve against. */
  base: string;
  /** The member's directory relative to root, '.' for root. */
  cwd: string;
  /** Set by bash when the member's directory changes. */
  nextCwd?: string;
  heartbeat?: () => void;
  signal?: AbortSignal;
}

const ERRNO_TYPES: Record<string, string> = {
  ENOENT: E.fileNotFound,
  EISDIR: E.isADirectory,
  ENOTDIR: E.notADirectory,
  EACCES: E.permissionDenied,
  EPERM: E.permissionDenied,
};

function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

function versionOf(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function toPosix(relative: string): string {
  return relative === '' ? '.' : relative.split(path.sep).join('/');
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

/** Keeps the last `cap` bytes of a stream. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = false;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0]?.length ?? 0) >= this.cap) {
      this.size -= this.chunks.shift()?.length ?? 0;
      this.dropped = true;
    }
  }
  text(): { text: string; truncated: boolean } {
    let all = Buffer.concat(this.chunks);
    let truncated = this.dropped;
    if (all.length > this.cap) {
      all = all.subarray(all.length - this.cap);
      truncated = true;
    }
    if (truncated) {
      // Do not start in the middle of a UTF-8 character.
      let skip = 0;
      while (skip < all.length && skip < 4 && ((all[skip] ?? 0) & 0xc0) === 0x80) skip++;
      all = all.subarray(skip);
    }
    return { text: all.toString('utf8'), truncated };
  }
}

function defaultHeartbeat(): { heartbeat?: () => void; signal?: AbortSignal } {
  try {
    const context = Context.current();
    return { heartbeat: () => context.heartbeat(), signal: context.cancellationSignal };
  } catch {
    return {}; // not running inside an activity (e.g. tests calling the function directly)
  }
}

const CWD_FD = 3;
/** Reports the shell's final directory on fd 3 however the script ends (normally, exit, set -e). */
const CWD_TRAILER = `trap 'builtin pwd -P >&${CWD_FD} 2>/dev/null' EXIT\n`;
/** How long to wait for output after bash exited while background processes still hold the pipes. */
const DRAIN_AFTER_EXIT_MS = 200;

export function createWorkToolActivities(options: WorkToolOptions) {
  const rootResolved = path.resolve(options.root);
  const rootReal = fs.realpathSync(rootResolved);
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 1000;
  const workerEnv = options.env ?? process.env;
  const sandbox: BashSandboxConfig = { ...sandboxConfigFromEnv(workerEnv), ...options.sandbox };
  const home = sandboxHome(rootReal, workerEnv.HOME);
  const bashEnv =
    sandbox.mode === 'none' ? Object.fromEntries(Object.entries(workerEnv).filter(([name]) => !HIDDEN_ENV.includes(name))) : sandboxEnv(workerEnv, sandbox, home);
  const maskFiles = credentialFiles(workerEnv);
  /** Set once a probe succeeded; a failed probe is retried on the next call. */
  let sandboxChecked = false;

  async function ensureSandbox(): Promise<void> {
    if (sandbox.mode === 'none' || sandboxChecked) return;
    const probe = await probeSandbox(sandbox, rootReal, { home, maskFiles });
    if (!probe.ok) throw new WorkToolError(E.sandboxUnavailable, `bash cannot run here: its sandbox does not start (${probe.reason}); nothing ran. Use read_file, write_file and edit_file, and tell the Lead`);
    sandboxChecked = true;
  }
  const withFileLock = createFileLocks();

  const inRoot = (candidate: string) => isWithin(rootResolved, candidate) || isWithin(rootReal, candidate);

  /** Root-relative display path of an absolute path that lies (lexically) inside the checkout. */
  function display(absolute: string): string {
    return toPosix(path.relative(isWithin(rootResolved, absolute) ? rootResolved : rootReal, absolute));
  }

  function outside(what: string): WorkToolError {
    return new WorkToolError(E.pathOutsideCheckout, `${what} is outside the checkout; use paths inside it (relative to your directory)`);
  }

  /** The real path of `absolute` (through every symlink of its existing part), checked to stay inside the checkout. */
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
    let real: string;
    try {
      real = await fsp.realpath(existing);
    } catch (error) {
      // A dangling symlink (or loop): where it would write is not checkable, so refuse.
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ELOOP') throw outside(`${shown} (through a dangling symlink)`);
      throw error;
    }
    const full = path.join(real, ...missing);
    if (!isWithin(rootReal, full)) throw outside(`${shown} (through a symlink)`);
    return full;
  }

  async function resolveFile(input: string, context: WorkToolContext): Promise<{ real: string; shown: string }> {
    const absolute = path.resolve(context.base, input);
    const shown = inRoot(absolute) ? display(absolute) : input;
    return { real: await containedRealPath(absolute, shown), shown };
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
      if (size > LIMITS.maxFileBytes) throw new WorkToolError(E.fileTooLarge, `${shown} has ${size} bytes, more than the file tools handle (${LIMITS.maxFileBytes}); inspect it with bash (head, sed -n, grep)`);
      return fsp.readFile(real);
    });
  }

  function stale(shown: string, current: string): WorkToolError {
    return new WorkToolError(E.staleVersion, `${shown} changed since you read it (current version ${current}); read_file again and rebase your change`);
  }

  const readFile = defineTool({
    ...readFileContract,
    async execute(input, context: WorkToolContext) {
      const { real, shown } = await resolveFile(input.path, context);
      const bytes = await readCurrent(real, shown);
      if (bytes === null) throw new WorkToolError(E.fileNotFound, `${shown} does not exist`);
      const sliced = sliceLines(bytes.toString('utf8'), input.offset ?? 1, input.limit ?? LIMITS.readMaxLines);
      return { path: shown, content: sliced.content, version: versionOf(bytes), totalLines: sliced.totalLines, truncated: sliced.truncated };
    },
  });

  const writeFile = defineTool({
    ...writeFileContract,
    async execute(input, context: WorkToolContext) {
      const { real, shown } = await resolveFile(input.path, context);
      const bytes = Buffer.byteLength(input.content);
      if (bytes > LIMITS.maxFileBytes) throw new WorkToolError(E.fileTooLarge, `content has ${bytes} bytes, more than write_file handles (${LIMITS.maxFileBytes})`);
      const intended = versionOf(input.content);
      return withFileLock(real, async () => {
        const current = await readCurrent(real, shown);
        const currentVersion = current === null ? null : versionOf(current);
        // Already holds exactly this content (e.g. a retry of a write that succeeded): nothing is lost by succeeding.
        if (currentVersion === intended) return { path: shown, version: intended, bytes };
        if (input.version === null && currentVersion !== null) {
          throw new WorkToolError(E.staleVersion, `${shown} already exists (current version ${currentVersion}); read_file it and rebase your change, passing its version`);
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
      const { real, shown } = await resolveFile(input.path, context);
      return withFileLock(real, async () => {
        const current = await readCurrent(real, shown);
        if (current === null) throw new WorkToolError(E.fileNotFound, `${shown} does not exist; create it with write_file and version null`);
        const currentVersion = versionOf(current);
        if (input.version !== currentVersion) throw stale(shown, currentVersion);
        const text = current.toString('utf8');
        const parts = text.split(input.oldText);
        const occurrences = parts.length - 1;
        if (occurrences === 0) throw new WorkToolError(E.editTextNotFound, `oldText does not occur in ${shown}; read_file it and copy the text exactly, whitespace included`);
        if (occurrences > 1 && !input.replaceAll) {
          throw new WorkToolError(E.editTextAmbiguous, `oldText occurs ${occurrences} times in ${shown}; include more surrounding text to make it unique, or pass replaceAll: true`);
        }
        const updated = parts.join(input.newText);
        const bytes = Buffer.byteLength(updated);
        if (bytes > LIMITS.maxFileBytes) throw new WorkToolError(E.fileTooLarge, `the edit would make ${shown} ${bytes} bytes, more than the file tools handle (${LIMITS.maxFileBytes})`);
        await typedFs(shown, () => writeAtomically(real, updated));
        return { path: shown, version: versionOf(updated), replacements: occurrences };
      });
    },
  });

  const bash = defineTool({
    ...bashContract,
    async execute(input, context: WorkToolContext) {
      try {
        if (!(await fsp.stat(context.base)).isDirectory()) throw new Error('not a directory');
      } catch {
        context.nextCwd = '.';
        throw new WorkToolError(E.workingDirectoryMissing, `your directory ${context.cwd} no longer exists; you are back at the checkout root (".") and nothing ran`);
      }
      await ensureSandbox();
      const run = await runBash(input.command, input.timeoutMs ?? LIMITS.bashDefaultTimeoutMs, context);
      let cwd = context.cwd;
      let notice: string | undefined;
      if (run.finalDirectory !== null) {
        let real: string | null = null;
        try {
          real = await fsp.realpath(run.finalDirectory);
        } catch {
          real = null;
        }
        if (real !== null && isWithin(rootReal, real)) cwd = toPosix(path.relative(rootReal, real));
        else notice = `the command ended in ${run.finalDirectory}, outside the checkout; your directory stays ${context.cwd}`;
      }
      if (cwd !== context.cwd) context.nextCwd = cwd;
      const { finalDirectory: _finalDirectory, ...result } = run;
      return notice === undefined ? { ...result, cwd } : { ...result, cwd, notice };
    },
  });

  function runBash(command: string, timeoutMs: number, context: WorkToolContext) {
    return new Promise<{ exitCode: number | null; stdout: string; stderr: string; truncated: boolean; timedOut: boolean; finalDirectory: string | null }>((resolve, reject) => {
      const script = ['-c', CWD_TRAILER + command];
      const [file, args] =
        sandbox.mode === 'none'
          ? ['bash', script]
          : [sandbox.bwrapPath, [...bwrapArgs({ root: rootReal, cwd: fs.realpathSync(context.base), home, network: sandbox.network, maskFiles }), 'bash', ...script]];
      const child = spawn(file, args, {
        cwd: context.base,
        env: bashEnv,
        detached: true, // own process group, so a timeout kills everything the command started
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      });
      const stdout = new TailBuffer(LIMITS.bashOutputBytes);
      const stderr = new TailBuffer(LIMITS.bashOutputBytes);
      const directory: Buffer[] = [];
      const pipes = [child.stdio[1], child.stdio[2], child.stdio[CWD_FD]] as Array<Readable | null>;
      const [outPipe, errPipe, cwdPipe] = pipes;
      outPipe?.on('data', (chunk: Buffer) => stdout.push(chunk));
      errPipe?.on('data', (chunk: Buffer) => stderr.push(chunk));
      cwdPipe?.on('data', (chunk: Buffer) => directory.push(chunk));

      let timedOut = false;
      let exitCode: number | null = null;
      let settled = false;
      let drainTimer: NodeJS.Timeout | undefined;
      const killGroup = () => {
        if (child.pid === undefined) return;
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timeout = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, timeoutMs);
      const heartbeat = context.heartbeat;
      const beat = heartbeat
        ? setInterval(() => {
            try {
              heartbeat();
            } catch {
              // heartbeating is best effort
            }
          }, heartbeatIntervalMs)
        : undefined;
      const onAbort = () => killGroup();
      context.signal?.addEventListener('abort', onAbort);
      if (context.signal?.aborted) killGroup();

      const cleanup = () => {
        clearTimeout(timeout);
        if (beat) clearInterval(beat);
        if (drainTimer) clearTimeout(drainTimer);
        context.signal?.removeEventListener('abort', onAbort);
      };
      const finish = () => {
        if (settled) return;
        settled = true;
        cleanup();
        // Background processes may still hold the pipes; stop reading them.
        for (const pipe of pipes) pipe?.destroy();
        const out = stdout.text();
        const err = stderr.text();
        let finalDirectory: string | null = null;
        if (!timedOut && directory.length > 0) {
          const reported = Buffer.concat(directory).toString('utf8');
          finalDirectory = reported.endsWith('\n') ? reported.slice(0, -1) : reported;
          if (finalDirectory === '') finalDirectory = null;
        }
        resolve({ exitCode, stdout: out.text, stderr: err.text, truncated: out.truncated || err.truncated, timedOut, finalDirectory });
      };
      child.on('error', (error) => {
        if (settled) return;
        settled = true;
        cleanup();
        if (sandbox.mode !== 'none' && errnoCode(error) === 'ENOENT') {
          sandboxChecked = false;
          reject(new WorkToolError(E.sandboxUnavailable, `bash cannot run here: ${sandbox.bwrapPath} is missing; nothing ran. Use read_file, write_file and edit_file, and tell the Lead`));
          return;
        }
        reject(error);
      });
      child.on('exit', (code) => {
        exitCode = code;
        drainTimer = setTimeout(finish, DRAIN_AFTER_EXIT_MS);
      });
      child.on('close', (code) => {
        exitCode = code;
        finish();
      });
    });
  }

  const tools = new Map<string, AnyTool<WorkToolContext>>([readFile, writeFile, editFile, bash].map((tool) => [tool.name, tool as AnyTool<WorkToolContext>]));

  async function runWorkTool(input: RunWorkToolInput): Promise<RunWorkToolOutput> {
    const tool = tools.get(input.tool);
    const base = path.resolve(rootResolved, input.cwd || '.');
    const cwdInside = inRoot(base);
    const cwd = cwdInside ? display(base) : '.';
    if (!tool) {
      return { ok: false, text: JSON.stringify({ error: E.unknownTool, message: `there is no work tool named ${JSON.stringify(input.tool)}; the work tools are ${WORK_TOOL_NAMES.join(', ')}` }), cwd };
    }
    if (!cwdInside) {
      return { ok: false, text: JSON.stringify({ error: E.pathOutsideCheckout, message: `your directory ${input.cwd} is outside the checkout; you are back at the checkout root (".")` }), cwd: '.' };
    }
    try {
      await containedRealPath(base, cwd);
    } catch (error) {
      if (!(error instanceof WorkToolError)) throw error;
      return { ok: false, text: JSON.stringify({ error: error.type, message: `your directory ${cwd} leads outside the checkout; you are back at the checkout root (".")` }), cwd: '.' };
    }
    const context: WorkToolContext = { base, cwd, ...(options.heartbeat ? { heartbeat: options.heartbeat } : defaultHeartbeat()) };
    const outcome = await runToolCall(tool, input.argumentsJson, context);
    return { ok: outcome.ok, text: outcome.text, cwd: context.nextCwd ?? cwd };
  }

  return { runWorkTool };
}

function isWithin(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (relative !== '..' && !relative.startsWith('..' + path.sep) && !path.isAbsolute(relative));
}
