/**
 * Disposal in the seed's order, on the real server: it closes admission in the activation that
 * accepts disposeTeam, aborts and awaits the admitted creation and send operations, then stops every
 * live child the roster records, and a cleanup that cannot stop a child fails disposal.
 *
 * The worker runs the project's workflows and activities, except that `stopTeammate` goes through a
 * test wrapper around the project's own body: for a chosen Team it first sleeps (so a disposal is
 * still in progress when the calls that race it arrive), and for a chosen child it throws for its
 * first attempts (every attempt of one activity: 5, about 15 s of the server's retries) before it
 * calls the real body. The server, the workflows and the retries are real.
 */
import type { Client } from '@temporalio/client';
import { WorkflowUpdateStage } from '@temporalio/client';
import { createActivities } from '../../activities';
import { TeamClient } from '../../client/teamClient';
import { teammateWorkflowId } from '../../shared/team';
import { DISPOSE_CLOSES_ADMISSION_FIRST_PATCH } from '../../shared/contract/patches';
import { healthProblems, rawUpdate, sleep, teamHealth, type UpdateOutcome } from '../support/adversarial';
import { recordedPatchIds } from '../support/patches';
import { connectClient, startWorker, uniqueId, type RunningWorker } from '../support/temporal';
import { eventually, rejectionOf, runningWorkflowsOfTeam } from '../support/teams';
import type { TeamView } from '../../shared/contract/team';

const STUCK = 'child will not stop (test: the activity body throws)';
/** Every attempt of one stopTeammate activity (the Lead's control activities retry 5 times). */
const ATTEMPTS_PER_ACTIVITY = 5;
const SLOW_STOP_MS = 3_000;

let client: Client;
let closeClient: () => Promise<void>;
let worker: RunningWorker;
/** Teams whose children's stops first sleep SLOW_STOP_MS. */
const slowTeams = new Set<string>();
/** Child workflow ids whose stop throws this many more times. */
const failingStops = new Map<string, number>();
const stopAttempts = new Map<string, number>();

beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
  const real = createActivities({ client });
  worker = await startWorker(uniqueId('tq-disposal'), {
    extraActivities: {
      stopTeammate: async (input: { workflowId: string }): Promise<void> => {
        stopAttempts.set(input.workflowId, (stopAttempts.get(input.workflowId) ?? 0) + 1);
        const failuresLeft = failingStops.get(input.workflowId) ?? 0;
        if (failuresLeft > 0) {
          failingStops.set(input.workflowId, failuresLeft - 1);
          throw new Error(STUCK);
        }
        if ([...slowTeams].some((teamId) => input.workflowId.startsWith(`${teamId}/`))) await sleep(SLOW_STOP_MS);
        await real.stopTeammate(input);
      },
    },
  });
});

afterAll(async () => {
  await worker?.stop();
  await closeClient?.();
});

const startTeam = (maxMembers = 10): Promise<TeamClient> =>
  TeamClient.start(client, { teamId: uniqueId('team-dispose'), taskQueue: worker.taskQueue, maxMembers });

/** The update names the Lead accepted, in history order. */
async function acceptedUpdates(teamId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(teamId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const name = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
    return name ? [name] : [];
  });
}

/** Accepted, or refused with TeamAdmissionClosed; anything else (another failure, a hang) is reported. */
function acceptedOrAdmissionClosed(outcome: UpdateOutcome): string {
  if (outcome.kind === 'ok') return 'accepted';
  if (outcome.kind === 'rejected' && outcome.type === 'TeamAdmissionClosed') return 'refused';
  return JSON.stringify(outcome);
}

test('disposal closes admission in the activation that accepts it: concurrent spawns and sends get TeamAdmissionClosed', async () => {
  const team = await startTeam();
  slowTeams.add(team.teamId);
  await team.spawnTeammate({ name: 'target', message: 'stay around' });
  const spawn = (name: string) => rawUpdate(client, team.teamId, 'spawnTeammate', [{ caller: 'lead', name, message: `hello ${name}` }], { timeoutMs: 90_000 });
  const send = (i: number) =>
    rawUpdate(client, team.teamId, 'sendMessage', [{ caller: 'lead', to: 'target', content: `message ${i}`, messageId: `m-${i}` }], { timeoutMs: 90_000 });

  // A wait in progress when disposal begins: it is aborted with a typed result, long before its timeout.
  const lead = client.workflow.getHandle(team.teamId);
  const waitUpdate = await lead.startUpdate<unknown, [unknown]>('waitForEdge', {
    args: [{ caller: 'lead', timeoutMs: 600_000, kinds: ['task'] }],
    waitForStage: WorkflowUpdateStage.ACCEPTED,
  });
  const settledOrder: string[] = [];
  const waiting = waitUpdate.result().then((result) => {
    settledOrder.push('wait');
    return result;
  });

  // Wave 1 races disposeTeam itself; wave 2 arrives once disposal was accepted (and is still stopping children).
  const wave1 = [spawn('early-0'), spawn('early-1'), spawn('early-2'), send(0), send(1)];
  const disposal = await lead.startUpdate<TeamView, [unknown]>('disposeTeam', {
    args: [{ caller: 'lead' }],
    waitForStage: WorkflowUpdateStage.ACCEPTED,
  });
  const disposed = disposal.result().then((view) => {
    settledOrder.push('dispose');
    return view;
  });
  const wave1Outcomes = await Promise.all(wave1);
  const wave2Outcomes = await Promise.all([spawn('late-0'), spawn('late-1'), spawn('late-2'), send(10), send(11), send(12)]);

  const classified1 = wave1Outcomes.map(acceptedOrAdmissionClosed);
  for (const c of classified1) expect(['accepted', 'refused']).toContain(c);
  // Sent after disposeTeam was accepted: every one refused, none hanging.
  expect(wave2Outcomes.map(acceptedOrAdmissionClosed)).toEqual(Array(6).fill('refused'));

  expect(await waiting).toEqual({ woke: 'rollover' });
  const finalView = await disposed;
  expect(settledOrder).toEqual(['wait', 'dispose']);

  // Accepted spawns settled and were stopped like every other recorded child; refused ones left no record.
  const acceptedSpawns = ['early-0', 'early-1', 'early-2'].filter((_, i) => classified1[i] === 'accepted');
  expect(finalView.admission).toBe('closed');
  // Concurrent spawns join the roster in the order the Lead accepted them, which need not be the order they were sent.
  const byName = (a: string[], b: string[]): number => a[0]!.localeCompare(b[0]!);
  expect(finalView.members.map((m) => [m.name, m.phase]).sort(byName)).toEqual(['target', ...acceptedSpawns].map((name) => [name, 'stopped']).sort(byName));
  for (const name of ['target', ...acceptedSpawns]) {
    expect((await client.workflow.getHandle(teammateWorkflowId(team.teamId, name)).describe()).status.name).not.toBe('RUNNING');
  }
  await eventually(
    () => runningWorkflowsOfTeam(client, team.teamId),
    (ids) => ids.length === 0,
  );

  // In the Lead's history no spawn or send is accepted after disposeTeam is, and the run took the new order.
  const accepted = await acceptedUpdates(team.teamId);
  const disposeAt = accepted.indexOf('disposeTeam');
  expect(disposeAt).toBeGreaterThan(0);
  expect(accepted.slice(disposeAt + 1).filter((name) => name === 'spawnTeammate' || name === 'sendMessage')).toEqual([]);
  expect(accepted.filter((name) => name === 'spawnTeammate' || name === 'sendMessage')).toHaveLength(1 + classified1.filter((c) => c === 'accepted').length);
  expect(recordedPatchIds((await client.workflow.getHandle(team.teamId).fetchHistory()).events ?? [])).toContain(DISPOSE_CLOSES_ADMISSION_FIRST_PATCH);

  const health = await teamHealth(client, team.teamId);
  expect(healthProblems(health)).toEqual([]);
  expect(health.failedWorkflowTasks).toBe(0);
  expect(health.terminatedRuns).toBe(0);
  slowTeams.delete(team.teamId);
});

test('a disposal that cannot stop a child fails with DisposalFailed, admission stays closed, and a retry completes it', async () => {
  const team = await startTeam();
  await team.spawnTeammate({ name: 'stuck', message: 'hello' });
  await team.spawnTeammate({ name: 'fine', message: 'hello' });
  const stuckId = teammateWorkflowId(team.teamId, 'stuck');
  failingStops.set(stuckId, ATTEMPTS_PER_ACTIVITY);

  const failure = await rejectionOf(team.dispose());
  expect(failure.type).toBe('DisposalFailed');
  expect(failure.message).toContain(`stuck: ${STUCK}`);
  expect(failure.message).toMatch(/admission stays closed, retry disposeTeam/);
  expect(stopAttempts.get(stuckId)).toBe(ATTEMPTS_PER_ACTIVITY);

  // The Lead goes on: admission stays closed, the child it could stop is stopped, the other still runs.
  const between = await team.view();
  expect(between.admission).toBe('closed');
  expect(between.members.map((m) => [m.name, m.phase])).toEqual([
    ['stuck', 'active'],
    ['fine', 'stopped'],
  ]);
  expect((await client.workflow.getHandle(stuckId).describe()).status.name).toBe('RUNNING');
  expect((await team.handle().describe()).status.name).toBe('RUNNING');
  expect((await rejectionOf(team.spawnTeammate({ name: 'newcomer', message: 'x' }))).type).toBe('TeamAdmissionClosed');
  expect((await rejectionOf(team.sendMessage('stuck', 'still there?'))).type).toBe('TeamAdmissionClosed');

  // The retry stops what is left and completes the Lead.
  const finalView = await team.dispose();
  expect(finalView.admission).toBe('closed');
  expect(finalView.members.map((m) => [m.name, m.phase])).toEqual([
    ['stuck', 'stopped'],
    ['fine', 'stopped'],
  ]);
  expect(stopAttempts.get(stuckId)).toBe(ATTEMPTS_PER_ACTIVITY + 1);
  expect((await client.workflow.getHandle(stuckId).describe()).status.name).not.toBe('RUNNING');
  await team.handle().result();
  await eventually(
    () => runningWorkflowsOfTeam(client, team.teamId),
    (ids) => ids.length === 0,
  );
  const accepted = await acceptedUpdates(team.teamId);
  expect(accepted.filter((name) => name === 'disposeTeam')).toHaveLength(2);

  const health = await teamHealth(client, team.teamId);
  expect(healthProblems(health)).toEqual([]);
  expect(health.failedWorkflowTasks).toBe(0);
  expect(health.terminatedRuns).toBe(0);
});

test("during a disposal in progress, members' sends (to the Lead and to each other) get TeamAdmissionClosed and nothing is delivered", async () => {
  const team = await startTeam();
  slowTeams.add(team.teamId);
  await team.spawnTeammate({ name: 'first', message: 'stay around' });
  await team.spawnTeammate({ name: 'second', message: 'stay around' });
  const lead = client.workflow.getHandle(team.teamId);
  const disposal = await lead.startUpdate<TeamView, [unknown]>('disposeTeam', {
    args: [{ caller: 'lead' }],
    waitForStage: WorkflowUpdateStage.ACCEPTED,
  });
  // Stopping each child sleeps SLOW_STOP_MS first: the disposal is still in progress while these arrive.
  const outcomes = await Promise.all([
    rawUpdate(client, team.teamId, 'sendMessage', [{ caller: 'first', to: 'lead', content: 'late news', messageId: 'late-to-lead' }]),
    rawUpdate(client, team.teamId, 'sendMessage', [{ caller: 'first', to: 'second', content: 'late news', messageId: 'late-to-mate' }]),
    rawUpdate(client, team.teamId, 'sendMessage', [{ caller: 'second', to: 'first', content: 'late news', messageId: 'late-back' }]),
    rawUpdate(client, team.teamId, 'spawnTeammate', [{ caller: 'lead', name: 'latecomer', message: 'x' }]),
  ]);
  expect(outcomes.map(acceptedOrAdmissionClosed)).toEqual(Array(4).fill('refused'));
  expect((await disposal.result()).members.map((m) => [m.name, m.phase])).toEqual([
    ['first', 'stopped'],
    ['second', 'stopped'],
  ]);
  // No refused message reached anyone: the Lead's inbox and the teammates' received counts are as before.
  const accepted = await acceptedUpdates(team.teamId);
  expect(accepted.filter((name) => name === 'sendMessage')).toEqual([]);
  for (const name of ['first', 'second']) {
    const events = (await client.workflow.getHandle(teammateWorkflowId(team.teamId, name)).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'deliverMessage')).toEqual([]);
  }
  slowTeams.delete(team.teamId);
});
