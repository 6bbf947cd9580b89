/**
 * A teammate's status reports reach its Lead through an activity on the real server: the worker
 * signals the Lead, so no report is a signal command of the member's, a task that holds the
 * member's lock while it takes the Lead's (workflows/common/agentActivities.ts `leadSignals`). The
 * Lead sees the same `reportMemberStatus` signal as before, and a closed or absent Lead is no error.
 */
import { createActivities } from '../../activities';
import { teammateWorkflowId } from '../../shared/team';
import { STATUS_REPORT_ACTIVITY_PATCH } from '../../shared/contract/patches';
import { useClientAndWorker } from '../support/harness';
import { recordedPatchIds } from '../support/patches';
import { uniqueId } from '../support/temporal';
import { eventually, newTeam } from '../support/teams';

const env = useClientAndWorker();

test("a teammate's running and idle reach the Lead as reportMemberStatus signals, sent by activities of the teammate", async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  await team.spawnTeammate({ name: 'reporter', message: 'hello' });
  const leadReports = async () =>
    ((await team.handle().fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'reportMemberStatus');
  // Running as its first turn begins, idle as it ends: both on the Lead's history, and the Lead's live status idle.
  await eventually(leadReports, (reports) => reports.length >= 2);
  await eventually(
    () => team.liveStatus(),
    (live) => live.reporter === 'idle',
  );

  const mateEvents = (await env.client.workflow.getHandle(teammateWorkflowId(team.teamId, 'reporter')).fetchHistory()).events ?? [];
  const reports = mateEvents.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'reportMemberStatus');
  expect(reports.length).toBeGreaterThanOrEqual(2);
  // Each on the teammate's own queue (the worker that runs it), never the checkout's.
  expect(new Set(reports.map((e) => e.activityTaskScheduledEventAttributes?.taskQueue?.name))).toEqual(new Set([env.worker.taskQueue]));
  expect(recordedPatchIds(mateEvents)).toContain(STATUS_REPORT_ACTIVITY_PATCH);
  // The teammate signals its Lead from the workflow no more.
  expect(mateEvents.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'reportMemberStatus')).toEqual([]);
  await team.dispose();
});

test('a report to a Lead that has closed, or never was, is no error: there is nobody left to tell', async () => {
  const { reportMemberStatus } = createActivities({ client: env.client });
  const report = { name: 'reporter', status: 'idle' as const, turn: 1, consumed: 1, settled: 1 };
  await expect(reportMemberStatus({ teamId: uniqueId('no-such-team'), report })).resolves.toBeUndefined();

  const team = await newTeam(env.client, env.worker.taskQueue);
  await team.dispose();
  await team.handle().result();
  await expect(reportMemberStatus({ teamId: team.teamId, report })).resolves.toBeUndefined();
});
