/**
 * The bash tool: runs `bash -c` under bubblewrap (bashSandbox.ts; SandboxUnavailable when it
 * cannot start, unsandboxed only with AGENT_TEAMS_BASH_SANDBOX=none), never as root
 * (sandboxIdentity.ts), in its own process group and, where the worker can make one, its own
 * cgroup (sandboxCgroup.ts). It heartbeats while it runs, and is killed (whole group, SIGKILL; the
 * sandbox dies with its parent) on timeout or activity cancellation. bashRun.ts bounds what is
 * read; a limit hit ends the call with SandboxLimit. The final directory comes back on fd 3 from an
 * EXIT trap, so `cd` persists across calls (unless the command replaces the trap, execs, or is
 * killed: then the directory stays as it was).
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { bashContract, WORK_TOOL_ERRORS as E, WORK_TOOL_LIMITS as LIMITS, WorkToolError } from '../../shared/agent/workTools';
import { defineTool } from '../../shared/tools/tool';
import { type LimitHit, privateTmpfs, runBashCommand } from './bashRun';
import { type BashSandboxConfig, bwrapArgs, probeSandbox, sandboxCommand, sandboxConfigFromEnv, sandboxEnv, sandboxHome, systemMounts } from './bashSandbox';
import type { WorkToolContext } from './context';
import { credentialFiles, unsandboxedBashEnv } from './credentials';
import { type GitMounts, gitMounts, gitPlantablesBefore, removePlanted } from './gitProtection';
import { errnoCode, isWithin, toPosix } from './paths';
import { createCommandCgroup, detectCgroups } from './sandboxCgroup';
import { type FileOwner, sandboxIdentity } from './sandboxIdentity';

const CWD_FD = 3;
/** Reports the shell's final directory on fd 3 however the script ends (normally, exit, set -e). */
const CWD_TRAILER = `trap 'builtin pwd -P >&${CWD_FD} 2>/dev/null' EXIT\n`;

export interface BashToolOptions {
  /** The checkout's real path. */
  rootReal: string;
  /**
   * The worker environment bash draws on: bash sees only an allow-list from it (credentials.ts),
   * sandboxed or not.
   */
  env: Record<string, string | undefined>;
  /** Overrides of the sandbox configured by AGENT_TEAMS_BASH_* in `env`. */
  sandbox?: Partial<BashSandboxConfig>;
  heartbeatIntervalMs: number;
}

/** The typed error a hit limit ends the call with: which limit, its value, and the tail of stderr. */
function limitError(hit: LimitHit, stderr: string): WorkToolError {
  // A flood's tail is the flood itself: nothing to show.
  const flood = hit.limit === 'output' || hit.limit === 'directoryReport';
  const tail = flood ? '' : stderr.length > 1000 ? `…${stderr.slice(-1000)}` : stderr;
  return new WorkToolError(
    E.sandboxLimit,
    `the command hit its sandbox's ${hit.limit} limit (${hit.value}): ${hit.what}. ` +
      `Its output is dropped; run something smaller, or split it up` +
      (tail.trim() === '' ? '' : `. The end of its stderr: ${tail}`),
  );
}

/** The bash tool for the checkout at `rootReal`; the sandbox is probed on its first call. */
export function createBashTool(options: BashToolOptions) {
  const { rootReal, env: workerEnv, heartbeatIntervalMs } = options;
  const sandbox: BashSandboxConfig = { ...sandboxConfigFromEnv(workerEnv), ...options.sandbox };
  const home = sandboxHome(rootReal, workerEnv.HOME);
  const bashEnv = sandbox.mode === 'none' ? unsandboxedBashEnv(workerEnv, sandbox.allowEnv) : sandboxEnv(workerEnv, sandbox, home);
  const maskFiles = credentialFiles(workerEnv);
  const system = systemMounts();
  const identity = sandboxIdentity(rootReal, workerEnv);
  const cgroups = sandbox.mode === 'none' ? null : detectCgroups(workerEnv);
  /** Set once a probe succeeded; a failed probe is retried on the next call. */
  let sandboxChecked = false;

  async function ensureSandbox(): Promise<FileOwner | null> {
    if (!identity.ok)
      throw new WorkToolError(
        E.sandboxUnavailable,
        `bash cannot run here: ${identity.reason}; nothing ran. Use read_file, write_file and edit_file, and tell the Lead`,
      );
    if (sandbox.mode === 'none' || sandboxChecked) return identity.run;
    const probe = await probeSandbox(sandbox, rootReal, { home, maskFiles, user: identity.run });
    if (!probe.ok) {
      throw new WorkToolError(
        E.sandboxUnavailable,
        `bash cannot run here: its sandbox does not start (${probe.reason}); nothing ran. Use read_file, write_file and edit_file, and tell the Lead`,
      );
    }
    sandboxChecked = true;
    return identity.run;
  }

  async function runBash(command: string, timeoutMs: number, context: WorkToolContext, git: GitMounts, user: FileOwner | null) {
    const script = CWD_TRAILER + command;
    const sandboxed = sandbox.mode !== 'none';
    const spec = {
      cwd: context.base,
      env: bashEnv,
      user,
      limits: sandbox.limits,
      outputTailBytes: LIMITS.bashOutputBytes,
      timeoutMs,
      heartbeatIntervalMs,
      context,
    };
    if (!sandboxed) return runBashCommand({ ...spec, file: 'bash', args: ['-c', script], cgroup: null, tmpfs: [] });
    const cgroup = cgroups ? createCommandCgroup(cgroups, sandbox.limits) : null;
    const args = [
      ...bwrapArgs({
        root: rootReal,
        cwd: fs.realpathSync(context.base),
        home,
        network: sandbox.network,
        system,
        binds: sandbox.binds,
        limits: sandbox.limits,
        maskFiles,
        git,
      }),
      ...sandboxCommand(sandbox.limits, script, home, { memoryBounded: cgroup?.bounds.memory ?? false }),
    ];
    try {
      return await runBashCommand({ ...spec, file: sandbox.bwrapPath, args, cgroup, tmpfs: privateTmpfs(sandbox.limits, home) });
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
      sandboxChecked = false;
      throw new WorkToolError(
        E.sandboxUnavailable,
        `bash cannot run here: ${sandbox.bwrapPath} is missing; nothing ran. Use read_file, write_file and edit_file, and tell the Lead`,
      );
    }
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
      const user = await ensureSandbox();
      const git = gitMounts(rootReal);
      const plantables = gitPlantablesBefore(rootReal, git);
      const run = await runBash(input.command, input.timeoutMs ?? LIMITS.bashDefaultTimeoutMs, context, git, user);
      const notices: string[] = [];
      const removed = removePlanted(rootReal, plantables);
      if (run.limit !== null) throw limitError(run.limit, run.stderr);
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
      const { finalDirectory: _finalDirectory, limit: _limit, ...result } = run;
      return notices.length === 0 ? { ...result, cwd } : { ...result, cwd, notice: notices.join('; ') };
    },
  });
}
