/**
 * Issue 52: a bystander's tool latency while a member attacks the worker, against the same
 * bystander on a quiet worker. One worker's work tools (this process, as a worker runs them), one
 * checkout without `.git`; the bystander runs a read_file and a `bash true`, round after round.
 * The attacks are the ones that took the worker at 13e4ee9: `git init` with a FIFO at
 * `.git/config` (5 s of the event loop per bash call then), a file it grows and shrinks while
 * reading it (1 GiB into the worker), and reads through 40 symlinks of 800 `d/..` (20,000
 * descriptors). `busy`, named in BENCH_BYSTANDER_ATTACKS, adds a command of 8 busy processes: not
 * an attack on the worker but heavy work of a member's, which takes the machine's CPU from everyone.
 *
 * Two shapes, in alternating rounds beside quiet ones:
 * - one member: its calls one after another, cycling through the attacks, as a member's tool calls
 *   run (shared/agent/loop.ts runs a step's calls in order); this is the criterion;
 * - one member per attack, all at once: as many members attacking together, on the same cores.
 * Each ratio is the median of that shape's rounds over the median of the quiet ones. Needs no
 * server: `npm run bench:bystander`, or as rows of `npm run bench`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorkToolActivities } from '../activities/tools';

const ROUNDS = Number(process.env.BENCH_BYSTANDER_ROUNDS ?? 6);
const PAIRS = Number(process.env.BENCH_BYSTANDER_PAIRS ?? 10);
/** Which attacks run (the four by default; naming some tells what each costs the bystander). */
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

  /** The median of the bystander's pairs: at least PAIRS of them, and until `attacked` (the attackers' one pass) is over. */
  async function bystanderRound(attacked: Promise<unknown> = Promise.resolve()): Promise<number> {
    let over = false;
    void attacked.finally(() => (over = true));
    const times: number[] = [];
    for (let pair = 0; pair < PAIRS || !over; pair++) {
      const started = performance.now();
      const [read, bash] = [await call('read_file', { path: 'bystander/notes.txt' }), await call('bash', { command: 'true' }, 'bystander')];
      if (!read.ok || !bash.ok) throw new Error(`the bystander's call failed: ${read.text} ${bash.text}`);
      times.push(performance.now() - started);
    }
    return median(times);
  }

  const attacks: Record<string, () => Promise<unknown>> = {
    fifo: () => call('bash', { command: 'git init -q; rm -f .git/config; mkfifo .git/config; sleep 0.2' }),
    grow: () => call('bash', { command: 'for i in $(seq 50); do truncate -s 1G big; truncate -s 100 big; done' }),
    read: () => call('read_file', { path: 'big' }),
    chain: () => call('read_file', { path: 'l0' }),
    busy: () => call('bash', { command: 'for i in $(seq 8); do (while :; do :; done) & done; sleep 0.5; kill $(jobs -p)' }),
  };
  const chosen = Object.entries(attacks).filter(([name]) => ATTACKS.includes(name));

  /**
   * The bystander's round while each of `members` runs its attacks: every one of them at least
   * once (one pass), and on until the bystander's round is over.
   */
  async function attackedRound(members: Array<Array<() => Promise<unknown>>>): Promise<number> {
    let attacking = true;
    const passes = members.map(async (attacks) => {
      for (const attack of attacks) await attack();
    });
    const loops = members.map(async (attacks, index) => {
      await passes[index];
      for (let turn = 0; attacking; turn++) await attacks[turn % attacks.length]?.();
    });
    try {
      return await bystanderRound(Promise.all(passes));
    } finally {
      attacking = false;
      await Promise.all(loops);
    }
  }

  // The worker's RSS above where it stood before the first attack, sampled through the rounds (issue 52: under 100 MB).
  const rssStart = process.memoryUsage().rss;
  let rssPeak = rssStart;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 5);
  sampler.unref();
  const quiet: number[] = [];
  const member: number[] = [];
  const members: number[] = [];
  try {
    await bystanderRound(); // warm-up: the sandbox probe, the first bwrap start
    for (let round = 0; round < ROUNDS; round++) {
      quiet.push(await bystanderRound());
      member.push(await attackedRound([chosen.map(([, attack]) => attack)]));
      members.push(await attackedRound(chosen.map(([, attack]) => [attack])));
      const ms = (xs: number[]) => `${xs.at(-1)?.toFixed(1)} ms`;
      console.log(`  bystander round ${round + 1}/${ROUNDS}: quiet ${ms(quiet)}, one member attacking ${ms(member)}, ${chosen.length} members ${ms(members)}`);
    }
  } finally {
    clearInterval(sampler);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const quietMs = median(quiet);
  const names = chosen.map(([name]) => name).join(', ');
  const grownMb = (rssPeak - rssStart) / 1e6;
  const row = (what: string, xs: number[]) => [what, median(xs).toFixed(1), `${quietMs.toFixed(1)} (quiet)`, (median(xs) / quietMs).toFixed(2)];
  return [
    row(`bystander's read_file + bash pair while one member attacks in turn (${names}), ms`, member),
    row(`bystander's read_file + bash pair while ${chosen.length} members attack at once (${names}), ms`, members),
    ['worker RSS growth through those rounds (peak over the start), MB', grownMb.toFixed(1), '100 (the bound)', (grownMb / 100).toFixed(2)],
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
