/**
 * `npm run bench`: speed and memory of the Team Lead, always as ratios against a baseline
 * measured side by side in the same run on the same server (these machines are noisy).
 *
 *  1. Sequential Updates: a Team mutation (editTask with expectedRevision) vs a bare no-op Update
 *     with a validator, alternating rounds, median per-op latency.
 *  2. Concurrent Updates: 8 callers at once, each on its own task, vs 8 callers of the no-op.
 *  3. Contended claim: 32 callers racing for one task (one wins, 31 get a typed conflict) vs
 *     32 concurrent no-op Updates.
 *  4. Memory: the Lead's state payload size per task, and the worker heap, with 1,000 tasks.
 *  5. Agent turn: a Lead agent (scripted model) whose turn makes one Team tool call, from start to
 *     the answer seen by the client, vs a bare workflow running the same number of activities (2).
 *  6. File tools: read_file and write_file through descriptors vs the path-string tools they
 *     replaced (bench/fileTools.ts; no server).
 *  8. bash: one call under the issue-21 sandbox vs the issue-20 sandbox's argv (bench/bashSandbox.ts; no server).
 *     Then a bystander's read_file + bash pair while another member attacks the worker, vs the same on a quiet
 *     worker (bench/bystander.ts, issue 52; no server).
 *  9. A model call through the AI SDK layer vs a bare fetch on a local server (bench/modelCall.ts; no Temporal server).
 *  10 on. The floor (bench/floor.ts, issue 28's method): editTask, getTask, 64 racing claims (and one
 *     refusal's failure, in process), 200 sends and what they wrote, against bare-Temporal workflows
 *     doing the same, the project's worker in its own process.
 *  Then the footprint (bench/footprint.ts): the compiled worker's RSS by idle teammates (the last
 *     column: MB per teammate over the first level), and a send to an evicted teammate vs a cached one.
 * Writes bench/results/latest.md (the README table is copied from it).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { TeamClient, withUpdateSlot } from '../client/teamClient';
import { startDevServer } from '../scripts/devServer';
import { createTeamWorker } from '../worker/createWorker';
import { finishNoopUpdate, noopUpdate } from './baselines';
import { createBenchActivities } from './activities';
import { benchBashSandbox } from './bashSandbox';
import { benchBystander } from './bystander';
import { benchFileTools } from './fileTools';
import { benchFloor } from './floor';
import { benchTeamBudgetSends } from './teamBudgetSends';
import { benchFootprint } from './footprint';
import { benchModelCall } from './modelCall';
import { benchCheckout } from './side';
import { scriptText, tool } from '../activities/providers/scriptedModelScript';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const OPS_PER_ROUND = Number(process.env.BENCH_OPS ?? 100);
/** Agent-turn rounds (row 5): each round is one Team start to answer, paired with one baseline run. */
const AGENT_ROUNDS = Number(process.env.BENCH_AGENT_ROUNDS ?? 15);
const TASK_QUEUE = 'bench';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};
const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  console.log(`bench: ${ROUNDS} rounds x ${OPS_PER_ROUND} ops; starting the dev server and a worker…`);
  const server = await startDevServer({ uiPort: false });
  const workerConnection = await NativeConnection.connect({ address: server.address });
  // The benchmark's own worker: the production workflows and activities plus the baselines (bench/workflows.ts).
  const { worker, close: closeWorker } = await createTeamWorker({
    connection: workerConnection,
    address: server.address,
    taskQueue: TASK_QUEUE,
    checkoutRoot: benchCheckout(),
    workflowsPath: require.resolve('./workflows'),
    extraActivities: createBenchActivities(),
  });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const rows: string[][] = [];

  await worker.runUntil(async () => {
    let noopSeq = 0;
    const noopWorkflow = async (): Promise<{ run: (n: number) => Promise<void>; finish: () => Promise<void> }> => {
      const handle = await client.workflow.start('noopUpdateBaseline', { taskQueue: TASK_QUEUE, workflowId: `bench-noop-${Date.now()}-${noopSeq++}` });
      return {
        // Through the same per-workflow in-flight limit the Team client applies, so only the Lead's work differs.
        run: async (n) => void (await withUpdateSlot(handle.workflowId, () => handle.executeUpdate(noopUpdate, { args: [n] }))),
        finish: async () => void (await handle.executeUpdate(finishNoopUpdate)),
      };
    };

    // 1. sequential
    const teamSeq: number[] = [];
    const noopSeq_: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const team = await TeamClient.start(client, { teamId: `bench-seq-${Date.now()}-${round}`, taskQueue: TASK_QUEUE });
      let { task } = await team.createTask({ subject: 'bench' });
      const noop = await noopWorkflow();
      await noop.run(0); // warm
      let start = process.hrtime.bigint();
      for (let i = 0; i < OPS_PER_ROUND; i++) await noop.run(i);
      noopSeq_.push(ms(start) / OPS_PER_ROUND);
      start = process.hrtime.bigint();
      for (let i = 0; i < OPS_PER_ROUND; i++) ({ task } = await team.editTask({ taskId: task.id, expectedRevision: task.revision, description: `d${i}` }));
      teamSeq.push(ms(start) / OPS_PER_ROUND);
      await noop.finish();
      await team.dispose();
      process.stdout.write(`  sequential round ${round + 1}/${ROUNDS}: team ${teamSeq.at(-1)!.toFixed(2)} ms/op, no-op ${noopSeq_.at(-1)!.toFixed(2)} ms/op\n`);
    }
    rows.push([
      'Sequential Update latency (median ms/op)',
      median(teamSeq).toFixed(2),
      median(noopSeq_).toFixed(2),
      (median(teamSeq) / median(noopSeq_)).toFixed(2),
    ]);

    // 2. concurrent, 8 callers on distinct tasks
    const CALLERS = 8;
    const teamConc: number[] = [];
    const noopConc: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const team = await TeamClient.start(client, { teamId: `bench-conc-${Date.now()}-${round}`, taskQueue: TASK_QUEUE });
      const tasks = await Promise.all(Array.from({ length: CALLERS }, (_, i) => team.createTask({ subject: `t${i}` }).then((r) => r.task)));
      const noop = await noopWorkflow();
      const perCaller = Math.max(1, Math.floor(OPS_PER_ROUND / CALLERS));
      let start = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: CALLERS }, async () => {
          for (let i = 0; i < perCaller; i++) await noop.run(i);
        }),
      );
      noopConc.push((perCaller * CALLERS) / (ms(start) / 1000));
      start = process.hrtime.bigint();
      await Promise.all(
        tasks.map(async (t) => {
          let task = t;
          for (let i = 0; i < perCaller; i++) ({ task } = await team.editTask({ taskId: task.id, expectedRevision: task.revision, description: `d${i}` }));
        }),
      );
      teamConc.push((perCaller * CALLERS) / (ms(start) / 1000));
      await noop.finish();
      await team.dispose();
    }
    console.log(`  concurrent: team ${teamConc.map((x) => x.toFixed(0)).join(', ')} ops/s; no-op ${noopConc.map((x) => x.toFixed(0)).join(', ')} ops/s`);
    rows.push([
      `Concurrent throughput, ${CALLERS} callers (median ops/s)`,
      median(teamConc).toFixed(0),
      median(noopConc).toFixed(0),
      (median(teamConc) / median(noopConc)).toFixed(2),
    ]);

    // 3. contended claim, 32 callers
    const RACERS = 32;
    const claimMs: number[] = [];
    const noopBurst: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const team = await TeamClient.start(client, { teamId: `bench-race-${Date.now()}-${round}`, taskQueue: TASK_QUEUE });
      const { task } = await team.createTask({ subject: 'contended' });
      const noop = await noopWorkflow();
      let start = process.hrtime.bigint();
      await Promise.all(Array.from({ length: RACERS }, (_, i) => noop.run(i)));
      noopBurst.push(ms(start));
      start = process.hrtime.bigint();
      const outcomes = await Promise.allSettled(Array.from({ length: RACERS }, () => team.claimTask({ taskId: task.id, expectedRevision: task.revision })));
      claimMs.push(ms(start));
      const winners = outcomes.filter((o) => o.status === 'fulfilled').length;
      if (winners !== 1) throw new Error(`contended claim had ${winners} winners`);
      await noop.finish();
      await team.dispose();
    }
    console.log(`  contended claim: ${claimMs.map((x) => x.toFixed(0)).join(', ')} ms`);
    rows.push([
      `${RACERS} racing callers, all settled (median ms)`,
      median(claimMs).toFixed(0),
      median(noopBurst).toFixed(0),
      (median(claimMs) / median(noopBurst)).toFixed(2),
    ]);

    // 4. memory with 1,000 tasks
    const team = await TeamClient.start(client, { teamId: `bench-mem-${Date.now()}`, taskQueue: TASK_QUEUE });
    const heapBefore = process.memoryUsage().heapUsed;
    console.log('  memory: creating 1,000 tasks, 100 callers at a time (the client queues beyond 8 in flight)…');
    for (let lane = 0; lane < 10; lane++) {
      await Promise.all(Array.from({ length: 100 }, (_, i) => team.createTask({ subject: `task ${lane}-${i}`, writeScopes: [`pkg/${lane}/${i}`] })));
    }
    const view = await team.view();
    const viewBytes = Buffer.byteLength(JSON.stringify(view));
    const heapAfter = process.memoryUsage().heapUsed;
    rows.push(['Team view payload with 1,000 tasks (bytes per task)', (viewBytes / view.tasks.length).toFixed(0), '', '']);
    rows.push(['Process heap growth for a 1,000-task Team (MiB, worker+client)', ((heapAfter - heapBefore) / 2 ** 20).toFixed(1), '', '']);
    await team.dispose();

    // 5. an agent turn: 2 model-call activities + 1 in-workflow Team tool, vs 2 bare activities
    const agentMs: number[] = [];
    const activitiesMs: number[] = [];
    // More rounds than the Update rows: a round takes either about 70 or about 230 ms on this server
    // (both sides alike), so the ratio is the median of each round's paired ratio, not a ratio of medians.
    for (let round = 0; round < AGENT_ROUNDS; round++) {
      let start = process.hrtime.bigint();
      await client.workflow.execute('noopActivitiesBaseline', { taskQueue: TASK_QUEUE, workflowId: `bench-acts-${Date.now()}-${round}`, args: [2] });
      activitiesMs.push(ms(start));
      start = process.hrtime.bigint();
      const agentTeam = await TeamClient.start(client, {
        teamId: `bench-agent-${Date.now()}-${round}`,
        taskQueue: TASK_QUEUE,
        agent: { prompt: scriptText(tool('list_tasks')), profile: 'team' },
      });
      await agentTeam.waitForAnswer({ timeoutMs: 60_000 });
      agentMs.push(ms(start));
      await agentTeam.dispose();
    }
    console.log(`  agent turn: ${agentMs.map((x) => x.toFixed(0)).join(', ')} ms; 2 bare activities: ${activitiesMs.map((x) => x.toFixed(0)).join(', ')} ms`);
    rows.push([
      'Agent turn with one Team tool, start to answer (median ms; ratio: median of paired rounds) vs a workflow of 2 no-op activities',
      median(agentMs).toFixed(0),
      median(activitiesMs).toFixed(0),
      median(agentMs.map((agent, round) => agent / (activitiesMs[round] ?? NaN))).toFixed(2),
    ]);
  });

  await closeWorker();
  await workerConnection.close();
  await connection.close();
  const floorRows = await benchFloor(server.address, server.metricsUrl);
  const teamBudgetRows = await benchTeamBudgetSends(server.address, server.metricsUrl);
  console.log('  footprint: building the compiled worker (npm run build)…');
  execFileSync('npm', ['run', 'build'], { cwd: path.join(__dirname, '..'), stdio: 'inherit' });
  const footprintRows = await benchFootprint(server.address);
  await server.stop();
  console.log('  file tools: descriptors vs path strings…');
  rows.push(...(await benchFileTools()));
  rows.push(...(await benchBashSandbox()));
  console.log("  a bystander's tools while a member attacks the worker…");
  rows.push(...(await benchBystander()));
  rows.push(...(await benchModelCall()));
  rows.push(...floorRows);
  rows.push(...teamBudgetRows);
  rows.push(...footprintRows);

  const header = [
    'Measure',
    'Team Lead',
    'Baseline (bare no-op Update; 5: bare activities; 6-7: path-string tools; 8: issue-20 sandbox; 9: bare fetch; 10 on: bare Temporal; ' +
      'the two Team-budget rows: the same Team without one; last: cached teammate)',
    'Ratio',
  ];
  const table = [header, ['---', '---:', '---:', '---:'], ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
  const note =
    `Measured ${new Date().toISOString().slice(0, 10)} on this repository's dev server (Temporal CLI v1.5.1, SQLite in memory), ` +
    `one worker in the same process, ${ROUNDS} rounds x ${OPS_PER_ROUND} ops, ${process.version}.`;
  const out = `${table}\n\n${note}\n`;
  fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, 'results', 'latest.md'), out);
  console.log(`\n${out}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
