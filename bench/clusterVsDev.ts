/**
 * `npm run bench:cluster`: the same Team workloads measured side by side in one run on the dev
 * server (one process, SQLite) and on the multi-service cluster of `npm run cluster` (four service
 * processes over PostgreSQL; brought up if it is down, left up), each with its own in-process
 * worker, rounds alternating between them:
 *  - Team mutation latency: OPS sequential Updates through TeamClient per round, alternating
 *    createTask and claimTask of the task just created; p50 and p99 per Update over all rounds.
 *  - 64 raw SDK callers racing claimTask on one task (bench/racingCallers.ts): the time until all
 *    settled (median over rounds) and the winners per round (exactly one).
 * Both servers carry the project's server settings. Prints a markdown table.
 */
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { TeamClient } from '../client/teamClient';
import { clusterUp } from '../scripts/cluster';
import { startDevServer } from '../scripts/devServer';
import { connectBenchWorker } from './side';
import { racingRound } from './racingCallers';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const OPS = Number(process.env.BENCH_OPS ?? 200);
const TASK_QUEUE = 'bench-cluster-vs-dev';

interface Side {
  name: string;
  client: Client;
  mutationMs: number[];
  settleMs: number[];
  winners: number[];
  close(): Promise<void>;
}

async function side(name: string, address: string, stopServer: () => Promise<void>): Promise<Side> {
  const { client, close } = await connectBenchWorker(address, TASK_QUEUE);
  return {
    name,
    client,
    mutationMs: [],
    settleMs: [],
    winners: [],
    async close() {
      await close();
      await stopServer();
    },
  };
}

async function mutations(s: Side, n: number): Promise<void> {
  const team = await TeamClient.start(s.client, { teamId: `bench-mutations-${n}-${Date.now()}`, taskQueue: TASK_QUEUE });
  for (let op = 0; op < OPS / 2; op++) {
    let started = process.hrtime.bigint();
    const { task } = await team.createTask({ subject: `task ${op}` });
    s.mutationMs.push(Number(process.hrtime.bigint() - started) / 1e6);
    started = process.hrtime.bigint();
    await team.claimTask({ taskId: task.id, expectedRevision: task.revision });
    s.mutationMs.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  await team.dispose();
}

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  console.log(`bench:cluster: ${ROUNDS} rounds of ${OPS} sequential mutations and one 64-caller race, on each server`);
  const devServer = await startDevServer({ uiPort: false });
  const dev = await side('dev server (one process, SQLite)', devServer.address, () => devServer.stop());
  const cluster = await side('cluster (4 service processes, PostgreSQL)', (await clusterUp()).address, () => Promise.resolve()); // left up
  try {
    for (let n = 0; n < ROUNDS; n++) {
      for (const s of n % 2 === 0 ? [dev, cluster] : [cluster, dev]) {
        await mutations(s, n);
        const { settleMs, winners } = await racingRound(s.client, TASK_QUEUE, n);
        s.settleMs.push(settleMs);
        s.winners.push(winners);
        console.log(`  round ${n + 1}/${ROUNDS} ${s.name}: race settled in ${settleMs.toFixed(0)} ms, ${winners} winner(s)`);
      }
    }
  } finally {
    await dev.close();
    await cluster.close();
  }
  console.log('');
  console.log(`| server | mutation p50 (ms) | mutation p99 (ms) | 64 raw racing callers settled, median (ms) | winners per round |`);
  console.log('| --- | ---: | ---: | ---: | --- |');
  for (const s of [dev, cluster]) {
    const p50 = percentile(s.mutationMs, 50).toFixed(1);
    const p99 = percentile(s.mutationMs, 99).toFixed(1);
    const row = [s.name, p50, p99, percentile(s.settleMs, 50).toFixed(0), s.winners.join(', ')];
    console.log(`| ${row.join(' | ')} |`);
  }
  if ([...dev.winners, ...cluster.winners].some((w) => w !== 1)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
