/**
 * `npm run bench:racing`: 64 raw SDK callers (no TeamClient, so no client-side in-flight limit)
 * race `claimTask` on one task of one Team, measured side by side on two dev servers in one run:
 * one with the server's defaults, one with the project's server settings (scripts/serverSettings.ts).
 * Rounds alternate between the two servers; each round reports the time until every caller has its
 * answer and the number of winners (exactly one, or the Team is broken). Prints a markdown table.
 */
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { TeamClient } from '../client/teamClient';
import { claimTaskUpdate } from '../shared/contract';
import { TEAM_SERVER_DYNAMIC_CONFIG } from '../scripts/serverSettings';
import { startDevServer, type DevServer } from '../scripts/devServer';
import { connectBenchWorker } from './side';

const CALLERS = Number(process.env.BENCH_RACERS ?? 64);
const ROUNDS = Number(process.env.BENCH_RACING_ROUNDS ?? 5);
const TASK_QUEUE = 'bench-racing';

interface Side {
  name: string;
  server: DevServer;
  client: Client;
  close(): Promise<void>;
  settleMs: number[];
  winners: number[];
}

async function side(name: string, serverDefaults: boolean): Promise<Side> {
  const server = await startDevServer({ uiPort: false, serverDefaults });
  const { client, close } = await connectBenchWorker(server.address, TASK_QUEUE);
  return {
    name,
    server,
    client,
    settleMs: [],
    winners: [],
    async close() {
      await close();
      await server.stop();
    },
  };
}

/** One race: CALLERS raw SDK callers claim one task of a fresh Team on `taskQueue`; the time until all settled and the number of winners. */
export async function racingRound(client: Client, taskQueue: string, n: number, callers: number = CALLERS): Promise<{ settleMs: number; winners: number }> {
  const team = await TeamClient.start(client, { teamId: `racing-${n}-${Date.now()}`, taskQueue });
  const { task } = await team.createTask({ subject: 'contended' });
  const handle = team.handle();
  const started = process.hrtime.bigint();
  const outcomes = await Promise.allSettled(
    Array.from({ length: callers }, () =>
      handle.executeUpdate(claimTaskUpdate, { args: [{ taskId: task.id, expectedRevision: task.revision, caller: 'lead' }] }),
    ),
  );
  const settleMs = Number(process.hrtime.bigint() - started) / 1e6;
  await team.dispose();
  return { settleMs, winners: outcomes.filter((o) => o.status === 'fulfilled').length };
}

async function round(s: Side, n: number): Promise<void> {
  const { settleMs, winners } = await racingRound(s.client, TASK_QUEUE, n);
  s.settleMs.push(settleMs);
  s.winners.push(winners);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  console.log(`bench:racing: ${CALLERS} raw callers x ${ROUNDS} rounds per server; starting two dev servers…`);
  const defaults = await side('server defaults', true);
  const tuned = await side('project settings', false);
  try {
    for (let n = 0; n < ROUNDS; n++) {
      for (const s of n % 2 === 0 ? [defaults, tuned] : [tuned, defaults]) {
        await round(s, n);
        console.log(`  round ${n + 1}/${ROUNDS} ${s.name}: ${s.settleMs.at(-1)!.toFixed(0)} ms, ${s.winners.at(-1)} winner(s)`);
      }
    }
  } finally {
    await defaults.close();
    await tuned.close();
  }
  const ratio = median(defaults.settleMs) / median(tuned.settleMs);
  console.log('');
  console.log(`| ${CALLERS} raw callers racing claimTask | median settle (ms) | winners per round |`);
  console.log('| --- | --- | --- |');
  for (const s of [defaults, tuned]) console.log(`| ${s.name} | ${median(s.settleMs).toFixed(0)} | ${s.winners.join(', ')} |`);
  console.log(`\nserver defaults / project settings: ${ratio.toFixed(1)}x (${JSON.stringify(TEAM_SERVER_DYNAMIC_CONFIG)})`);
  if ([...defaults.winners, ...tuned.winners].some((w) => w !== 1)) process.exitCode = 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
