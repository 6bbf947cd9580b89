/**
 * `npm run bench:footprint` (issue 28's method): the worker's memory per idle teammate, and what a
 * send to an evicted teammate costs against a cached one.
 *
 *  - Footprint: the compiled worker (`npm run build`, then dist/worker/main.js with the prebuilt
 *    bundle, as the production image runs it) in its own process on a fresh dev server; Teams of 32
 *    teammates, each idle after one scripted turn; the worker's RSS (/proc) at each count, after a
 *    pause for the process to settle. Its cache is the SDK's default, large enough to hold them all;
 *    each row says how many workflows it held (the SDK's temporal_sticky_cache_size).
 *  - Cold send: a second compiled worker whose cache holds BENCH_FOOTPRINT_COLD_CACHE workflows
 *    (AGENT_TEAMS_WORKFLOW_CACHE; 0 leaves this part out), with four times as many idle teammates. A round sends one
 *    teammate a script that answers the Lead, and times it until the answer is in the Lead's inbox:
 *    to the teammate of the round before (cached: nothing else ran since) and to one not touched
 *    since it was spawned (evicted long ago, so it is replayed from its history first). Medians.
 *  - Replay against history length: on that worker, teammates that took 0, 50 and 200 messages
 *    (BENCH_FOOTPRINT_HISTORY_MESSAGES) are evicted (twice the cache's worth of other teammates is
 *    queried, each replayed into the cache) and sent one message, timed as above, then sent one
 *    more while cached. The history length is the server's (describe) at the evicted send. Medians
 *    of BENCH_FOOTPRINT_HISTORY_ROUNDS; the difference between the two is what the replay costs.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { answer, script, send } from '../activities/providers/scriptedModelScript';
import { TeamClient } from '../client/teamClient';
import type { JsonValue } from '../shared/contract/json';
import { getTeammateStateQuery } from '../shared/contract/session';
import { teammateWorkflowId } from '../shared/team/roster';
import { freePort } from '../scripts/devServer';
import { countOn, scrape } from '../test/support/prometheus';
import { spawnWorkerProcess, type WorkerProcess } from '../test/support/workerProcess';
import { allIdle } from './teamReady';
import { runOnItsOwn } from './standalone';

const ROOT = path.resolve(__dirname, '..');
const LEVELS = (process.env.BENCH_FOOTPRINT_LEVELS ?? '0,64,256,512').split(',').map(Number);
const TEAM_SIZE = 32;
const COLD_CACHE = Number(process.env.BENCH_FOOTPRINT_COLD_CACHE ?? 40);
const COLD_ROUNDS = Number(process.env.BENCH_FOOTPRINT_COLD_ROUNDS ?? 15);
/** Messages each long-history teammate takes before it is evicted and timed: one history length per entry. */
const HISTORY_MESSAGES = (process.env.BENCH_FOOTPRINT_HISTORY_MESSAGES ?? '0,50,200').split(',').map(Number);
const HISTORY_ROUNDS = Number(process.env.BENCH_FOOTPRINT_HISTORY_ROUNDS ?? 3);
const SETTLE_MS = 5_000;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** The compiled worker, as `npm run worker:compiled` and the image run it, with extra variables. */
function compiledWorker(taskQueue: string, address: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  return spawnWorkerProcess(taskQueue, {
    address,
    env,
    command: {
      node: process.execPath,
      args: [path.join(ROOT, 'dist/worker/main.js')],
      // Two malloc arenas unless the caller says otherwise, as the image (Dockerfile) and `npm run worker:compiled` set.
      env: {
        ...process.env,
        MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
        AGENT_TEAMS_WORKFLOW_BUNDLE: path.join(ROOT, 'dist/workflow-bundle.js'),
        AGENT_TEAMS_LOG_FORMAT: 'json',
      },
    },
  });
}

function rssMb(worker: WorkerProcess): number {
  const status = fs.readFileSync(`/proc/${worker.child.pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** Adds Teams of 32 idle teammates until `count` are idle; returns the Teams with their members' names. */
async function growTo(client: Client, taskQueue: string, teams: { team: TeamClient; names: string[] }[], count: number, stamp: string): Promise<void> {
  let have = teams.reduce((sum, t) => sum + t.names.length, 0);
  while (have < count) {
    const size = Math.min(TEAM_SIZE, count - have);
    const team = await TeamClient.start(client, { teamId: `bench-footprint-${stamp}-${teams.length}`, taskQueue, maxMembers: TEAM_SIZE });
    const names = Array.from({ length: size }, (_, i) => `m${i}`);
    for (const name of names) await team.spawnTeammate({ name, message: 'ready' });
    await allIdle(team, names, 300_000);
    teams.push({ team, names });
    have += size;
    process.stdout.write(`\r  footprint: ${have} idle teammates`);
  }
  process.stdout.write('\n');
}

/** One send that the teammate answers with a message to the Lead; resolves once the answer is in the Lead's inbox. */
async function roundTrip(team: TeamClient, name: string, id: string): Promise<number> {
  const start = process.hrtime.bigint();
  await team.sendMessage(name, script(send('lead', `answer ${id}`), answer('sent')) as unknown as JsonValue);
  for (;;) {
    const inbox = await team.readLeadInbox();
    if (inbox.some((m) => m.content === `answer ${id}`)) return Number(process.hrtime.bigint() - start) / 1e6;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A send to an evicted teammate against the same teammate cached, by the length of the history it
 * is replayed from. `members` are idle teammates on a worker whose cache holds COLD_CACHE
 * workflows, none of them touched since spawned.
 */
async function replayByHistoryLength(client: Client, members: { team: TeamClient; name: string }[]): Promise<string[][]> {
  const long = members.slice(0, HISTORY_MESSAGES.length);
  const flushers = members.slice(HISTORY_MESSAGES.length, HISTORY_MESSAGES.length + 2 * COLD_CACHE);
  if (flushers.length < 2 * COLD_CACHE) throw new Error(`${members.length} untouched teammates: raise BENCH_FOOTPRINT_COLD_CACHE`);
  const workflowId = ({ team, name }: { team: TeamClient; name: string }) => teammateWorkflowId(team.teamId, name);
  for (const [i, target] of long.entries()) {
    const messages = HISTORY_MESSAGES[i]!;
    for (let m = 0; m < messages; m++) await roundTrip(target.team, target.name, `fill-${i}-${m}`);
    process.stdout.write(`\r  replay: teammate ${i + 1} of ${long.length} took ${messages} messages`);
  }
  process.stdout.write('\n');
  const samples = long.map(() => ({ cold: [] as number[], warm: [] as number[], events: 0 }));
  for (let round = 0; round < HISTORY_ROUNDS; round++) {
    // Each query replays an evicted teammate into the cache: twice the cache's worth evicts every long one.
    for (const member of flushers) await client.workflow.getHandle(workflowId(member)).query(getTeammateStateQuery);
    for (const [i, target] of long.entries()) {
      await target.team.liveStatus(); // its Lead cached, so the timed send replays only the teammate
      samples[i]!.events = (await client.workflow.getHandle(workflowId(target)).describe()).historyLength;
      samples[i]!.cold.push(await roundTrip(target.team, target.name, `replay-cold-${round}-${i}`));
      samples[i]!.warm.push(await roundTrip(target.team, target.name, `replay-warm-${round}-${i}`));
    }
  }
  return samples.map(({ cold, warm, events }, i) => {
    console.log(`  replay: ${events} events, evicted ${median(cold).toFixed(1)} ms, cached ${median(warm).toFixed(1)} ms`);
    return [
      `send answered, evicted teammate of ${events} history events (${HISTORY_MESSAGES[i]} messages) vs the same cached (ms), median of ${HISTORY_ROUNDS}`,
      median(cold).toFixed(1),
      median(warm).toFixed(1),
      (median(cold) / median(warm)).toFixed(2),
    ];
  });
}

export async function benchFootprint(address: string): Promise<string[][]> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const stamp = `${Date.now()}`;
  const rows: string[][] = [];

  // Footprint by idle teammates.
  const metricsPort = await freePort();
  const worker = await compiledWorker('bench-footprint', address, { AGENT_TEAMS_METRICS_BIND: `127.0.0.1:${metricsPort}` });
  const teams: { team: TeamClient; names: string[] }[] = [];
  const measured: [number, number, number][] = [];
  try {
    for (const level of LEVELS) {
      await growTo(client, 'bench-footprint', teams, level, stamp);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const rss = rssMb(worker);
      // The SDK's own count of the workflows in the worker's cache: every teammate and every Lead, or the row measures less.
      const cached = countOn(await scrape(metricsPort), 'temporal_sticky_cache_size', { task_queue: 'bench-footprint' });
      measured.push([level, rss, cached]);
      console.log(`  footprint: ${level} idle teammates, worker RSS ${rss.toFixed(0)} MB, ${cached} workflows cached`);
    }
  } finally {
    for (const { team } of teams) await team.dispose().catch(() => undefined);
    await worker.stop();
  }
  const [first] = measured;
  for (const [level, rss, cached] of measured) {
    const perTeammate = first && level > first[0] ? ((rss - first[1]) / (level - first[0])).toFixed(2) : '-';
    rows.push([`worker RSS with ${level} idle teammates (MB), compiled worker, SDK default cache with ${cached} workflows`, rss.toFixed(0), '-', perTeammate]);
  }

  // Cold sends against cached ones (BENCH_FOOTPRINT_COLD_CACHE=0: the footprint alone).
  if (COLD_CACHE === 0) {
    await connection.close();
    return rows;
  }
  const coldQueue = 'bench-footprint-cold';
  const coldWorker = await compiledWorker(coldQueue, address, { AGENT_TEAMS_WORKFLOW_CACHE: String(COLD_CACHE) });
  const coldTeams: { team: TeamClient; names: string[] }[] = [];
  try {
    await growTo(client, coldQueue, coldTeams, 4 * COLD_CACHE, `${stamp}-cold`);
    const [home, ...others] = coldTeams;
    if (!home || others.length === 0) throw new Error('the cold-send bench needs two Teams or more');
    const untouched = others.flatMap(({ team, names }) => names.map((name) => ({ team, name })));
    const warm: number[] = [];
    const cold: number[] = [];
    const cachedName = home.names[0]!;
    await roundTrip(home.team, cachedName, 'warm-up');
    if (untouched.length < COLD_ROUNDS)
      throw new Error(`${untouched.length} untouched teammates for ${COLD_ROUNDS} cold rounds: raise BENCH_FOOTPRINT_COLD_CACHE`);
    for (let round = 0; round < COLD_ROUNDS; round++) {
      const target = untouched[round]!; // spawned early: evicted long ago by the Teams spawned after
      // Its Lead is cached first (a query), so the timed send replays only the teammate.
      await target.team.liveStatus();
      cold.push(await roundTrip(target.team, target.name, `cold-${round}`));
      // The home Team and its member just ran: cached. Each cold target's own Lead is another Team's.
      await roundTrip(home.team, cachedName, `rewarm-${round}`);
      warm.push(await roundTrip(home.team, cachedName, `warm-${round}`));
    }
    console.log(
      `  cold send: evicted teammate ${median(cold).toFixed(1)} ms, cached ${median(warm).toFixed(1)} ms (cache ${COLD_CACHE}, ${4 * COLD_CACHE} teammates)`,
    );
    rows.push([
      `send answered, evicted teammate vs cached (ms; cache of ${COLD_CACHE} workflows, ${4 * COLD_CACHE} idle teammates), median of ${COLD_ROUNDS}`,
      median(cold).toFixed(1),
      median(warm).toFixed(1),
      (median(cold) / median(warm)).toFixed(2),
    ]);
    rows.push(...(await replayByHistoryLength(client, untouched.slice(COLD_ROUNDS))));
  } finally {
    for (const { team } of coldTeams) await team.dispose().catch(() => undefined);
    await coldWorker.stop();
    await connection.close();
  }
  return rows;
}

if (require.main === module) {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  console.log('bench:footprint: building the compiled worker (npm run build)…');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  runOnItsOwn(['Measure', 'Team', 'Cached', 'Ratio or MB per teammate'], (server) => benchFootprint(server.address));
}
