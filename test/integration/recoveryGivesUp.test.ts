/**
 * Recovery never fails the Lead. The worker here runs the project's workflows and activities, except
 * that the body of `reconcileTeammate` always throws: the Temporal server, the workflows and the
 * activity's retries (5 attempts) are real, only the activity's work fails. A Lead that has to
 * reconcile a provisioning record then settles it `failed` with the reason and goes on serving.
 *
 * Two ways into reconciliation:
 *  - recovery proper (`recoverProvisioning`): a continued run whose carried state holds a record
 *    still `provisioning`, which no creator in that run is settling. The run is started with that
 *    carried state as its input, exactly what the first event of a continued run holds (a run
 *    cannot roll over with a spawn in flight, so the carried record is written with the Lead's own
 *    pure core here);
 *  - the creator's own reconciliation after a Temporal reset of the Lead to before a spawn settled:
 *    the replayed spawn finds the reserved id taken and asks the child.
 *
 * And, on a worker whose reconciliation works, what a genuine child that has already closed proves:
 * its creation was admitted, but a closed child takes no message and its id is never started
 * again, so the record fails with the close status; nothing is drained.
 */
import type { Client } from '@temporalio/client';
import { TeamClient } from '../../client/teamClient';
import { MAX_STATUS_TEXT_LENGTH } from '../../shared/contract/limits';
import { teammateWorkflowId } from '../../shared/team';
import { chainReport } from '../support/adversarial';
import { provisioningRunInput, resetBeforeSettled, startLeadRun } from '../support/reconciliation';
import { connectClient, startWorker, uniqueId, type RunningWorker } from '../support/temporal';
import { eventually, rejectionOf, runningWorkflowsOfTeam, teammateState } from '../support/teams';

const BROKEN = 'reconciliation store unreachable (test: the activity body always throws)';

let client: Client;
let closeClient: () => Promise<void>;
let worker: RunningWorker;
let working: RunningWorker;
let reconcileCalls = 0;

beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
  worker = await startWorker(uniqueId('tq-recovery-gives-up'), {
    extraActivities: {
      reconcileTeammate: () => {
        reconcileCalls += 1;
        return Promise.reject(new Error(BROKEN));
      },
    },
  });
  working = await startWorker(uniqueId('tq-recovery-works'));
});

afterAll(async () => {
  await working?.stop();
  await worker?.stop();
  await closeClient?.();
});

/** The activity's 5 attempts with the default backoff (1, 2, 4, 8 s) take about 15 s. */
const GIVE_UP_MS = 90_000;

async function expectServing(team: TeamClient, newName: string): Promise<void> {
  const { task } = await team.createTask({ subject: 'the board still serves' });
  expect(task).toMatchObject({ id: 1, revision: 1, status: 'pending' });
  const { member } = await team.spawnTeammate({ name: newName, message: 'start' });
  expect(member).toMatchObject({ name: newName, phase: 'active' });
  await eventually(
    () => teammateState(team, newName),
    (s) => s.consumed === 1 && s.status === 'idle',
  );
}

test('recovery that exhausts reconciliation settles the record failed and never fails the Lead', async () => {
  const teamId = uniqueId('recovery-gives-up');
  // The state a run hands on while 'pending-hand' is still provisioning: the record, no settle.
  const input = provisioningRunInput(teamId, [{ name: 'pending-hand', context: 'fresh' }]);
  expect(input.carried?.team.members['pending-hand']?.phase).toBe('provisioning');
  const callsBefore = reconcileCalls;
  const team = await startLeadRun(client, worker.taskQueue, input);

  const view = await eventually(
    () => team.view(),
    (v) => v.members[0]?.phase !== 'provisioning',
    GIVE_UP_MS,
  );
  const record = view.members.find((m) => m.name === 'pending-hand');
  expect(record?.phase).toBe('failed');
  expect(record?.failure).toMatch(/^reconciliation gave up after its retries: /);
  expect(record?.failure).toContain(BROKEN);
  expect(record!.failure!.length).toBeLessThanOrEqual(MAX_STATUS_TEXT_LENGTH);
  // The retries were real: the server ran the activity 5 times, then the Lead took the failure.
  expect(reconcileCalls - callsBefore).toBe(5);
  const history = (await team.handle().fetchHistory()).events ?? [];
  expect(history.filter((e) => e.activityTaskFailedEventAttributes)).toHaveLength(1);
  expect(history.find((e) => e.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes?.attempt).toBe(5);

  // The Lead is still running, on the run it started with, and nothing failed or was terminated.
  expect((await team.handle().describe()).status.name).toBe('RUNNING');
  const chain = await chainReport(client, teamId);
  expect(chain.runs).toHaveLength(1);
  expect(chain.failedWorkflowTasks).toBe(0);
  expect(chain.terminatedRuns).toBe(0);

  // The Team still serves: the board, and a spawn under another name. The failed name stays reserved.
  await expectServing(team, 'next-hand');
  const after = await team.view();
  expect(after.members.map((m) => [m.name, m.phase])).toEqual([
    ['pending-hand', 'failed'],
    ['next-hand', 'active'],
  ]);
  await team.dispose();
  expect(await runningWorkflowsOfTeam(client, teamId)).toEqual([]);
  const final = await chainReport(client, teamId);
  expect([final.failedWorkflowTasks, final.terminatedRuns]).toEqual([0, 0]);
});

test("a creator's reconciliation after a reset that exhausts its retries settles failed too; disposal still stops the child", async () => {
  const team = await TeamClient.start(client, { teamId: uniqueId('reset-gives-up'), taskQueue: worker.taskQueue });
  await team.spawnTeammate({ name: 'survivor', message: 'start' });
  const callsBefore = reconcileCalls;
  const oldRunId = await resetBeforeSettled(team, 'drill: reset before the provisioning settled, reconciliation broken');

  const settled = await eventually(
    () => team.view(),
    (v) => v.members[0]?.phase !== 'provisioning',
    GIVE_UP_MS,
  );
  expect(settled.members.map((m) => [m.name, m.phase])).toEqual([['survivor', 'failed']]);
  expect(settled.members[0]?.failure).toMatch(/^reconciliation gave up after its retries: /);
  expect(settled.members[0]?.failure).toContain(BROKEN);
  expect(reconcileCalls - callsBefore).toBe(5);

  // The new run is running; the only terminated run is the one the reset replaced, and the only
  // failed workflow task is the one the reset itself records.
  const { runId, status } = await team.handle().describe();
  expect(runId).not.toBe(oldRunId);
  expect(status.name).toBe('RUNNING');
  const chain = await chainReport(client, team.teamId);
  expect(chain.runs.filter((r) => r.status === 'TERMINATED').map((r) => r.runId)).toEqual([oldRunId]);
  const current = chain.runs.find((r) => r.runId === runId)!;
  expect(current.workflowTaskFailures.map((f) => f.cause)).toEqual(['WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW']);

  await expectServing(team, 'after-reset');
  // The failed record is cleanup-owned: disposal stops the child it may name, so nothing is left running.
  await team.dispose();
  expect((await client.workflow.getHandle(teammateWorkflowId(team.teamId, 'survivor')).describe()).status.name).not.toBe('RUNNING');
  expect(await runningWorkflowsOfTeam(client, team.teamId)).toEqual([]);
});

test('a genuine child that has already closed proves admission, not membership: the record fails with its close status, nothing drained', async () => {
  const team = await TeamClient.start(client, { teamId: uniqueId('closed-child'), taskQueue: working.taskQueue });
  await team.spawnTeammate({ name: 'closer', message: 'start' });
  await eventually(
    () => teammateState(team, 'closer'),
    (s) => s.consumed === 1 && s.status === 'idle',
  );
  // The genuine child (this Lead's direct child, type and descriptor matching) closes; then the
  // Lead is reset to before its spawn settled, so the replayed spawn has to reconcile it.
  const child = client.workflow.getHandle(teammateWorkflowId(team.teamId, 'closer'));
  await child.cancel();
  const closed = await eventually(
    () => child.describe(),
    (d) => d.status.name !== 'RUNNING',
  );
  const closeStatus = closed.status.name.toLowerCase();
  await resetBeforeSettled(team, 'drill: reset after the genuine child closed');

  const view = await eventually(
    () => team.view(),
    (v) => v.members[0]?.phase === 'failed',
  );
  expect(view.members[0]?.failure).toBe(
    `genuine child already ${closeStatus}: admitted once, but a closed child can take no message; spawn the teammate under another name`,
  );
  // Nothing was drained (nothing was running) and the child's close is the one it had.
  const after = await child.describe();
  expect([after.runId, after.status.name]).toEqual([closed.runId, closed.status.name]);
  expect((await team.handle().describe()).status.name).toBe('RUNNING');
  expect((await rejectionOf(team.sendMessage('closer', 'hello?'))).message).toMatch(/closer" is failed and has no inbox/);
  await expectServing(team, 'replacement');
  await team.dispose();
  expect(await runningWorkflowsOfTeam(client, team.teamId)).toEqual([]);
});
