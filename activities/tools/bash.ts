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
import * as path from 'node:path';
import { bashContract, WORK_TOOL_ERRORS as E, WORK_TOOL_LIMITS as LIMITS, WorkToolError } from '../../shared/agent/workTools';
import { defineTool } from '../../shared/tools/tool';
import { type LimitHit, privateTmpfs, runBashCommand } from './bashRun';
import { type BashSandboxConfig, bwrapArgs, probeSandbox, sandboxCommand, sandboxConfigFromEnv, sandboxEnv, sandboxHome, systemMounts } from './bashSandbox';
import type { WorkToolContext } from './context';
import { credentialFiles, unsandboxedBashEnv } from './credentials';
import { type GitPins, pinGitMetadata, type Plantable, plantedSince } from './gitProtection';
import { memberDirectory } from './memberDirectory';
import { errnoCode, isWithin } from './paths';
import { createCommandCgroup, detectCgroups } from './sandboxCgroup';
import { type FileOwner, sandboxIdentity } from './sandboxIdentity';

const CWD_FD = 3;
/** How long the sweep of planted git metadata may take (a member's tree can be large). */
const SWEEP_TIMEOUT_MS = 60_000;
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

  /** Runs `command` in the sandbox at `cwd` (absolute, inside the checkout), with the git metadata `pins` bound. */
  async function runBash(command: string, timeoutMs: number, context: WorkToolContext, cwd: string, pins: GitPins | null, user: FileOwner | null) {
    const script = CWD_TRAILER + command;
    const sandboxed = sandbox.mode !== 'none';
    const spec = {
      env: bashEnv,
      user,
      limits: sandbox.limits,
      outputTailBytes: LIMITS.bashOutputBytes,
      timeoutMs,
      heartbeatIntervalMs,
      context,
    };
    if (!sandboxed) return runBashCommand({ ...spec, cwd, file: 'bash', args: ['-c', script], cgroup: null, tmpfs: [] });
    const cgroup = cgroups ? createCommandCgroup(cgroups, sandbox.limits) : null;
    const binds = pins?.binds ?? [];
    const args = [
      ...bwrapArgs({
        root: rootReal,
        cwd,
        home,
        network: sandbox.network,
        system,
        binds: sandbox.binds,
        limits: sandbox.limits,
        maskFiles,
        pins: binds,
      }),
      ...sandboxCommand(sandbox.limits, script, home, { memoryBounded: cgroup?.bounds.memory ?? false }),
    ];
    try {
      // bwrap starts in `/` and enters `cwd` inside the sandbox: the worker never changes into a member's directory.
      return await runBashCommand({
        ...spec,
        cwd: '/',
        file: sandbox.bwrapPath,
        args,
        cgroup,
        tmpfs: privateTmpfs(sandbox.limits, home),
        pinnedFds: binds.map((bind) => bind.handle.fd),
      });
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
      sandboxChecked = false;
      throw new WorkToolError(
        E.sandboxUnavailable,
        `bash cannot run here: ${sandbox.bwrapPath} is missing; nothing ran. Use read_file, write_file and edit_file, and tell the Lead`,
      );
    }
  }

  /**
   * Removes what a call planted where git would read it, by `rm -rf` as the member in a sandbox of
   * its own: the worker itself never removes a path a member shaped. Returns what is gone and what is not.
   * It runs when the call was cancelled too (without the call's signal, bounded by SWEEP_TIMEOUT_MS):
   * what a cancelled call planted was there when the next call began, so no later call would sweep it.
   */
  async function sweep(planted: Plantable[], pins: GitPins, context: WorkToolContext, user: FileOwner | null) {
    const quoted = planted.map((plantable) => `'${path.join(rootReal, plantable.shown).replaceAll("'", "'\\''")}'`);
    const uncancelled: WorkToolContext = { base: context.base, cwd: context.cwd, ...(context.heartbeat ? { heartbeat: context.heartbeat } : {}) };
    await runBash(`rm -rf -- ${quoted.join(' ')}`, SWEEP_TIMEOUT_MS, uncancelled, rootReal, null, user);
    const left = new Set(await plantedSince({ ...pins, plantables: planted }));
    return { removed: planted.filter((plantable) => !left.has(plantable)), left: [...left] };
  }

  return defineTool({
    ...bashContract,
    async execute(input, context: WorkToolContext) {
      const start = await memberDirectory(rootReal, context.cwd);
      if (start === null) {
        context.nextCwd = '.';
        throw new WorkToolError(
          E.workingDirectoryMissing,
          `your directory ${context.cwd} no longer exists (or leads outside the checkout); you are back at the checkout root (".") and nothing ran`,
        );
      }
      const user = await ensureSandbox();
      const pins = sandbox.mode === 'none' ? null : await pinGitMetadata(rootReal);
      const notices: string[] = [];
      let run;
      try {
        run = await runBash(input.command, input.timeoutMs ?? LIMITS.bashDefaultTimeoutMs, context, path.join(rootReal, start), pins, user);
        const planted = pins === null ? [] : await plantedSince(pins);
        if (pins !== null && planted.length > 0) {
          const { removed, left } = await sweep(planted, pins, context, user);
          const names = (list: Plantable[]) => list.map((plantable) => plantable.shown).join(', ');
          if (removed.length > 0)
            notices.push(`removed ${names(removed)}: git would read its configuration or hooks from there, and run what they name on the host`);
          if (left.length > 0) notices.push(`could not remove ${names(left)}; tell the Lead, so the operator reviews the checkout before running git in it`);
        }
      } finally {
        await pins?.release();
      }
      if (run.limit !== null) throw limitError(run.limit, run.stderr);
      let cwd = context.cwd;
      if (run.finalDirectory !== null) {
        // Where the shell says it ended is the member's text: taken as root-relative components and walked like any path.
        const relative = isWithin(rootReal, run.finalDirectory) ? path.relative(rootReal, run.finalDirectory) : null;
        const real = relative === null ? null : await memberDirectory(rootReal, relative === '' ? '.' : relative);
        if (real !== null) cwd = real === '' ? '.' : real;
        else notices.push(`the command ended outside the checkout; your directory stays ${context.cwd}`);
      }
      if (cwd !== context.cwd) context.nextCwd = cwd;
      const { finalDirectory: _finalDirectory, limit: _limit, ...result } = run;
      return notices.length === 0 ? { ...result, cwd } : { ...result, cwd, notice: notices.join('; ') };
    },
  });
}
