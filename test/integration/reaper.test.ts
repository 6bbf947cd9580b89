/**
 * The orphan reaper on the real dev server (issue 22): the worker ensures the queue's reaper
 * Schedule with a short interval (2 s here; 60 s by default), and its passes stop the teammates
 * of a terminated Lead (the one mid-turn has its model call cancelled) and of a Lead reset to
 * before their spawn, keep the ones a reset Lead still owns, terminate an orphan that ignores its
 * cancel, and leave an idle teammate of a live Team alone: no workflow task (its history length is
 * unchanged) and no request of the reaper naming it at all. A reset Lead agent (and a Lead agent on
 * a Team id started again) whose subagent id is taken stops that child itself and takes the next id.
 *
 * The reaper activity runs the project's own body over a client whose workflow service records
 * every request it sends on to the server (nothing is answered by the test), so the test can say
 * which workflows the reaper described, queried, cancelled or terminated. Deadlines are generous
 * (60 s for what takes a few intervals); nothing here measures time.
 */
import { Client, Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import Long from 'long';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createReaperActivities } from '../../activities/reaper';
import { answer, scriptText, think, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import { REAPER_WORKFLOW_TYPE, TEAMMATE_WORKFLOW_TYPE, TEAM_LEAD_WORKFLOW_TYPE, getAgentStateQuery } from '../../shared/contract';
import { SUBAGENT_ID_TAKEN_PATCH } from '../../shared/contract/patches';
import { recordedPatchIds } from '../support/patches';
import type { ReapReport } from '../../shared/reaper/orphans';
import { visibilityString } from '../../shared/reaper/orphans';
import { AGENT_TEAM_ID, AGENT_TEAM_MEMBER, AGENT_TEAM_ROLE } from '../../shared/contract/searchAttributes';
import { teammateWorkflowId } from '../../shared/team';
import { ensureReaperSchedule, reaperScheduleId } from '../../worker/reaper';
import { sleep, teamHealth, terminateRunning, type TeamHealth } from '../support/adversarial';
import { address, connectClient, historyLength, startWorker, uniqueId, type RunningWorker } from '../support/temporal';
import { eventually, spawnUntil, teammateState, toolResult, withBusyAndQuietMates } from '../support/teams';
import { handOverSignal, plantedQuery, type PlantedChild } from '../support/childPlanter';
import { spawnWorkerProcess } from '../support/workerProcess';

const INTERVAL_MS = 2_000;
/** temporal.api.enums.v1.ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_UPDATE */
const EXCLUDE_UPDATES = 2;
/** The WorkflowTaskFailed event a reset writes at its reset point (cause RESET_WORKFLOW): the server's, not a workflow failure. */
const RESET_CAUSE = 'WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW';

let client: Client;
let closeClient: () => Promise<void>;
let spyConnection: Connection;
let worker: RunningWorker;
/** Every request the reaper activity sent: the workflow service method and the workflow it named. */
const reaperCalls: { method: string; workflowId: string | null }[] = [];

beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
  spyConnection = await Connection.connect({ address: address() });
  const service = spyConnection.workflowService;
  const recording = new Proxy(service, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (request: { execution?: { workflowId?: string }; workflowExecution?: { workflowId?: string } } | undefined) => {
        reaperCalls.push({ method: String(property), workflowId: request?.execution?.workflowId ?? request?.workflowExecution?.workflowId ?? null });
        return (value as (r: unknown) => unknown).call(target, request);
      };
    },
  });
  Object.defineProperty(spyConnection, 'workflowService', { value: recording });
  const reaper = createReaperActivities({ client: new Client({ connection: spyConnection }) });
  worker = await startWorker(uniqueId('tq-reaper'), { reaper: { intervalMs: INTERVAL_MS }, extraActivities: { reapOrphans: reaper.reapOrphans } });
});

afterAll(async () => {
  await client?.schedule
    .getHandle(reaperScheduleId(worker.taskQueue))
    .delete()
    .catch(() => undefined);
  await worker?.stop();
  await spyConnection?.close();
  await closeClient?.();
});

const startTeam = (): Promise<TeamClient> => TeamClient.start(client, { teamId: uniqueId('team-reaper'), taskQueue: worker.taskQueue });

const status = async (workflowId: string): Promise<string> => (await client.workflow.getHandle(workflowId).describe()).status.name;

/** Plants `child` as the direct child of a test workflow at `teamId` (on the worker's queue), which then completes: a Team whose Lead is gone. */
async function plantAndLeave(teamId: string, child: PlantedChild): Promise<void> {
  const planter = await client.workflow.start('childPlanter', { workflowId: teamId, taskQueue: worker.taskQueue, args: [{ children: [child] }] });
  await eventually(
    () => planter.query(plantedQuery),
    (planted) => planted === 1,
  );
  await planter.signal(handOverSignal);
  await planter.result();
}

async function listAll(query: string): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  for await (const execution of client.workflow.list({ query })) found.push(execution);
  return found;
}

const reaperRunsQuery = (): string => `WorkflowType = "${REAPER_WORKFLOW_TYPE}" AND TaskQueue = ${visibilityString(worker.taskQueue)}`;

/** The reports of the reaper passes that completed and started after `since`. */
async function passesSince(since: Date): Promise<ReapReport[]> {
  const runs = await listAll(`${reaperRunsQuery()} AND ExecutionStatus = "Completed" AND StartTime > "${since.toISOString()}"`);
  return Promise.all(runs.map((run) => client.workflow.getHandle<() => Promise<ReapReport>>(run.workflowId, run.runId).result()));
}

/** Waits until `count` passes have completed that started after `since`, and returns their reports. */
const awaitPasses = (since: Date, count: number): Promise<ReapReport[]> =>
  eventually(
    () => passesSince(since),
    (reports) => reports.length >= count,
  );

/** Waits until a workflow's history has not grown for `quietMs` (its last turn and status reports are in), and returns its length. */
async function settledLength(workflowId: string, quietMs = 1_500): Promise<number> {
  let last = await historyLength(client, workflowId);
  for (;;) {
    await sleep(quietMs);
    const now = await historyLength(client, workflowId);
    if (now === last) return now;
    last = now;
  }
}

/** The non-benign failed workflow tasks, leaving out the one a reset itself writes at its reset point. */
function failedTasks(health: TeamHealth): string[] {
  return health.chains.flatMap((chain) =>
    chain.runs.flatMap((run) => run.workflowTaskFailures.filter((f) => f.cause !== RESET_CAUSE).map((f) => `${chain.workflowId}: ${f.cause} ${f.message}`)),
  );
}

/** The activity types whose cancellation the workflow requested. */
async function cancelRequestedActivities(workflowId: string): Promise<string[]> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = new Map(
    events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [[String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? '']] : [],
    ),
  );
  return events.flatMap((e) =>
    e.activityTaskCancelRequestedEventAttributes ? [scheduled.get(String(e.activityTaskCancelRequestedEventAttributes.scheduledEventId)) ?? '?'] : [],
  );
}

/** Whether the workflow exists and has a model call started (a subagent in its turn). */
async function modelCallStarted(workflowId: string): Promise<boolean> {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    return (description.raw.pendingActivities ?? []).some((a) => a.activityType?.name === 'callModel' && a.attempt === 1 && a.lastStartedTime);
  } catch {
    return false;
  }
}

/** A Team that spawned alpha, settled (the reset point: the last completed workflow task), then spawned beta. */
async function spawnsAroundAResetPoint(): Promise<{ team: TeamClient; resetPoint: number }> {
  const team = await startTeam();
  await spawnUntil(team, 'alpha', scriptText(answer('alpha here')), 'idle');
  await settledLength(team.teamId);
  const resetPoint = await lastCompletedTask(team.teamId);
  await spawnUntil(team, 'beta', scriptText(answer('beta here')), 'idle');
  return { team, resetPoint };
}

/** The last WorkflowTaskCompleted event of the Lead's current run: a reset point. */
async function lastCompletedTask(teamId: string): Promise<number> {
  const events = (await client.workflow.getHandle(teamId).fetchHistory()).events ?? [];
  const completed = events.filter((e) => e.workflowTaskCompletedEventAttributes);
  return Number(completed[completed.length - 1]!.eventId);
}

describe('the orphan reaper', () => {
  test('the Schedule: interval, overlap SKIP, the reaper on its queue; ensuring it again is idempotent, a concurrent create is tolerated', async () => {
    const description = await client.schedule.getHandle(reaperScheduleId(worker.taskQueue)).describe();
    expect(description.spec.intervals).toEqual([expect.objectContaining({ every: INTERVAL_MS })]);
    expect(description.policies.overlap).toBe('SKIP');
    expect(description.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: REAPER_WORKFLOW_TYPE,
      taskQueue: worker.taskQueue,
      args: [{ taskQueue: worker.taskQueue }],
    });
    expect(await ensureReaperSchedule(client, { taskQueue: worker.taskQueue, intervalMs: INTERVAL_MS })).toBe('unchanged');

    // Another queue, nobody polling it: two workers racing to create, then one with another interval.
    const queue = uniqueId('tq-reaper-race');
    try {
      const outcomes = await Promise.all([1, 2, 3].map(() => ensureReaperSchedule(client, { taskQueue: queue, intervalMs: 60_000 })));
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'created').every((o) => o === 'unchanged')).toBe(true);
      expect(await ensureReaperSchedule(client, { taskQueue: queue, intervalMs: 300_000 })).toBe('updated');
      expect((await client.schedule.getHandle(reaperScheduleId(queue)).describe()).spec.intervals).toEqual([expect.objectContaining({ every: 300_000 })]);
    } finally {
      await client.schedule.getHandle(reaperScheduleId(queue)).delete();
    }
  });

  test('a pass over a queue whose name has quotes and a backslash stops its orphan, and nothing on a queue with the same plain prefix', async () => {
    // SQL visibility cannot match such a name exactly (shared/reaper/orphans.ts): the pass lists by the plain
    // prefix and keeps only this queue's executions. Nobody polls either queue: they are visibility
    // records, and a member on a queue nobody polls takes no cancel, so a second pass terminates it.
    const prefix = `${uniqueId('tq-odd')} `;
    const queue = `${prefix}"quoted" \\queue`;
    // Each a child of a workflow at its Team's id that has completed: the reaper stops only a Lead's own child.
    const start = async (taskQueue: string, name: string) => {
      const teamId = uniqueId('team-gone');
      const workflowId = teammateWorkflowId(teamId, name);
      await plantAndLeave(teamId, {
        workflowType: TEAMMATE_WORKFLOW_TYPE,
        workflowId,
        args: [],
        taskQueue,
        typedSearchAttributes: [
          { key: AGENT_TEAM_ID, value: teamId },
          { key: AGENT_TEAM_ROLE, value: 'teammate' },
        ],
      });
      return client.workflow.getHandle(workflowId);
    };
    const odd = await start(queue, 'odd');
    const neighbour = await start(`${prefix}other`, 'neighbour');
    try {
      const reaper = createReaperActivities({ client });
      const pass = (): Promise<ReapReport> =>
        new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') }).run(reaper.reapOrphans, { taskQueue: queue });
      const first = await eventually(pass, (report) => report.cancelled.length > 0);
      expect(first).toMatchObject({ taskQueue: queue, teamsExamined: 1, cancelled: [odd.workflowId], terminated: [] });
      expect((await odd.describe()).raw.workflowExtendedInfo?.cancelRequested).toBe(true);
      expect(await pass()).toMatchObject({ cancelled: [], terminated: [odd.workflowId] });
      expect((await neighbour.describe()).status.name).toBe('RUNNING');
      expect((await neighbour.describe()).raw.workflowExtendedInfo?.cancelRequested).toBe(false);
    } finally {
      await terminateRunning(client, [odd.workflowId, neighbour.workflowId], 'test: done');
    }
  });

  test('a terminated Lead: both teammates stop, the one mid-turn with its model call cancelled', async () => {
    const team = await withBusyAndQuietMates(await startTeam(), 30_000);
    const busy = teammateWorkflowId(team.teamId, 'busy');
    const quiet = teammateWorkflowId(team.teamId, 'quiet');
    const terminatedAt = new Date();
    await team.handle().terminate('test: the Lead dies');

    await eventually(
      async () => [await status(busy), await status(quiet)],
      (statuses) => statuses.every((s) => s !== 'RUNNING'),
    );
    // Cancelled, not terminated: each session ended itself, and the turn cancelled its model call.
    expect([await status(busy), await status(quiet)]).toEqual(['COMPLETED', 'COMPLETED']);
    expect(await cancelRequestedActivities(busy)).toEqual(['callModel']);
    const reports = await passesSince(new Date(terminatedAt.getTime() - INTERVAL_MS * 2));
    expect(reports.flatMap((r) => r.cancelled)).toEqual(expect.arrayContaining([busy, quiet]));
    expect(reports.flatMap((r) => r.terminated)).toEqual([]);

    const health = await teamHealth(client, team.teamId, [busy, quiet]);
    expect(failedTasks(health)).toEqual([]);
    // The only terminated run is the Lead's, by this test.
    expect(health.chains.flatMap((c) => c.runs.filter((r) => r.status === 'TERMINATED').map(() => c.workflowId))).toEqual([team.teamId]);
  });

  test("a terminated Lead agent's subagent, mid-turn, is stopped the same way", async () => {
    const teamId = uniqueId('team-reaper-agent');
    const subagent = `${teamId}/subagent/1`;
    const agent = { prompt: scriptText(tool('subagent', { prompt: scriptText(think(30_000), answer('never reached')) }), answer('not reached either')) };
    await client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, { workflowId: teamId, taskQueue: worker.taskQueue, args: [{ teamId, agent }] });
    await eventually(
      () => modelCallStarted(subagent),
      (running) => running,
    );
    const terminatedAt = new Date();
    await client.workflow.getHandle(teamId).terminate('test: the Lead dies while its subagent thinks');
    await eventually(
      () => status(subagent),
      (s) => s !== 'RUNNING',
    );
    expect(await status(subagent)).toBe('COMPLETED');
    expect(await cancelRequestedActivities(subagent)).toEqual(['callModel']);
    expect((await passesSince(new Date(terminatedAt.getTime() - INTERVAL_MS * 2))).flatMap((r) => r.cancelled)).toContain(subagent);
    expect(failedTasks(await teamHealth(client, teamId, [subagent]))).toEqual([]);
  });

  test('a reset Lead agent makes its subagent call again: it runs as the next id, and the Lead stops the one the reset discarded', async () => {
    const teamId = uniqueId('team-reaper-agent-reset');
    const [discarded, again] = [`${teamId}/subagent/1`, `${teamId}/subagent/2`];
    const subagentScript = scriptText(think(3_000), answer('the subagent is done'));
    const agent = { prompt: scriptText(tool('subagent', { prompt: subagentScript }), answer('the Lead is done')) };
    await client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, { workflowId: teamId, taskQueue: worker.taskQueue, args: [{ teamId, agent }] });
    await eventually(
      () => modelCallStarted(discarded),
      (running) => running,
    );
    // Back to the Lead's first workflow task: its model call, and the subagent start after it, are made again.
    const firstTask = Number(
      ((await client.workflow.getHandle(teamId).fetchHistory()).events ?? []).find((e) => e.workflowTaskCompletedEventAttributes)!.eventId,
    );
    await client.workflowService.resetWorkflowExecution({
      namespace: 'default',
      workflowExecution: { workflowId: teamId },
      workflowTaskFinishEventId: Long.fromNumber(firstTask),
      reason: 'test: reset to before the subagent started',
      requestId: uniqueId('reset'),
    });
    const lead = await eventually(
      () => client.workflow.getHandle(teamId).query(getAgentStateQuery),
      (view) => view.status === 'answered',
      30_000,
    );
    expect(lead.finalAnswer).toBe('the Lead is done');
    const result = lead.conversation.find((e) => e.role === 'tool' && e.toolName === 'subagent')!;
    expect(result.ok).toBe(true);
    expect(toolResult(result)).toMatchObject({ agentId: again, answer: 'the subagent is done' });
    expect(lead.subagents).toEqual([
      { workflowId: discarded, closed: true },
      { workflowId: again, closed: false },
    ]);
    expect(await status(discarded)).toBe('COMPLETED'); // cancelled: a session ends cleanly with its final view
    expect(recordedPatchIds((await client.workflow.getHandle(teamId).fetchHistory()).events ?? [])).toContain(SUBAGENT_ID_TAKEN_PATCH);
    expect(failedTasks(await teamHealth(client, teamId, [discarded, again]))).toEqual([]);
    await TeamClient.attach(client, teamId).dispose();
    expect(await status(again)).toBe('COMPLETED');
  });

  test("a Team id started again: the Lead agent's subagent skips the earlier Lead's id; a teammate name it used fails, saying what to do", async () => {
    const teamId = uniqueId('team-id-again');
    const agent = { prompt: scriptText(tool('subagent', { prompt: scriptText(answer('hello')) }), answer('done')) };
    for (const round of [1, 2]) {
      const team = await TeamClient.start(client, { teamId, taskQueue: worker.taskQueue, agent });
      const lead = await eventually(
        () => team.handle().query(getAgentStateQuery),
        (view) => view.status === 'answered',
        30_000,
      );
      const result = lead.conversation.find((e) => e.role === 'tool' && e.toolName === 'subagent')!;
      expect([round, result.ok, toolResult(result)]).toEqual([
        round,
        true,
        expect.objectContaining({ agentId: `${teamId}/subagent/${round}`, answer: 'hello' }),
      ]);
      // A teammate's reserved id is its name's: the earlier Lead's closed alice is never started again.
      const { member } = await team.spawnTeammate({ name: 'alice', message: scriptText(answer('hi')) });
      expect([round, member.phase, member.failure]).toEqual(
        round === 1
          ? [1, 'active', null]
          : [2, 'failed', 'genuine child already completed: admitted once, but a closed child can take no message; spawn the teammate under another name'],
      );
      await team.dispose();
      await team.handle().result();
    }
  });

  test('a Lead reset to between two spawns: the later teammate is stopped, the earlier one is kept and still owned', async () => {
    const { team, resetPoint } = await spawnsAroundAResetPoint();
    const alpha = teammateWorkflowId(team.teamId, 'alpha');
    const beta = teammateWorkflowId(team.teamId, 'beta');

    // Updates after the reset point are not reapplied, so the reset Lead never admitted beta (signals
    // are, as by default: beta's status reports reach a Lead that ignores a non-member's).
    const resetAt = new Date();
    const { runId } = await client.workflowService.resetWorkflowExecution({
      namespace: 'default',
      workflowExecution: { workflowId: team.teamId },
      workflowTaskFinishEventId: Long.fromNumber(resetPoint),
      reason: 'test: reset to before the second spawn',
      requestId: uniqueId('reset'),
      resetReapplyExcludeTypes: [EXCLUDE_UPDATES],
    });
    expect((await team.view()).members.map((m) => [m.name, m.phase])).toEqual([['alpha', 'active']]);

    await eventually(
      () => status(beta),
      (s) => s !== 'RUNNING',
    );
    expect(await status(beta)).toBe('COMPLETED');
    // Two more passes after beta stopped: alpha is still running and still the reset Lead's.
    const reports = await awaitPasses(new Date(), 2);
    expect(await status(alpha)).toBe('RUNNING');
    expect((await team.view()).members.map((m) => [m.name, m.phase, m.workflowId])).toEqual([['alpha', 'active', alpha]]);
    const all = await passesSince(new Date(resetAt.getTime() - INTERVAL_MS * 2));
    expect(all.flatMap((r) => r.cancelled)).toContain(beta);
    expect(all.flatMap((r) => [...r.cancelled, ...r.terminated])).not.toContain(alpha);
    // The passes that kept alpha read the reset Lead's roster: one query each, of the Lead.
    expect(reports.every((r) => r.leadQueries >= 1)).toBe(true);
    const queried = new Set(reaperCalls.filter((c) => c.method === 'queryWorkflow').map((c) => c.workflowId));
    expect(queried.has(team.teamId)).toBe(true);
    expect([...queried].filter((id) => id?.includes('/teammate/') || id?.includes('/subagent/'))).toEqual([]);

    const health = await teamHealth(client, team.teamId, [alpha, beta]);
    expect(failedTasks(health)).toEqual([]);
    expect(health.chains.find((c) => c.workflowId === team.teamId)?.runs.find((r) => r.runId === runId)?.status).toBe('RUNNING');
    await team.dispose();
  });

  test("the same reset with the server's default reapply: beta's spawn is reapplied, the reset Lead owns beta again, and the reaper keeps it", async () => {
    const { team, resetPoint } = await spawnsAroundAResetPoint();
    const beta = teammateWorkflowId(team.teamId, 'beta');

    // Signals and Updates after the reset point are reapplied: spawnTeammate runs again in the reset
    // Lead, finds beta's reserved id taken, and recovery adopts the running child as active.
    await client.workflowService.resetWorkflowExecution({
      namespace: 'default',
      workflowExecution: { workflowId: team.teamId },
      workflowTaskFinishEventId: Long.fromNumber(resetPoint),
      reason: 'test: reset to before the second spawn, reapplying its Update',
      requestId: uniqueId('reset'),
    });
    await eventually(
      async () => (await team.view()).members.map((m) => [m.name, m.phase]),
      (members) =>
        JSON.stringify(members) ===
        JSON.stringify([
          ['alpha', 'active'],
          ['beta', 'active'],
        ]),
    );
    const reports = await awaitPasses(new Date(), 2);
    expect(reports.every((r) => r.leadQueries >= 1 && r.cancelled.length === 0)).toBe(true);
    expect(await status(beta)).toBe('RUNNING');

    const health = await teamHealth(client, team.teamId, [beta]);
    expect(failedTasks(health)).toEqual([]);
    await team.dispose();
  });

  test('an idle teammate of a live Team: several passes examine the Team, and the teammate runs no workflow task and is never named', async () => {
    const team = await startTeam();
    await team.spawnTeammate({ name: 'idler', message: scriptText(answer('nothing to do')) });
    await eventually(
      () => teammateState(team, 'idler'),
      (s) => s.status === 'idle',
    );
    const idler = teammateWorkflowId(team.teamId, 'idler');
    const before = await settledLength(idler);
    const callsBefore = reaperCalls.length;
    const since = new Date();

    const reports = await awaitPasses(since, 4);
    expect(reports.every((r) => r.membersKept >= 1 && r.teamsExamined >= 1)).toBe(true);
    expect(await historyLength(client, idler)).toBe(before);
    expect(await status(idler)).toBe('RUNNING');
    const during = reaperCalls.slice(callsBefore);
    // Only visibility and the Lead: never a describe, query, signal, cancel or terminate of the teammate.
    expect(during.filter((c) => c.workflowId === idler)).toEqual([]);
    expect(during.filter((c) => c.workflowId === team.teamId).map((c) => c.method)).toEqual(expect.arrayContaining(['describeWorkflowExecution']));
    expect(new Set(during.filter((c) => c.workflowId === team.teamId).map((c) => c.method))).toEqual(new Set(['describeWorkflowExecution']));

    const health = await teamHealth(client, team.teamId, [idler]);
    expect(failedTasks(health)).toEqual([]);
    expect(health.terminatedRuns).toBe(0);
    await team.dispose();
  });

  test('an orphan that ignores its cancel is terminated by a later pass, with a reason naming the reaper and its Lead', async () => {
    const absentTeam = uniqueId('team-gone');
    // A teammate child of a workflow at the Team's id that has completed (not a Lead): the reaper stops only a Lead's
    // own child. On a queue nobody polls, so it takes no cancel: the next pass terminates it.
    const taskQueue = uniqueId('tq-unpolled');
    const handle = client.workflow.getHandle(`${absentTeam}/teammate/stubborn`);
    await plantAndLeave(absentTeam, {
      workflowType: TEAMMATE_WORKFLOW_TYPE,
      workflowId: handle.workflowId,
      args: [],
      taskQueue,
      typedSearchAttributes: [
        { key: AGENT_TEAM_ID, value: absentTeam },
        { key: AGENT_TEAM_ROLE, value: 'teammate' },
        { key: AGENT_TEAM_MEMBER, value: 'stubborn' },
      ],
    });
    try {
      const reaper = createReaperActivities({ client });
      const pass = (): Promise<ReapReport> =>
        new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') }).run(reaper.reapOrphans, { taskQueue });
      expect(await eventually(pass, (report) => report.cancelled.length > 0, 30_000)).toMatchObject({ cancelled: [handle.workflowId] });
      expect(await pass()).toMatchObject({ cancelled: [], terminated: [handle.workflowId] });
      const events = (await handle.fetchHistory()).events ?? [];
      expect(events.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(true);
      const reason = events.find((e) => e.workflowExecutionTerminatedEventAttributes)?.workflowExecutionTerminatedEventAttributes?.reason ?? '';
      expect(reason).toMatch(
        /^orphan reaper: its Lead is replaced by a childplanter workflow \(Lead team-gone-[0-9a-f]+\); it was asked to cancel in an earlier pass/,
      );
    } finally {
      await terminateRunning(client, [handle.workflowId], 'test: done');
    }
  });

  test('a member that is not a Lead’s own child is never stopped, whatever Team its search attributes name', async () => {
    // A teammate started raw with a member's attributes for a Team whose Lead does not exist: no parent, so not
    // provably that Lead's (on a queue nobody polls, so it stays running).
    const absentTeam = uniqueId('team-gone');
    const taskQueue = uniqueId('tq-unpolled');
    const handle = await client.workflow.start(TEAMMATE_WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `${absentTeam}/teammate/claimed`,
      args: [] as never,
      typedSearchAttributes: [
        { key: AGENT_TEAM_ID, value: absentTeam },
        { key: AGENT_TEAM_ROLE, value: 'teammate' },
      ],
    });
    try {
      const reaper = createReaperActivities({ client });
      const pass = (): Promise<ReapReport> =>
        new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') }).run(reaper.reapOrphans, { taskQueue });
      // Once visibility lists it, a pass examines its Team and keeps it, and so does the next.
      const first = await eventually(pass, (report) => report.teamsExamined > 0, 30_000);
      expect(first).toMatchObject({ teamsExamined: 1, membersKept: 1, cancelled: [], terminated: [] });
      expect(await pass()).toMatchObject({ teamsExamined: 1, membersKept: 1, cancelled: [], terminated: [] });
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect((await handle.describe()).raw.workflowExtendedInfo?.cancelRequested).toBe(false);
    } finally {
      await terminateRunning(client, [handle.workflowId], 'test: done');
    }
  });

  test('every reaper pass so far completed', async () => {
    const runs = await listAll(reaperRunsQuery());
    expect(runs.length).toBeGreaterThan(5);
    expect(runs.filter((r) => !['COMPLETED', 'RUNNING'].includes(r.status.name)).map((r) => `${r.workflowId} ${r.status.name}`)).toEqual([]);
    // One activity per run: the same 11 events each pass. This worker does not trace, so no run records the tracing
    // patch's marker and its search attribute (2 events more on a tracing worker; docs/deployment.md).
    const completed = runs.filter((r) => r.status.name === 'COMPLETED').slice(0, 5);
    for (const run of completed) expect((await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory()).events?.length).toBe(11);
  });
});

describe('`npm run worker` (worker/main.ts) and AGENT_TEAMS_REAPER_INTERVAL', () => {
  test('empty means the default, 60 s: the worker ensures the Schedule and says so in its start-up line', async () => {
    const taskQueue = uniqueId('tq-reaper-process');
    const processWorker = await spawnWorkerProcess(taskQueue, { env: { AGENT_TEAMS_REAPER_INTERVAL: '' } });
    try {
      const { stdout, stderr } = processWorker.output();
      expect(stdout + stderr).toContain(`orphan reaper every 1 min (Schedule ${reaperScheduleId(taskQueue)}, created)`);
      const description = await client.schedule.getHandle(reaperScheduleId(taskQueue)).describe();
      expect(description.spec.intervals).toEqual([expect.objectContaining({ every: 60_000 })]);
    } finally {
      await processWorker.stop();
      await client.schedule.getHandle(reaperScheduleId(taskQueue)).delete();
    }
  });

  test('a malformed value stops the worker at start, naming the variable and the fix; no Schedule is made', async () => {
    const taskQueue = uniqueId('tq-reaper-process');
    const failure = await spawnWorkerProcess(taskQueue, { env: { AGENT_TEAMS_REAPER_INTERVAL: '90' } }).then(
      () => null,
      (error: unknown) => String(error),
    );
    expect(failure).toMatch(/exited with 1 before polling/);
    expect(failure).toContain('worker failed: AGENT_TEAMS_REAPER_INTERVAL="90" is not an interval: set a whole number of seconds, minutes or hours');
    await expect(client.schedule.getHandle(reaperScheduleId(taskQueue)).describe()).rejects.toThrow(/not found/i);
  });
});
