/**
 * Sends under a Team budget (`npm run bench:team-budget`, and a row pair of `npm run bench`): 200
 * concurrent sendMessage to 3 teammates that are making short model calls, in a Team with a Team
 * budget (each member asks the Lead before every call, and the Lead answers) against a Team
 * without one, rounds alternating on one dev server. With the server's metrics, also how many
 * signal deliveries it tried again on a busy workflow: a member's ask sent as a signal command of
 * its own held the member's lock while it took the Lead's, as the Lead's sends held the Lead's
 * while they took the member's, and one of the two waited out the server's 500 ms lock timeout
 * (workflows/common/agentActivities.ts `leadSignals`). And what the asks cost the calls: the
 * same members' turns with nothing sent to them, spawned to all idle, with and without a Team
 * budget. BENCH_FLOOR_WORKER_ROOT runs another checkout's worker (bench/otherCheckout.ts).
 */
import { Client, Connection } from '@temporalio/client';
import { TeamClient } from '../client/teamClient';
import { spawnWorkerProcess } from '../test/support/workerProcess';
import { answer, script, think, tool } from '../activities/providers/scriptedModelScript';
import { allIdle, allInStatus } from './teamReady';
import { runOnItsOwn } from './standalone';
import { countsSince, signalTaskCounts, type SignalTaskCounts } from './serverMetrics';
import { otherCheckoutsWorker } from './otherCheckout';

const ROUNDS = Number(process.env.BENCH_TEAM_BUDGET_ROUNDS ?? 3);
const SENDS = 200;
const MEMBERS = ['m0', 'm1', 'm2'];
/** Each member's first turn: this many short model calls (a tool call each), so asks go on during the sends. */
const CALLS = 60;
const QUEUE = 'bench-team-budget';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const perHundred = ({ delivered, busyWorkflow }: SignalTaskCounts): number => (100 * busyWorkflow) / Math.max(1, delivered);

interface Side {
  ms: number[];
  deliveries: SignalTaskCounts;
  /** A Team's members' first turns with no sends, spawned to all idle: what the asks cost the calls. */
  quietMs: number[];
}

const newTeam = (client: Client, budgeted: boolean, what: string): Promise<TeamClient> =>
  TeamClient.start(client, {
    teamId: `bench-team-budget-${what}-${budgeted ? 'on' : 'off'}-${Date.now()}`,
    taskQueue: QUEUE,
    ...(budgeted ? { budgets: { team: { calls: 1_000_000 } } } : {}),
  });

const WORK = JSON.stringify(script(...Array.from({ length: CALLS }, () => [think(30), tool('list_tasks')]).flat(), answer('done')));

/** The members' turns of CALLS short calls each, with nothing sent to them: spawned to all idle. */
async function quietTurns(client: Client, budgeted: boolean, side: Side): Promise<void> {
  const team = await newTeam(client, budgeted, 'quiet');
  const start = process.hrtime.bigint();
  await Promise.all(MEMBERS.map((name) => team.spawnTeammate({ name, message: WORK })));
  await allIdle(team, MEMBERS, 300_000);
  side.quietMs.push(Number(process.hrtime.bigint() - start) / 1e6);
  await team.dispose();
}

/** One round: a new Team, its members busy with short calls, 200 sends to them; the time until all returned. */
async function round(client: Client, budgeted: boolean, metricsUrl: string | undefined, side: Side): Promise<void> {
  const team = await newTeam(client, budgeted, 'sends');
  await Promise.all(MEMBERS.map((name) => team.spawnTeammate({ name, message: WORK })));
  await allInStatus(team, MEMBERS, 'running');
  const before = metricsUrl ? await signalTaskCounts(metricsUrl) : undefined;
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: SENDS }, (_, i) => team.sendMessage(MEMBERS[i % MEMBERS.length]!, `message ${i}`)));
  side.ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  if (metricsUrl && before) {
    const during = countsSince(before, await signalTaskCounts(metricsUrl));
    side.deliveries = { delivered: side.deliveries.delivered + during.delivered, busyWorkflow: side.deliveries.busyWorkflow + during.busyWorkflow };
  }
  await allIdle(team, MEMBERS, 300_000);
  await team.dispose();
}

export async function benchTeamBudgetSends(address: string, metricsUrl?: string): Promise<string[][]> {
  console.log(`  team budget: ${ROUNDS} rounds a side of ${SENDS} sends to ${MEMBERS.length} members making ${CALLS} short calls…`);
  const worker = await spawnWorkerProcess(QUEUE, { address, ...otherCheckoutsWorker() });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const budgeted: Side = { ms: [], deliveries: { delivered: 0, busyWorkflow: 0 }, quietMs: [] };
  const plain: Side = { ms: [], deliveries: { delivered: 0, busyWorkflow: 0 }, quietMs: [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating which side goes first, so neither always meets a warmer server.
      for (const on of r % 2 === 0 ? [true, false] : [false, true]) await round(client, on, metricsUrl, on ? budgeted : plain);
      for (const on of r % 2 === 0 ? [false, true] : [true, false]) await quietTurns(client, on, on ? budgeted : plain);
    }
  } finally {
    await worker.stop();
    await connection.close();
  }
  const told = (s: Side): string =>
    `sends ${s.ms.map((x) => x.toFixed(0)).join(', ')} ms; turns with nothing sent ${s.quietMs.map((x) => x.toFixed(0)).join(', ')} ms; ` +
    `${s.deliveries.busyWorkflow} of ${s.deliveries.delivered} deliveries tried again`;
  console.log(`  team budget: with ${told(budgeted)}; without ${told(plain)}`);
  const rows = [
    [
      `${SENDS} concurrent sendMessage to ${MEMBERS.length} members making short model calls, median of ${ROUNDS} (ms): under a Team budget vs without`,
      median(budgeted.ms).toFixed(0),
      median(plain.ms).toFixed(0),
      (median(budgeted.ms) / median(plain.ms)).toFixed(2),
    ],
  ];
  rows.push([
    `${MEMBERS.length} members' turns of ${CALLS} short model calls each, nothing sent, spawned to all idle, median of ${ROUNDS} (ms): Team budget vs none`,
    median(budgeted.quietMs).toFixed(0),
    median(plain.quietMs).toFixed(0),
    (median(budgeted.quietMs) / median(plain.quietMs)).toFixed(2),
  ]);
  if (metricsUrl) {
    rows.push([
      'signal deliveries the server tried again on a busy workflow during those sends, per 100: under a Team budget vs without',
      perHundred(budgeted.deliveries).toFixed(1),
      perHundred(plain.deliveries).toFixed(1),
      '—',
    ]);
  }
  return rows;
}

if (require.main === module) runOnItsOwn(['Measure', 'Team budget', 'None', 'Ratio'], (server) => benchTeamBudgetSends(server.address, server.metricsUrl));
