/**
 * Runs one prepared bash command (bash.ts builds it) and tells how it ended: exit code, the tail of
 * each output stream, the directory it ended in (fd 3), and which sandbox limit it hit, if any.
 *
 * Everything read is bounded (issue 21): stdout and stderr keep their last bytes and stop the
 * command once it has written `limits.output` bytes to one of them; the fd 3 directory report stops
 * it past PATH_MAX. The worker's memory stays flat however much a command writes.
 *
 * A limit is only reported from what the command cannot forge: our own byte counts, the cgroup's
 * counters, the supervisor's report of each private tmpfs's free space on fd 5 (a descriptor bash
 * does not get; a member's own code could write it, and only misleads itself), and the signal
 * RLIMIT_FSIZE and RLIMIT_CPU kill with. Never the text of the output, which may quote anything.
 */
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { WorkToolContext } from './context';
import type { CommandCgroup } from './sandboxCgroup';
import type { FileOwner } from './sandboxIdentity';
import { DIRECTORY_REPORT_BYTES, formatBytes, RUN_BYTES, SHM_BYTES, type SandboxLimitName, type SandboxLimits } from './sandboxLimits';

const CWD_FD = 3;
const RELEASE_FD = 4;
const REPORT_FD = 5;
/** How long to wait for output after bash exited while background processes still hold the pipes. */
const DRAIN_AFTER_EXIT_MS = 200;
/** The supervisor's report is a few short lines. */
const REPORT_BYTES = 4096;
/** bash's status for a child killed by a signal is 128 + the signal's number. */
const SIGXCPU_STATUS = 128 + 24;
const SIGXFSZ_STATUS = 128 + 25;

/** Keeps the last `cap` bytes of a stream, counting all of them. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  total = 0;
  dropped = false;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.total += chunk.length;
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

/** A limit the command hit: which, its value as a person reads it, and what happened. */
export interface LimitHit {
  limit: SandboxLimitName;
  value: string;
  what: string;
}

/** What one bash run gives back; `finalDirectory` is where the shell ended (null: unknown). */
export interface BashRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timedOut: boolean;
  finalDirectory: string | null;
  limit: LimitHit | null;
}

export interface BashRunSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Who the command runs as (null: the worker's own user). */
  user: FileOwner | null;
  /** The command's cgroup: the process is moved in before it may start anything. */
  cgroup: CommandCgroup | null;
  limits: SandboxLimits;
  /** Private tmpfs mounts the supervisor reports on fd 5, with their sizes (empty: no report). */
  tmpfs: ReadonlyArray<{ dir: string; limit: SandboxLimitName; bytes: number }>;
  outputTailBytes: number;
  timeoutMs: number;
  heartbeatIntervalMs: number;
  context: WorkToolContext;
  /** Descriptors the command gets from fd PINNED_FD_BASE on (bwrap's --bind-fd; it closes them before the command runs). */
  pinnedFds?: readonly number[];
}

/** The private tmpfs mounts a sandboxed command has, for its report (HOME only when it is not /tmp). */
export function privateTmpfs(limits: SandboxLimits, home: string): BashRunSpec['tmpfs'] {
  return [
    { dir: '/tmp', limit: 'tmp', bytes: limits.tmp },
    { dir: '/dev/shm', limit: 'shm', bytes: SHM_BYTES },
    { dir: '/run', limit: 'run', bytes: RUN_BYTES },
    ...(home === '/tmp' ? [] : [{ dir: home, limit: 'home' as const, bytes: limits.home }]),
  ];
}

/** `dir free total` lines (blocks) → the first private tmpfs left with under 1% free. */
export function fullTmpfs(report: string, tmpfs: BashRunSpec['tmpfs']): LimitHit | null {
  for (const line of report.split('\n')) {
    const match = /^(.*) (\d+) (\d+)$/.exec(line);
    if (!match) continue;
    const [, dir, free, total] = match;
    const mount = tmpfs.find((candidate) => candidate.dir === dir);
    if (mount && Number(free) * 100 < Number(total)) {
      return { limit: mount.limit, value: formatBytes(mount.bytes), what: `${mount.dir} is full (it is a private tmpfs of ${formatBytes(mount.bytes)})` };
    }
  }
  return null;
}

export function runBashCommand(spec: BashRunSpec): Promise<BashRun> {
  const { limits, context, cgroup } = spec;
  return new Promise<BashRun>((resolve, reject) => {
    // With a cgroup, a shell waits on fd 4 until the worker has moved it in, then becomes bwrap.
    const [file, args] = cgroup
      ? ['/bin/sh', ['-c', `read -r _ <&${RELEASE_FD}; exec ${RELEASE_FD}<&-; exec "$@"`, 'sh', spec.file, ...spec.args]]
      : [spec.file, spec.args];
    const child = spawn(file, args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true, // own process group, so a timeout kills everything the command started
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', cgroup ? 'pipe' : 'ignore', spec.tmpfs.length > 0 ? 'pipe' : 'ignore', ...(spec.pinnedFds ?? [])],
      ...(spec.user ? { uid: spec.user.uid, gid: spec.user.gid } : {}),
    });
    const stdout = new TailBuffer(spec.outputTailBytes);
    const stderr = new TailBuffer(spec.outputTailBytes);
    const directory = new TailBuffer(DIRECTORY_REPORT_BYTES + 1);
    const report = new TailBuffer(REPORT_BYTES);
    const stdio = child.stdio as unknown as Array<Readable | null>;
    const pipes = [stdio[1], stdio[2], stdio[CWD_FD], stdio[REPORT_FD]];
    let limit: LimitHit | null = null;
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
    const stopAt = (hit: LimitHit) => {
      limit ??= hit;
      killGroup();
      for (const pipe of pipes) pipe?.destroy();
    };
    const outputChannel = (name: 'stdout' | 'stderr', buffer: TailBuffer) => (chunk: Buffer) => {
      if (limit !== null) return;
      buffer.push(chunk);
      if (buffer.total > limits.output) {
        stopAt({ limit: 'output', value: formatBytes(limits.output), what: `it wrote more than ${formatBytes(limits.output)} to ${name}, and was stopped` });
      }
    };
    pipes[0]?.on('data', outputChannel('stdout', stdout));
    pipes[1]?.on('data', outputChannel('stderr', stderr));
    pipes[2]?.on('data', (chunk: Buffer) => {
      directory.push(chunk);
      if (directory.total > DIRECTORY_REPORT_BYTES) {
        stopAt({
          limit: 'directoryReport',
          value: `${DIRECTORY_REPORT_BYTES} bytes`,
          what: `it wrote more than PATH_MAX (${DIRECTORY_REPORT_BYTES} bytes) to fd 3, where the shell reports its directory, and was stopped`,
        });
      }
    });
    pipes[3]?.on('data', (chunk: Buffer) => report.push(chunk));

    if (cgroup && child.pid !== undefined) {
      try {
        cgroup.add(child.pid);
        (child.stdio[RELEASE_FD] as Writable | null | undefined)?.end('\n');
      } catch (error) {
        killGroup();
        cgroup.finish();
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
    }

    const timeout = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, spec.timeoutMs);
    const heartbeat = context.heartbeat;
    const beat = heartbeat
      ? setInterval(() => {
          try {
            heartbeat();
          } catch {
            // heartbeating is best effort
          }
        }, spec.heartbeatIntervalMs)
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
      const seen = cgroup?.finish() ?? { memory: false, processes: false };
      if (seen.memory)
        limit ??= {
          limit: 'memory',
          value: formatBytes(limits.memory),
          what: `its processes used more than ${formatBytes(limits.memory)} of memory together, and the kernel killed one`,
        };
      if (seen.processes)
        limit ??= {
          limit: 'processes',
          value: `${limits.processes} processes`,
          what: `it tried to run more than ${limits.processes} processes at once; the fork failed`,
        };
      limit ??= fullTmpfs(report.text().text, spec.tmpfs);
      if (exitCode === SIGXFSZ_STATUS)
        limit ??= {
          limit: 'fileSize',
          value: formatBytes(limits.fileSize),
          what: `a process wrote a file past ${formatBytes(limits.fileSize)} and was killed (SIGXFSZ)`,
        };
      if (exitCode === SIGXCPU_STATUS)
        limit ??= {
          limit: 'cpuSeconds',
          value: `${limits.cpuSeconds} s`,
          what: `a process used more than ${limits.cpuSeconds} s of CPU and was killed (SIGXCPU)`,
        };
      const out = stdout.text();
      const err = stderr.text();
      let finalDirectory: string | null = null;
      const reported = directory.text().text;
      if (!timedOut && limit?.limit !== 'directoryReport' && reported !== '') {
        finalDirectory = reported.endsWith('\n') ? reported.slice(0, -1) : reported;
        if (finalDirectory === '') finalDirectory = null;
      }
      resolve({ exitCode, stdout: out.text, stderr: err.text, truncated: out.truncated || err.truncated, timedOut, finalDirectory, limit });
    };
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      cleanup();
      cgroup?.finish();
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
