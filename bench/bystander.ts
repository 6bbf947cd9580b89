/**
 * Issue 52: a bystander's tool latency while another member attacks the worker, against the same
 * bystander on a quiet worker. One worker's work tools (this process, as a worker runs them), one
 * checkout without `.git`; the bystander runs a read_file and a `bash true`, round after round.
 * The attacker, during attacked rounds, keeps doing at once what took the worker at 13e4ee9:
 * `git init` with a FIFO at `.git/config` (5 s of the event loop per bash call then), a file it
 * grows and shrinks while reading it (1 GiB into the worker), and reads through 40 symlinks of 800
 * `d/..` (20,000 descriptors). Rounds alternate quiet and attacked; the ratio is the median of
 * attacked over the median of quiet. Needs no server: `npm run bench:bystander`, or as rows of
 * `npm run bench`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorkToolActivities } from '../activities/tools';

const ROUNDS = Number(process.env.BENCH_BYSTANDER_ROUNDS ?? 6);
const PAIRS = Number(process.env.BENCH_BYSTANDER_PAIRS ?? 10);
/** Which attacks run (all by default; naming some tells what each costs the bystander). */
const ATTACKS = (process.env.BENCH_BYSTANDER_ATTACKS ?? 'fifo,grow,read,chain').split(',');
/** As root, bash runs as nobody (it never runs as root); the checkout is theirs. */
const AS_ROOT = process.getuid?.() === 0;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function chown(target: string): void {
  if (!AS_ROOT) return;
  fs.lchownSync(target, 65534, 65534);
  if (fs.lstatSync(target).isDirectory()) for (const entry of fs.readdirSync(target)) chown(path.join(target, entry));
}

export async function benchBystander(): Promise<string[][]> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bystander-'));
  fs.chmodSync(scratch, 0o755);
  const root = path.join(scratch, 'checkout');
  fs.mkdirSync(path.join(root, 'bystander'), { recursive: true });
  fs.writeFileSync(path.join(root, 'bystander', 'notes.txt'), 'x'.repeat(4096));
  chown(root);
  const { runWorkTool } = createWorkToolActivities({ root, heartbeat: () => undefined });
  const call = (tool: string, args: unknown, cwd = '.') => runWorkTool({ tool, argumentsJson: JSON.stringify(args), cwd });
  const chain = 'mkdir -p d && t=$(printf "d/../%.0s" $(seq 800)); for i in $(seq 0 39); do ln -sfn "${t}l$((i + 1))" "l$i"; done; echo x > l40';
  await call('bash', { command: chain });

  async function bystanderRound(): Promise<number> {
    const times: number[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const started = performance.now();
      const [read, bash] = [await call('read_file', { path: 'bystander/notes.txt' }), await call('bash', { command: 'true' }, 'bystander')];
      if (!read.ok || !bash.ok) throw new Error(`the bystander's call failed: ${read.text} ${bash.text}`);
      times.push(performance.now() - started);
    }
    return median(times);
  }

  async function attackedRound(): Promise<number> {
    let attacking = true;
    const loop = async (body: () => Promise<unknown>) => {
      while (attacking) await body();
    };
    const all = {
      fifo: () => loop(() => call('bash', { command: 'git init -q; rm -f .git/config; mkfifo .git/config; sleep 0.2' })),
      grow: () => loop(() => call('bash', { command: 'for i in $(seq 50); do truncate -s 1G big; truncate -s 100 big; done' })),
      read: () => loop(() => call('read_file', { path: 'big' })),
      chain: () => loop(() => call('read_file', { path: 'l0' })),
    };
    const attacks = Object.entries(all)
      .filter(([name]) => ATTACKS.includes(name))
      .map(([, attack]) => attack());
    try {
      return await bystanderRound();
    } finally {
      attacking = false;
      await Promise.all(attacks);
    }
  }

  const quiet: number[] = [];
  const attacked: number[] = [];
  try {
    await bystanderRound(); // warm-up: the sandbox probe, the first bwrap start
    for (let round = 0; round < ROUNDS; round++) {
      quiet.push(await bystanderRound());
      attacked.push(await attackedRound());
      console.log(`  bystander round ${round + 1}/${ROUNDS}: quiet ${quiet.at(-1)?.toFixed(1)} ms, attacked ${attacked.at(-1)?.toFixed(1)} ms`);
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const [attackedMs, quietMs] = [median(attacked), median(quiet)];
  return [
    [
      "bystander's read_file + bash pair while a member attacks (FIFO config, growing file, symlink chain), ms",
      attackedMs.toFixed(1),
      `${quietMs.toFixed(1)} (quiet)`,
      (attackedMs / quietMs).toFixed(2),
    ],
  ];
}

if (require.main === module) {
  benchBystander()
    .then((rows) => {
      for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
