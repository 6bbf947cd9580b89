/**
 * `npm run bench:cluster`: the same Team workload, side by side in one run, on the dev server
 * (one process, SQLite) and on the multi-service cluster of `npm run cluster` (PostgreSQL, four
 * server processes), both with the project's server settings and an in-process worker each.
 * Rounds alternate between the two. Measured per side:
 *  - Team mutation latency: sequential `editTask` Updates with expectedRevision, p50 and p99;
 *  - 64 raw SDK callers racing `claimTask` on one task: time until all have their answer, and the winners.
 * The cluster is brought up if it is not (and left up); the dev server is stopped at the end.
 * Prints a markdown table (copied into docs/benchmarks.md).
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { TeamClient } from '../client/teamClient';
import { clusterUp } from '../scripts/cluster';
import { startDevServer } from '../scripts/devServer';
import { createTeamWorker } from '../worker/createWorker';
import { percentile, racingRound } from './racing';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const OPS_PER_ROUND = Number(process.env.BENCH_OPS ?? 100);
const RACERS = Number(process.env.BENCH_RACERS ?? 64);
const TASK_QUEUE = 'bench-cluster';

interface Side {
  name: string;
  client: Client;
  mutationMs: number[];
  settleMs: number[];
  winners: number[];
  close(): Promise<void>;
}

async function side(name: string, address: string, stopServer: () => Promise<void>): Promise<Side> {
  const workerConnection = await NativeConnection.connect({ address });
  const { worker, close: closeWorker } = await createTeamWorker({ connection: workerConnection, address, taskQueue: TASK_QUEUE });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  return {
    name,
    client: new Client({ connection }),
    mutationMs: [],
    settleMs: [],
    winners: [],
    async close() {
      await stopWorker(worker, running);
      await closeWorker();
      await workerConnection.close();
      await connection.close();
      await stopServer();
    },
  };
}

async function stopWorker(worker: Worker, running: Promise<void>): Promise<void> {
  worker.shutdown();
  await running;
}

/** One Team, one task, OPS_PER_ROUND sequential edits, each timed from call to result. */
async function mutations(s: Side, n: number): Promise<void> {
  const team = await TeamClient.start(s.client, { teamId: `bench-mutations-${n}-${Date.now()}`, taskQueue: TASK_QUEUE });
  let { task } = await team.createTask({ subject: 'edited' });
  for (let i = 0; i < OPS_PER_ROUND; i++) {
    const started = process.hrtime.bigint();
    ({ task } = await team.editTask({ taskId: task.id, expectedRevision: task.revision, description: `edit ${i}` }));
    s.mutationMs.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  await team.dispose();
}

async function racing(s: Side, n: number): Promise<void> {
  const { settleMs, winners } = await racingRound(s.client, TASK_QUEUE, RACERS, `bench-racing-${n}-${Date.now()}`);
  s.settleMs.push(settleMs);
  s.winners.push(winners);
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  console.log(`bench:cluster: ${ROUNDS} rounds x (${OPS_PER_ROUND} sequential editTask + ${RACERS} racing claimTask) per side`);
  console.log('starting the dev server, and the cluster if it is not up (the first build takes minutes)…');
  const dev = await startDevServer({ uiPort: false });
  const cluster = await clusterUp();
  const sides = [
    await side('dev server (1 process, SQLite)', dev.address, () => dev.stop()),
    await side('cluster (4 services, PostgreSQL)', cluster.address, async () => {}),
  ];
  try {
    for (let n = 0; n < ROUNDS; n++) {
      for (const s of n % 2 === 0 ? sides : [...sides].reverse()) {
        await mutations(s, n);
        await racing(s, n);
        console.log(
          `  round ${n + 1}/${ROUNDS} ${s.name}: editTask p50 ${percentile(s.mutationMs.slice(-OPS_PER_ROUND), 50).toFixed(1)} ms, ` +
            `${RACERS} racers ${s.settleMs.at(-1)!.toFixed(0)} ms, ${s.winners.at(-1)} winner(s)`,
        );
      }
    }
  } finally {
    for (const s of sides) await s.close();
  }
  const [devSide, clusterSide] = sides as [Side, Side];
  console.log('');
  console.log(`| side | editTask p50 (ms) | editTask p99 (ms) | ${RACERS} racers settled, median (ms) | winners per round |`);
  console.log('| --- | --- | --- | --- | --- |');
  for (const s of sides) {
    const row = [
      s.name,
      percentile(s.mutationMs, 50).toFixed(1),
      percentile(s.mutationMs, 99).toFixed(1),
      percentile(s.settleMs, 50).toFixed(0),
      s.winners.join(', '),
    ];
    console.log(`| ${row.join(' | ')} |`);
  }
  const ratio = (f: (s: Side) => number): string => (f(clusterSide) / f(devSide)).toFixed(2);
  console.log(
    `\ncluster / dev server: editTask p50 ${ratio((s) => percentile(s.mutationMs, 50))}x, p99 ${ratio((s) => percentile(s.mutationMs, 99))}x, ` +
      `racers ${ratio((s) => percentile(s.settleMs, 50))}x`,
  );
  if (sides.some((s) => s.winners.some((w) => w !== 1))) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
