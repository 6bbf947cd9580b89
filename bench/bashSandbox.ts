/**
 * The cost of issue 21's sandbox on one `bash` call: `true` under today's sandbox (private mounts,
 * sized tmpfs, no user namespaces, prlimit and the tmpfs-report supervisor, a cgroup per command
 * where the worker can make one) against the sandbox of issue 20 (the whole root read-only, no
 * limits), both run by the same runner (bashRun.ts) as the same user, so only the sandbox differs.
 * Rounds alternate the two sides; the ratio is the median of paired rounds. Needs no server:
 * `npx ts-node bench/bashSandbox.ts` runs it alone, `npm run bench` as its row 8.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type BashRunSpec, privateTmpfs, runBashCommand } from '../activities/tools/bashRun';
import { bwrapArgs, DEFAULT_BWRAP_PATH, sandboxCommand, systemMounts } from '../activities/tools/bashSandbox';
import { createCommandCgroup, detectCgroups } from '../activities/tools/sandboxCgroup';
import { DEFAULT_SANDBOX_LIMITS } from '../activities/tools/sandboxLimits';

const ROUNDS = Number(process.env.BENCH_BASH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_BASH_CALLS ?? 30);
/** As root, both sides run as nobody: bash never runs as root. */
const USER = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : null;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** The bwrap argv of issue 20 (activities/tools/bashSandbox.ts at ac5f181), kept here as the baseline. */
function issue20Args(root: string): string[] {
  return [
    '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net',
    '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--bind', root, root, '--chdir', root, '--',
  ]; // prettier-ignore
}

export async function benchBashSandbox(): Promise<string[][]> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bash-'));
  const root = path.join(scratch, 'checkout');
  fs.mkdirSync(root);
  if (USER) {
    fs.chownSync(root, USER.uid, USER.gid);
    fs.chmodSync(scratch, 0o711);
  }
  const cgroups = detectCgroups();
  const limits = DEFAULT_SANDBOX_LIMITS;
  const base = {
    cwd: root,
    env: { PATH: '/usr/bin:/bin' },
    user: USER,
    limits,
    outputTailBytes: 32 * 1024,
    timeoutMs: 30_000,
    heartbeatIntervalMs: 1000,
    context: { base: root, cwd: '.' },
  };
  const run = async (spec: BashRunSpec) => {
    const result = await runBashCommand(spec);
    if (result.exitCode !== 0 || result.limit !== null) throw new Error(`bash failed: ${result.stderr}`);
  };
  const today = () => {
    const cgroup = cgroups ? createCommandCgroup(cgroups, limits) : null;
    const args = [
      ...bwrapArgs({ root, cwd: root, home: '/tmp', network: false, system: systemMounts(), limits }),
      ...sandboxCommand(limits, 'true', '/tmp', { memoryBounded: cgroup?.bounds.memory ?? false }),
    ];
    return run({ ...base, file: DEFAULT_BWRAP_PATH, args, cgroup, tmpfs: privateTmpfs(limits, '/tmp') });
  };
  const before = () => run({ ...base, file: DEFAULT_BWRAP_PATH, args: [...issue20Args(root), 'bash', '-c', 'true'], cgroup: null, tmpfs: [] });
  const timed = async (body: () => Promise<void>) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) await body();
    return Number(process.hrtime.bigint() - start) / 1e6 / CALLS; // ms per call
  };
  try {
    const sides = { today: [] as number[], before: [] as number[] };
    for (let round = 0; round <= ROUNDS; round++) {
      const t = await timed(today);
      const b = await timed(before);
      if (round === 0) continue; // warm-up
      sides.today.push(t);
      sides.before.push(b);
    }
    return [
      [
        `one bash call (\`true\`) under the issue-21 sandbox${cgroups ? ' with its cgroup' : ' (no cgroup here)'} (median ms/call) ` +
          'vs the issue-20 sandbox (read-only root, no limits)',
        median(sides.today).toFixed(1),
        median(sides.before).toFixed(1),
        median(sides.today.map((t, round) => t / (sides.before[round] ?? NaN))).toFixed(2),
      ],
    ];
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchBashSandbox()
    .then((rows) => {
      console.log(`bash sandbox: ${ROUNDS} rounds x ${CALLS} calls, ${process.version}`);
      for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
