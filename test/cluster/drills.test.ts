/**
 * Drills on the multi-service cluster (`npm run test:cluster` only): one agent Team on the scripted
 * model (the demo: a Lead plans two tasks, spawns parser-dev, then a forked test-writer, and
 * answers) runs on two worker processes polling one task queue. First undisturbed, then under each
 * drill, trial after trial: the history service SIGKILLed and restarted, the worker process running
 * a teammate's model call SIGKILLed (the other carries on), PostgreSQL stopped and started. Every
 * trial must end with exactly the undisturbed run's answer, board, roster, inboxes and files.
 * Each drill prints "drill <name>: <passed>/<run> trials passed" and writes it to
 * test-artifacts/cluster/drills.txt.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';
import { TeamClient } from '../../client/teamClient';
import { teammateWorkflowId } from '../../shared/team';
import { demoAgentPrompt } from '../../scripts/demoScenario';
import { killService, readClusterState, restartPostgres, restartService } from '../../scripts/cluster';
import { startWorkerProcesses, type TestWorkers } from '../support/harness';
import { teamOutcome, type TeamOutcome } from '../support/teamOutcome';
import { eventually, runningWorkflowsOfTeam } from '../support/teams';
import { connectClient, uniqueId } from '../support/temporal';
import { spawnWorkerProcess, type WorkerProcess } from '../support/workerProcess';

const TRIALS = Number(process.env.AGENT_TEAMS_DRILL_TRIALS ?? 3);
const FILES = ['src/parser.ts', 'test/parser.test.ts'];
const ARTIFACT = path.join(__dirname, '..', '..', 'test-artifacts', 'cluster', 'drills.txt');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let client: Client;
let closeClient: () => Promise<void>;
let workers: TestWorkers & { processes: WorkerProcess[] };
let undisturbed: TeamOutcome | undefined;

beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
  workers = await startWorkerProcesses(2);
  fs.mkdirSync(path.dirname(ARTIFACT), { recursive: true });
  fs.writeFileSync(ARTIFACT, ''); // this run's results only
});
afterAll(async () => {
  await Promise.all(workers.processes.map((p) => p.stop()));
  await closeClient();
});

/** The moment of every drill: parser-dev has claimed its task and a worker is in its long model call. Returns that worker's identity. */
async function inTeammateTurn(team: TeamClient): Promise<string> {
  await eventually(
    () => team.view(),
    (v) => v.tasks.some((t) => t.id === 1 && t.owner === 'parser-dev'),
    120_000,
  );
  const pending = await eventually(
    async () => (await client.workflow.getHandle(teammateWorkflowId(team.teamId, 'parser-dev')).describe()).raw.pendingActivities ?? [],
    (list) => list.some((a) => a.activityType?.name === 'callModel' && Number(a.state) === 2 /* STARTED */),
    120_000,
  );
  return pending.find((a) => a.activityType?.name === 'callModel')?.lastWorkerIdentity ?? '';
}

interface Drill {
  /** Applied during parser-dev's model call, given the identity of the worker running it. */
  disturb(workerIdentity: string): Promise<void>;
  /** Checks that the disturbance happened as intended, once the Team answered. */
  check?(team: TeamClient): Promise<void>;
  /** Restores the file's workers for the next trial. */
  afterTrial?(): Promise<void>;
}

/** One run of the demo Team on the file's workers, disturbed during parser-dev's turn; its outcome once it answered and was disposed. */
async function runTeam(disturbance?: Drill): Promise<TeamOutcome> {
  // Each run writes the same files: start from an empty checkout so runs compare.
  for (const file of FILES) fs.rmSync(path.join(workers.checkoutRoot, file), { force: true });
  const team = await TeamClient.start(client, {
    teamId: uniqueId('cluster-drill'),
    taskQueue: workers.taskQueue,
    agent: { prompt: demoAgentPrompt({ parserThinkMs: 3_000 }), profile: 'team' },
  });
  if (disturbance) await disturbance.disturb(await inTeammateTurn(team));
  await team.waitForAnswer({ timeoutMs: 300_000 });
  await disturbance?.check?.(team);
  const outcome = await teamOutcome(team, workers.checkoutRoot, FILES);
  await team.dispose();
  expect(await runningWorkflowsOfTeam(client, team.teamId)).toEqual([]);
  return outcome;
}

/** Runs TRIALS disturbed runs, each compared with the undisturbed outcome; reports "passed/run" and fails if any trial failed. */
async function drill(name: string, disturbance: Drill): Promise<void> {
  expect(undisturbed).toBeDefined();
  const failures: string[] = [];
  for (let trial = 1; trial <= TRIALS; trial++) {
    try {
      expect(await runTeam(disturbance)).toEqual(undisturbed);
    } catch (error) {
      failures.push(`trial ${trial}: ${error instanceof Error ? error.message : String(error)}`);
    }
    await disturbance.afterTrial?.();
  }
  const line = `drill ${name}: ${TRIALS - failures.length}/${TRIALS} trials passed`;
  console.log(line);
  fs.appendFileSync(ARTIFACT, `${new Date().toISOString()} ${line}\n`);
  expect(failures).toEqual([]);
}

/** The identities of the workers polling the file's task queue for workflow tasks (1) or activity tasks (2). */
async function pollers(taskQueueType: 1 | 2): Promise<string[]> {
  const response = await client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: workers.taskQueue, kind: 1 }, taskQueueType });
  return (response.pollers ?? []).map((p) => p.identity ?? '').sort();
}

test('an agent Team on the scripted model runs end to end on the cluster with two worker processes: the Lead plans, teammates work, it answers', async () => {
  const identities = workers.processes.map((p) => `${p.child.pid}@`);
  const pollsBoth = (polling: string[]): boolean => identities.every((id) => polling.some((identity) => identity.startsWith(id)));
  undisturbed = await runTeam();
  // Both worker processes poll the queue for workflow and activity tasks.
  expect(pollsBoth(await pollers(1))).toBe(true);
  expect(pollsBoth(await pollers(2))).toBe(true);
  expect(undisturbed.answer).toMatch(/Parser and tests are written/);
  expect(undisturbed.leadTurns).toBe(3);
  expect(undisturbed.board).toEqual([
    [1, 'completed', 'parser-dev', 3],
    [2, 'completed', 'test-writer', 3],
  ]);
  expect(undisturbed.members).toEqual([
    ['parser-dev', 'active', 'fresh'],
    ['test-writer', 'active', 'fork'],
  ]);
  expect(undisturbed.inboxes['parser-dev']).toMatchObject({
    pending: 0,
    exactlyOnce: true,
    tools: ['claim_task:true', 'write_file:true', 'set_task_status:true', 'send_message:true'],
  });
  expect(undisturbed.files['src/parser.ts']).toContain('export const parse');
});

test('SIGKILL the history service mid-run and restart it: the Team ends exactly as an undisturbed run', async () => {
  await drill('history-sigkill', {
    async disturb() {
      const before = readClusterState().pids.history;
      await killService('history');
      await sleep(3_000);
      expect(restartService('history')).not.toBe(before);
    },
  });
});

test("SIGKILL the worker process running a teammate's turn: the other worker carries on and the Team ends exactly as an undisturbed run", async () => {
  let victimIdentity = '';
  await drill('worker-sigkill', {
    async disturb(identity) {
      const victim = workers.processes.find((p) => identity.startsWith(`${p.child.pid}@`));
      if (!victim) throw new Error(`no worker process of this file ran the model call (identity ${identity})`);
      victimIdentity = identity;
      await victim.kill();
      workers.processes = workers.processes.filter((p) => p !== victim);
    },
    async check(team) {
      // The model call was retried after its heartbeat timeout, and the surviving worker completed it.
      const history = (await client.workflow.getHandle(teammateWorkflowId(team.teamId, 'parser-dev')).fetchHistory()).events ?? [];
      const retried = history.flatMap((e) => e.activityTaskStartedEventAttributes ?? []).filter((a) => (a.attempt ?? 1) > 1);
      expect(retried.length).toBeGreaterThan(0);
      expect(retried.every((a) => a.identity !== victimIdentity)).toBe(true);
    },
    // The survivor finishes the run alone; a replacement joins after it, so the next trial again has two.
    async afterTrial() {
      while (workers.processes.length < 2) workers.processes.push(await spawnWorkerProcess(workers.taskQueue, { checkoutRoot: workers.checkoutRoot }));
    },
  });
});

test('restart PostgreSQL mid-run: the Team ends exactly as an undisturbed run', async () => {
  await drill('postgres-restart', { disturb: () => restartPostgres(3_000) });
});
