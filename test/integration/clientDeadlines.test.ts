/**
 * Client deadlines on the real server: a Lead that cannot answer (no worker polls its task queue,
 * or the worker there cannot run it) makes every call end by its deadline with TeamCallTimedOut,
 * saying what to do next, and frees its in-flight slot. Timing is asserted only as generous
 * "ends within N s" bounds, to prove nothing hangs.
 */
import { Worker, NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { TeamCallTimedOut, TeamClient, updateSlotsInUse } from '../../client/teamClient';
import { createTaskUpdate } from '../../shared/contract';
import { eventually } from '../support/teams';
import { address, connectClient, startWorker, uniqueId } from '../support/temporal';

let client: Client;
let close: () => Promise<void>;
beforeAll(async () => {
  // Errors only, without the failing activations the wedged-Lead test causes on purpose.
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR', (entry) => {
        if (!/Failed to process Workflow Activation/.test(entry.message)) console.error(entry.message, entry.meta ?? '');
      }),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
  } catch {
    // installed already in this process
  }
  ({ client, close } = await connectClient());
});
afterAll(() => close());

const DEADLINE_MS = 2_000;
/** Generous: the deadline plus scheduling noise on a loaded machine; a hang would never meet it. */
const ENDS_WITHIN_MS = 15_000;

const started: string[] = [];
/** A Team whose Lead workflow sits on a task queue that no worker polls. */
async function teamWithoutWorker(): Promise<{ team: TeamClient; taskQueue: string }> {
  const taskQueue = uniqueId('no-worker');
  const team = await TeamClient.start(client, { teamId: uniqueId('wedged'), taskQueue, deadlines: { callMs: DEADLINE_MS, updateMs: DEADLINE_MS } });
  started.push(team.teamId);
  return { team, taskQueue };
}

/** The call's TeamCallTimedOut and how long the call took. */
async function timedOut(call: () => Promise<unknown>): Promise<{ error: TeamCallTimedOut; ms: number }> {
  const started = Date.now();
  try {
    await call();
  } catch (error) {
    if (error instanceof TeamCallTimedOut) return { error, ms: Date.now() - started };
    throw error;
  }
  throw new Error('expected TeamCallTimedOut, the call succeeded');
}

afterEach(async () => {
  // Leave no Lead without a worker running behind this file.
  await Promise.all(
    started.splice(0).map((id) =>
      client.workflow
        .getHandle(id)
        .terminate('clientDeadlines test cleanup')
        .catch(() => undefined),
    ),
  );
});

test('an Update to a Lead with no worker ends with TeamCallTimedOut by its deadline, saying what to do next', async () => {
  const { team, taskQueue } = await teamWithoutWorker();
  const { error, ms } = await timedOut(() => team.update(createTaskUpdate, { subject: 'never applied in time' }, 'update-1'));
  expect(ms).toBeLessThan(ENDS_WITHIN_MS);
  expect(error.type).toBe('TeamCallTimedOut');
  expect(error.nonRetryable).toBe(false);
  expect(error).toMatchObject({ teamId: team.teamId, operation: 'createTask', updateId: 'update-1' });
  expect(error.deadlineMs).toBeLessThanOrEqual(DEADLINE_MS);
  expect(error.health).toMatchObject({ status: 'RUNNING', taskQueue, pollers: 0, workflowTaskAttempt: 1 });
  expect(error.message).toContain(`No worker polls the Lead's task queue "${taskQueue}": start one on it (TEMPORAL_TASK_QUEUE=${taskQueue} npm run worker)`);
  expect(error.message).toContain(`npm run cli -- status ${team.teamId}`);
  expect(error.message).toContain('retry with the same update id (update-1)');
  expect(updateSlotsInUse(team.teamId)).toBe(0);
});

test("a query to a Lead with no worker ends with TeamCallTimedOut by its deadline; per-call deadlines override the client's", async () => {
  const { team, taskQueue } = await teamWithoutWorker();
  const view = await timedOut(() => team.view());
  expect(view.ms).toBeLessThan(ENDS_WITHIN_MS);
  expect(view.error).toMatchObject({ teamId: team.teamId, operation: 'getTeamView', updateId: undefined });
  expect(view.error.message).toContain(`TEMPORAL_TASK_QUEUE=${taskQueue}`);
  expect(view.error.message).toMatch(/Retry once that is fixed, or with a longer deadline\.$/);

  const short = await timedOut(() => team.agentState({ deadlineMs: 1_000 }));
  expect(short.error.operation).toBe('getAgentState');
  expect(short.error.deadlineMs).toBeLessThanOrEqual(1_000);
  expect(short.ms).toBeLessThan(ENDS_WITHIN_MS);
});

test('nine Updates in sequence on one Team each time out: a timed-out call frees its slot', async () => {
  const { team } = await teamWithoutWorker();
  const started = Date.now();
  for (let i = 1; i <= 9; i++) {
    const { error } = await timedOut(() => team.createTask({ subject: `sequential ${i}` }));
    expect(error.operation).toBe('createTask');
    expect(updateSlotsInUse(team.teamId)).toBe(0);
  }
  expect(Date.now() - started).toBeLessThan(9 * ENDS_WITHIN_MS);
});

test('nine Updates at once on one Team: the one waiting for a slot also ends by its deadline, and every slot is freed', async () => {
  const { team } = await teamWithoutWorker();
  const started = Date.now();
  const results = await Promise.allSettled(Array.from({ length: 9 }, (_, i) => team.createTask({ subject: `concurrent ${i}` })));
  expect(Date.now() - started).toBeLessThan(ENDS_WITHIN_MS);
  for (const result of results) {
    expect(result.status).toBe('rejected');
    expect((result as PromiseRejectedResult).reason).toBeInstanceOf(TeamCallTimedOut);
  }
  expect(updateSlotsInUse(team.teamId)).toBe(0);
});

test('blocking waits get their own timeout plus the margin, then TeamCallTimedOut', async () => {
  const { team } = await teamWithoutWorker();
  const quick = team.withDeadlines({ waitMarginMs: 1_000 });
  const edge = await timedOut(() => quick.waitForEdge(500));
  expect(edge.error.operation).toBe('waitForEdge');
  expect(edge.error.deadlineMs).toBeLessThanOrEqual(1_500);
  expect(edge.error.message).not.toMatch(/may still be applied/); // a wait changes nothing
  expect(edge.ms).toBeLessThan(ENDS_WITHIN_MS);

  // waitForAnswer's first read is a query the Lead cannot answer: it ends with that read's timeout.
  const answer = await timedOut(() => quick.waitForAnswer({ timeoutMs: 60_000 }));
  expect(answer.error.operation).toBe('getAgentState');
  expect(answer.ms).toBeLessThan(ENDS_WITHIN_MS);
  expect(updateSlotsInUse(team.teamId)).toBe(0);
});

test('once a worker polls the queue, retrying with the same update id applies the Update once', async () => {
  const { team, taskQueue } = await teamWithoutWorker();
  const { error } = await timedOut(() => team.update(createTaskUpdate, { subject: 'applied once' }, 'retry-me'));
  expect(error.updateId).toBe('retry-me');
  const worker = await startWorker(taskQueue);
  try {
    const retried = team.withDeadlines({ updateMs: 60_000, callMs: 30_000 });
    const result = await retried.update(createTaskUpdate, { subject: 'applied once' }, 'retry-me');
    expect(result.task.subject).toBe('applied once');
    const again = await retried.update(createTaskUpdate, { subject: 'applied once' }, 'retry-me');
    expect(again.task.id).toBe(result.task.id);
    expect((await retried.listTasks()).filter((t) => t.subject === 'applied once')).toHaveLength(1);
  } finally {
    await worker.stop();
  }
});

test('a Lead whose workflow tasks keep failing (a worker without the Lead workflow polls its queue) times out with the failure in the message', async () => {
  const { team, taskQueue } = await teamWithoutWorker();
  const connection = await NativeConnection.connect({ address: address() });
  // A worker deployed with the wrong workflows: it polls the queue, and every Lead workflow task fails.
  const wrong = await Worker.create({ connection, taskQueue, workflowsPath: require.resolve('../support/squatter') });
  const running = wrong.run();
  try {
    await eventually(
      () => team.health({ deadlineMs: 10_000 }),
      (health) => (health.workflowTaskAttempt ?? 0) > 1,
    );
    const { error, ms } = await timedOut(() => team.createTask({ subject: 'on a wedged Lead' }));
    expect(ms).toBeLessThan(ENDS_WITHIN_MS);
    expect(error.health?.pollers).toBeGreaterThanOrEqual(1);
    expect(error.health?.workflowTaskAttempt).toBeGreaterThan(1);
    expect(error.health?.lastWorkflowTaskFailure).toMatch(/teamLead/);
    expect(error.message).toMatch(
      /The Lead's workflow task has failed \d+ times? \(last recorded failure: .*teamLead.*\), so it answers nothing: deploy a worker that can run it/,
    );
    expect(updateSlotsInUse(team.teamId)).toBe(0);
  } finally {
    wrong.shutdown();
    await running;
    await connection.close();
  }
});
