/**
 * The bash tool: runs `bash -c` under bubblewrap (bashSandbox.ts; SandboxUnavailable when it
 * cannot start, unsandboxed only with AGENT_TEAMS_BASH_SANDBOX=none) in its own process group,
 * heartbeats while it runs, and is killed (whole group, SIGKILL; the sandbox dies with its parent)
 * on timeout or activity cancellation. Output is bounded to its last bytes per stream. The final
 * directory comes back on fd 3 from an EXIT trap, so `cd` persists across calls (unless the command
 * replaces the trap, execs, or is killed: then the directory stays as it was).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { bashContract, WORK_TOOL_ERRORS as E, WORK_TOOL_LIMITS as LIMITS, WorkToolError } from '../../shared/agent/workTools';
import { defineTool } from '../../shared/tools/tool';
import { type BashSandboxConfig, bwrapArgs, credentialFiles, probeSandbox, sandboxConfigFromEnv, sandboxEnv, sandboxHome } from './bashSandbox';
import type { WorkToolContext } from './context';
import { type GitMounts, gitMounts, gitPlantablesBefore, removePlanted } from './gitProtection';
import { errnoCode, isWithin, toPosix } from './paths';

/** Worker secrets that bash commands (and so the model and its transcript) must not see. */
const HIDDEN_ENV = ['MODEL_API_KEY', 'TEMPORAL_API_KEY'];

const CWD_FD = 3;
/** Reports the shell's final directory on fd 3 however the script ends (normally, exit, set -e). */
const CWD_TRAILER = `trap 'builtin pwd -P >&${CWD_FD} 2>/dev/null' EXIT\n`;
/** How long to wait for output after bash exited while background processes still hold the pipes. */
const DRAIN_AFTER_EXIT_MS = 200;

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

/** What one bash run gives back; `finalDirectory` is where the shell ended (null: unknown). */
interface BashRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timedOut: boolean;
  finalDirectory: string | null;
}

export interface BashToolOptions {
  /** The checkout's real path. */
  rootReal: string;
  /**
   * The worker environment bash draws on. Sandboxed, bash sees only the allow-list from it;
   * unsandboxed, all of it without MODEL_API_KEY and TEMPORAL_API_KEY.
   */
  env: Record<string, string | undefined>;
  /** Overrides of the sandbox configured by AGENT_TEAMS_BASH_SANDBOX / _NETWORK / _ENV in `env`. */
  sandbox?: Partial<BashSandboxConfig>;
  heartbeatIntervalMs: number;
}

/** The bash tool for the checkout at `rootReal`; the sandbox is probed on its first call. */
export function createBashTool(options: BashToolOptions) {
  const { rootReal, env: workerEnv, heartbeatIntervalMs } = options;
  const sandbox: BashSandboxConfig = { ...sandboxConfigFromEnv(workerEnv), ...options.sandbox };
  const home = sandboxHome(rootReal, workerEnv.HOME);
  const bashEnv =
    sandbox.mode === 'none'
      ? Object.fromEntries(Object.entries(workerEnv).filter(([name]) => !HIDDEN_ENV.includes(name)))
      : sandboxEnv(workerEnv, sandbox, home);
  const maskFiles = credentialFiles(workerEnv);
  /** Set once a probe succeeded; a failed probe is retried on the next call. */
  let sandboxChecked = false;

  async function ensureSandbox(): Promise<void> {
    if (sandbox.mode === 'none' || sandboxChecked) return;
    const probe = await probeSandbox(sandbox, rootReal, { home, maskFiles });
    if (!probe.ok) {
      throw new WorkToolError(
        E.sandboxUnavailable,
        `bash cannot run here: its sandbox does not start (${probe.reason}); nothing ran. Use read_file, write_file and edit_file, and tell the Lead`,
      );
    }
    sandboxChecked = true;
  }

  function runBash(command: string, timeoutMs: number, context: WorkToolContext, git: GitMounts) {
    return new Promise<BashRun>((resolve, reject) => {
      const script = ['-c', CWD_TRAILER + command];
      const [file, args] =
        sandbox.mode === 'none'
          ? ['bash', script]
          : [
              sandbox.bwrapPath,
              [...bwrapArgs({ root: rootReal, cwd: fs.realpathSync(context.base), home, network: sandbox.network, maskFiles, git }), 'bash', ...script],
            ];
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
          reject(
            new WorkToolError(
              E.sandboxUnavailable,
              `bash cannot run here: ${sandbox.bwrapPath} is missing; nothing ran. Use read_file, write_file and edit_file, and tell the Lead`,
            ),
          );
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

  return defineTool({
    ...bashContract,
    async execute(input, context: WorkToolContext) {
      try {
        if (!(await fsp.stat(context.base)).isDirectory()) throw new Error('not a directory');
      } catch {
        context.nextCwd = '.';
        throw new WorkToolError(
          E.workingDirectoryMissing,
          `your directory ${context.cwd} no longer exists; you are back at the checkout root (".") and nothing ran`,
        );
      }
      await ensureSandbox();
      const git = gitMounts(rootReal);
      const plantables = gitPlantablesBefore(rootReal, git);
      const run = await runBash(input.command, input.timeoutMs ?? LIMITS.bashDefaultTimeoutMs, context, git);
      const notices: string[] = [];
      const removed = removePlanted(rootReal, plantables);
      if (removed.length > 0) {
        notices.push(`removed ${removed.join(', ')}: git would read its configuration or hooks from there, and run what they name on the host`);
      }
      let cwd = context.cwd;
      if (run.finalDirectory !== null) {
        let real: string | null = null;
        try {
          real = await fsp.realpath(run.finalDirectory);
        } catch {
          real = null;
        }
        if (real !== null && isWithin(rootReal, real)) cwd = toPosix(path.relative(rootReal, real));
        else notices.push(`the command ended in ${run.finalDirectory}, outside the checkout; your directory stays ${context.cwd}`);
      }
      if (cwd !== context.cwd) context.nextCwd = cwd;
      const { finalDirectory: _finalDirectory, ...result } = run;
      return notices.length === 0 ? { ...result, cwd } : { ...result, cwd, notice: notices.join('; ') };
    },
  });
}
