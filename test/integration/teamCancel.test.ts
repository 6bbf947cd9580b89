/**
 * A cancel request on the Lead is an orderly disposal, on the real dev server: from the SDK
 * (`handle.cancel()`, what the Web UI's "Request Cancellation" button sends) and from the
 * `temporal workflow cancel` command, each on a Lead with a teammate mid-turn. The Lead closes
 * admission, lets admitted operations settle, stops every child, and then ends as CANCELED; no
 * workflow task fails on the way. An operator's cancel of one teammate ends that teammate, and the
 * Lead records it as stopped.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { execFileSync } from 'node:child_process';
import { TeamClient } from '../../client/teamClient';
import { scriptText, think, answer } from '../../activities/providers/scriptedModelScript';
import { teammateWorkflowId } from '../../shared/team';
import { healthProblems, teamHealth } from '../support/adversarial';
import { cli } from '../support/cli';
import { useClientAndWorker } from '../support/harness';
import { ensureTemporalCli } from '../../scripts/devServer';
import { address, uniqueId } from '../support/temporal';
import { eventually, rejectionOf, runningWorkflowsOfTeam, withBusyAndQuietMates } from '../support/teams';
import { reportMemberStatusSignal } from '../../shared/contract';

const env = useClientAndWorker();

/** Rejects after `ms`: a wedged Lead fails the test instead of hanging it. */
function withinMs<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not closed within ${ms} ms`)), ms)));
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** A Team with one teammate mid-turn (its model call thinks for a minute) and one idle. */
async function teamWithBusyMate(): Promise<TeamClient> {
  const team = await TeamClient.start(env.client, { teamId: uniqueId('team-cancel'), taskQueue: env.worker.taskQueue });
  return withBusyAndQuietMates(team, 60_000);
}

async function expectCancelledCleanly(team: TeamClient): Promise<void> {
  const error = await withinMs(
    90_000,
    team
      .handle()
      .result()
      .then(
        () => null,
        (e: unknown) => e,
      ),
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect((await team.handle().describe()).status.name).toBe('CANCELLED');
  expect(await runningWorkflowsOfTeam(env.client, team.teamId)).toEqual([]);
  const health = await teamHealth(env.client, team.teamId);
  expect(healthProblems(health)).toEqual([]);
}

/**
 * Whether the member's history shows a cancel requested for its callModel activity. The member
 * closes without waiting for the activity to acknowledge (TRY_CANCEL); the call itself ends at its
 * next heartbeat, within a second (activities/modelCall.ts).
 */
async function modelCallCancelled(workflowId: string): Promise<boolean> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const modelCalls = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').map((e) => String(e.eventId)));
  return events.some((e) => modelCalls.has(String(e.activityTaskCancelRequestedEventAttributes?.scheduledEventId)));
}

describe('cancelling a Lead is a disposal', () => {
  test('from the SDK, with a wait admitted: the wait wakes, every teammate stops, the Lead ends CANCELLED, no workflow task fails', async () => {
    const team = await teamWithBusyMate();
    const wait = team.waitForEdge(120_000);
    // Cancel only once the Lead has accepted the wait (its history records the Update accepted).
    await eventually(
      async () => (await team.handle().fetchHistory()).events ?? [],
      (events) => events.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'waitForEdge'),
    );
    await team.handle().cancel();
    await expectCancelledCleanly(team);
    // The admitted wait settled as a disposal settles it (woken by the members' stops, or as aborted), not with a cancellation.
    expect(['edge', 'rollover']).toContain((await wait).woke);
    expect(await modelCallCancelled(teammateWorkflowId(team.teamId, 'busy'))).toBe(true);
  });

  test('through `temporal workflow cancel`: the same orderly end', async () => {
    const team = await teamWithBusyMate();
    execFileSync(ensureTemporalCli(), ['workflow', 'cancel', '--address', address(), '--workflow-id', team.teamId], { stdio: 'pipe', timeout: 30_000 });
    await expectCancelledCleanly(team);
    expect(await modelCallCancelled(teammateWorkflowId(team.teamId, 'busy'))).toBe(true);
  });

  test('with the Lead agent mid-turn: its own model call is cancelled and the run ends CANCELLED', async () => {
    const team = await TeamClient.start(env.client, {
      teamId: uniqueId('team-cancel-agent'),
      taskQueue: env.worker.taskQueue,
      agent: { prompt: scriptText(think(60_000), answer('never reached')), profile: 'team' },
    });
    await eventually(
      async () => (await team.handle().fetchHistory()).events ?? [],
      (events) => events.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel'),
    );
    await team.handle().cancel();
    await expectCancelledCleanly(team);
    expect(await modelCallCancelled(team.teamId)).toBe(true);
  });

  test('while the run winds down for continue-as-new (the Lead agent mid-call): disposes at once, no next run, every teammate stops', async () => {
    const team = await TeamClient.start(env.client, {
      teamId: uniqueId('team-cancel-wind-down'),
      taskQueue: env.worker.taskQueue,
      // The Lead's model call thinks for a minute: the wind-down waits for its turn, which yields only after the call.
      agent: { prompt: scriptText(think(60_000), answer('never reached')), profile: 'team' },
    });
    await withBusyAndQuietMates(team, 60_000);
    // Cheap reads (they stay open while the run winds down) until the run decides to roll over.
    for (let batch = 0; !(await team.runInfo()).rollingOver; batch++) {
      expect(batch).toBeLessThan(200);
      await Promise.all(Array.from({ length: 16 }, () => team.listTasks()));
    }
    const { runId } = await team.handle().describe();
    const cancelledAt = Date.now();
    await team.handle().cancel();
    await expectCancelledCleanly(team);
    // Without the disposal the run would wait out the Lead's minute-long call, then leave both teammates running.
    expect(Date.now() - cancelledAt).toBeLessThan(30_000);
    // The run that was winding down is the one that ended: it never continued as new.
    expect((await team.handle().describe()).runId).toBe(runId);
    expect(await modelCallCancelled(team.teamId)).toBe(true);
    expect(await modelCallCancelled(teammateWorkflowId(team.teamId, 'busy'))).toBe(true);
  }, 180_000);

  test("TeamClient.cancel() reports what the Web UI shows: CANCELLED, with the Team's final view", async () => {
    const team = await teamWithBusyMate();
    const report = await team.cancel();
    expect(report.status).toBe('CANCELLED');
    expect(report.view.members.map((m) => [m.name, m.phase])).toEqual([
      ['busy', 'stopped'],
      ['quiet', 'stopped'],
    ]);
    await expectCancelledCleanly(team);
  });

  test('`agent-teams cancel` and `agent-teams status` report CANCELLED, as the Web UI shows it', async () => {
    const team = await teamWithBusyMate();
    const cancelled = await cli('cancel', team.teamId);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(`${team.teamId} cancelled: busy stopped, quiet stopped`);
    const status = JSON.parse((await cli('--json', 'status', team.teamId)).stdout) as { status: string };
    expect(status.status).toBe('CANCELLED');
    await expectCancelledCleanly(team);
  });
});

describe("an operator's cancel of one teammate", () => {
  test('ends that teammate; the Lead records it stopped and goes on with the others', async () => {
    const team = await teamWithBusyMate();
    const busyId = teammateWorkflowId(team.teamId, 'busy');
    await env.client.workflow.getHandle(busyId).cancel();
    const view = await eventually(
      () => team.view(),
      (v) => v.members.find((m) => m.name === 'busy')?.phase === 'stopped',
    );
    expect(view.members.find((m) => m.name === 'quiet')?.phase).toBe('active');
    expect((await env.client.workflow.getHandle(busyId).describe()).status.name).not.toBe('RUNNING');
    expect(await modelCallCancelled(busyId)).toBe(true);
    // A stopped member has no inbox; the rest of the Team still works.
    expect((await rejectionOf(team.sendMessage('busy', 'are you there?'))).type).toBe('UnknownMember');
    await expect(team.sendMessage('quiet', scriptText(answer('still here')))).resolves.toMatchObject({ to: 'quiet' });
    await team.dispose();
    await team.handle().result();
    expect(healthProblems(await teamHealth(env.client, team.teamId))).toEqual([]);
  });

  test('a forged exit report for a live teammate changes nothing: the server says it still runs', async () => {
    const team = await teamWithBusyMate();
    await team.handle().signal(reportMemberStatusSignal, { name: 'quiet', status: 'exited', turn: 1, consumed: 1, settled: 1 });
    // memberClosed waits up to 10 s for the close that never comes; the record stays active meanwhile and after.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await team.view()).members.find((m) => m.name === 'quiet')?.phase).toBe('active');
    await eventually(
      async () => (await env.client.workflow.getHandle(team.teamId).fetchHistory()).events?.some((e) => e.activityTaskCompletedEventAttributes) ?? false,
      (done) => done,
    );
    expect((await team.view()).members.find((m) => m.name === 'quiet')?.phase).toBe('active');
    await team.dispose();
    await team.handle().result();
    expect(healthProblems(await teamHealth(env.client, team.teamId))).toEqual([]);
  });
});
