/**
 * What one `bash` command may consume (issue 21), and the `ulimit` commands that impose the
 * per-process part inside the sandbox. Pure: parsed once from AGENT_TEAMS_BASH_LIMITS, e.g.
 * `memory=1GiB,processes=128,tmp=256MiB`; a key left out keeps its default.
 *
 * Per command (all processes it starts, together):
 * - memory, processes: a cgroup's memory and pids limits where the worker can make one, v1 or
 *   v2 (sandboxCgroup.ts); without a pids cgroup, `processes` is still RLIMIT_NPROC, counted in the
 *   sandbox's own user namespace, and without a memory cgroup memory is bounded per process by `addressSpace`;
 * - tmp, home: the sizes of the private /tmp and HOME tmpfs (RAM-backed, so they count too);
 * - output: bytes read from stdout and from stderr each before the command is stopped (the result
 *   keeps only the last 32 KB of each anyway); the directory report on fd 3 is capped at PATH_MAX.
 *
 * Per process (RLIMIT_*): addressSpace (only without a memory cgroup), fileSize, openFiles, cpuSeconds.
 */
import { z } from 'zod';

export const BASH_LIMITS_ENV = 'AGENT_TEAMS_BASH_LIMITS';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** Linux's PATH_MAX: the longest directory the fd 3 report can name (with its newline). */
export const DIRECTORY_REPORT_BYTES = 4096;
/** /dev/shm and /run are private tmpfs too; small and fixed, since commands rarely need them. */
export const SHM_BYTES = 64 * MiB;
export const RUN_BYTES = 1 * MiB;

const bytes = z.number().int().min(MiB);
const count = z.number().int().min(1);

export const sandboxLimitsSchema = z.strictObject({
  memory: bytes.default(2 * GiB),
  processes: count.default(256),
  tmp: bytes.default(512 * MiB),
  home: bytes.default(128 * MiB),
  output: bytes.default(16 * MiB),
  addressSpace: bytes.default(4 * GiB),
  fileSize: bytes.default(1 * GiB),
  openFiles: count.min(64).default(1024),
  cpuSeconds: count.default(600),
});

export type SandboxLimits = z.output<typeof sandboxLimitsSchema>;
export type SandboxLimitName = keyof SandboxLimits | 'shm' | 'run' | 'directoryReport';

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = sandboxLimitsSchema.parse({});

const BYTE_KEYS = new Set<string>(['memory', 'tmp', 'home', 'output', 'addressSpace', 'fileSize']);
const UNITS: Record<string, number> = { '': 1, k: KiB, kib: KiB, m: MiB, mib: MiB, g: GiB, gib: GiB };

/** `512MiB`, `2g`, `1048576` → bytes; null when it is not a size. */
export function parseSize(text: string): number | null {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(text.trim());
  if (!match) return null;
  const unit = (match[2] ?? '').toLowerCase();
  if (!Object.hasOwn(UNITS, unit)) return null;
  return Number(match[1]) * (UNITS[unit] ?? 1);
}

export class SandboxConfigInvalid extends Error {
  override readonly name = 'SandboxConfigInvalid';
}

/** The limits AGENT_TEAMS_BASH_LIMITS sets; throws SandboxConfigInvalid naming what is wrong. */
export function parseSandboxLimits(raw: string | undefined): SandboxLimits {
  const entries: Record<string, number> = {};
  for (const part of (raw ?? '').split(',')) {
    if (part.trim() === '') continue;
    const [key = '', value = '', ...rest] = part.split('=').map((piece) => piece.trim());
    if (!Object.hasOwn(sandboxLimitsSchema.shape, key) || rest.length > 0) {
      throw new SandboxConfigInvalid(
        `${BASH_LIMITS_ENV}: unknown entry ${JSON.stringify(part.trim())}; the keys are ${Object.keys(sandboxLimitsSchema.shape).join(', ')}`,
      );
    }
    const parsed = BYTE_KEYS.has(key) ? parseSize(value) : /^\d+$/.test(value) ? Number(value) : null;
    if (parsed === null)
      throw new SandboxConfigInvalid(
        `${BASH_LIMITS_ENV}: ${key}=${JSON.stringify(value)} is not a ${BYTE_KEYS.has(key) ? 'size such as 512MiB' : 'whole number'}`,
      );
    entries[key] = parsed;
  }
  const result = sandboxLimitsSchema.safeParse(entries);
  if (!result.success) {
    throw new SandboxConfigInvalid(`${BASH_LIMITS_ENV}: ${result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  return result.data;
}

/**
 * bash `ulimit` options (hard and soft, so the command cannot raise them) for one command's
 * processes; bash counts -v and -f in KiB. The builtin, not prlimit(1): one exec less per call.
 */
export function ulimitArgs(limits: SandboxLimits, options: { memoryBounded: boolean } = { memoryBounded: false }): string {
  const kib = (value: number) => Math.floor(value / KiB);
  return (
    [
      `-u ${limits.processes}`,
      ...(options.memoryBounded ? [] : [`-v ${kib(limits.addressSpace)}`]),
      `-f ${kib(limits.fileSize)}`,
      `-n ${limits.openFiles}`,
      `-t ${limits.cpuSeconds}`,
      '-c 0',
    ]
      // A host hard limit already below ours is stricter: keep it, soft included.
      .map((option) => `{ ulimit -SH ${option} 2>/dev/null || ulimit -S ${option.split(' ')[0]} "$(ulimit -H ${option.split(' ')[0]})"; }`)
      .join(' && ')
  );
}

/** `2147483648` → `2 GiB`, for messages. */
export function formatBytes(value: number): string {
  for (const [unit, size] of [
    ['GiB', GiB],
    ['MiB', MiB],
    ['KiB', KiB],
  ] as const) {
    if (value >= size && value % size === 0) return `${value / size} ${unit}`;
  }
  return `${value} bytes`;
}
