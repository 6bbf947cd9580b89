/**
 * Rollover without refusals a caller can see: raw SDK callers (no project client, no retry loop of
 * their own) drive thousands of synchronous task mutations through several continue-as-new
 * boundaries, and every call succeeds. What the server does with Updates that race the boundary is
 * part of what this shows: an Update admitted but not yet accepted when the run continues as new is
 * aborted by the server with a retriable error that the SDK retries on the new run.
 */
import { WorkflowUpdateStage, type WorkflowHandle } from '@temporalio/client';
import { answer, script, scriptText, think, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import {
  createTaskUpdate,
  editTaskUpdate,
  getAgentStateQuery,
  getLeadRunInfoQuery,
  getTeamViewQuery,
  promptLeadUpdate,
  TEAM_LEAD_WORKFLOW_TYPE,
  waitForEdgeUpdate,
} from '../../shared/contract';
import { useClientAndWorker } from '../support/harness';
import { uniqueId } from '../support/temporal';
import { chainReport } from '../support/adversarial';
import { eventually, teammateState, toolResult } from '../support/teams';

const env = useClientAndWorker();

const LANES = 4;
const TASKS_PER_LANE = 5;
const EDITS_PER_TASK = 130; // 4 × 5 × 130 = 2,600 edits + 20 creates

test('raw SDK callers drive 2,600 task mutations across several rollovers with no retry loop and no refusal', async () => {
  const teamId = uniqueId('team-raw-rollover');
  const handle: WorkflowHandle = await env.client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: teamId,
    taskQueue: env.worker.taskQueue,
    args: [{ teamId }],
  });
  expect(await driveLanes(handle, TASKS_PER_LANE, EDITS_PER_TASK)).toEqual([]);

  const info = await handle.query(getLeadRunInfoQuery);
  expect(info.continuedRuns).toBeGreaterThanOrEqual(2);
  const view = await handle.query(getTeamViewQuery);
  expect(view.tasks).toHaveLength(LANES * TASKS_PER_LANE);
  for (const task of view.tasks) expect(task).toMatchObject({ revision: EDITS_PER_TASK + 1, description: `edit ${EDITS_PER_TASK - 1}` });
  const chain = await chainReport(env.client, teamId);
  expect({ failedWorkflowTasks: chain.failedWorkflowTasks, terminated: chain.terminatedRuns }).toEqual({ failedWorkflowTasks: 0, terminated: 0 });
  await handle.terminate('test done').catch(() => undefined);
});

test("task Updates stay open while a rollover waits for the Lead's own turn, which yields at its next step boundary and finishes in the next run", async () => {
  const teamId = uniqueId('team-turn-rollover');
  // The Lead's first model call "thinks" for 60 s: the rollover (history or 1,000 accepted Updates) falls inside it.
  const prompt = scriptText(think(60_000), tool('list_tasks'), think(1_000), answer('done after the rollover'));
  const handle: WorkflowHandle = await env.client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: teamId,
    taskQueue: env.worker.taskQueue,
    args: [{ teamId, agent: { prompt, profile: 'team' } }],
  });
  // 4 lanes × 350 edits + 4 creates: the run passes 1,000 accepted Updates while the model thinks.
  expect(await driveLanes(handle, 1, 350)).toEqual([]);

  // The turn went on in the next run from where it stopped: turn 1 holds its steps once each, and
  // the first run made only the first model call (it yielded after that step).
  let agent = await handle.query(getAgentStateQuery);
  for (let i = 0; i < 120 && agent.status !== 'answered'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    agent = await handle.query(getAgentStateQuery);
  }
  expect(agent.status).toBe('answered');
  const turnOne = agent.conversation.filter((e) => e.turn === 1);
  expect(turnOne.map((e) => [e.role, e.toolCalls?.map((c) => c.name) ?? e.content])).toEqual([
    ['user', expect.any(String)],
    ['assistant', ['list_tasks']],
    ['tool', expect.any(String)],
    ['assistant', 'done after the rollover'],
  ]);
  const chain = await chainReport(env.client, teamId);
  expect({ failedWorkflowTasks: chain.failedWorkflowTasks, terminated: chain.terminatedRuns }).toEqual({ failedWorkflowTasks: 0, terminated: 0 });
  expect(chain.runs.length).toBeGreaterThanOrEqual(2);
  const firstRun = chain.runs[chain.runs.length - 1]!; // the chain is listed from the latest run back
  const firstHistory = await env.client.workflow.getHandle(teamId, firstRun.runId).fetchHistory();
  const callsInFirstRun = (firstHistory.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel');
  expect(callsInFirstRun).toHaveLength(1);
  await handle.terminate('test done').catch(() => undefined);
});

test('a Lead turn whose last model call ends as the run rolls over is answered in the next run, not left running', async () => {
  const teamId = uniqueId('team-answer-rollover');
  // One model call, thinking through the rollover; its reply is the final answer, so the turn ends with no step left to yield at.
  const prompt = scriptText(think(20_000), answer('answered across the rollover'));
  const handle: WorkflowHandle = await env.client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: teamId,
    taskQueue: env.worker.taskQueue,
    args: [{ teamId, agent: { prompt, profile: 'team' } }],
  });
  expect(await driveLanes(handle, 1, 350)).toEqual([]);
  const agent = await eventually(
    () => handle.query(getAgentStateQuery),
    (state) => state.status === 'answered',
    60_000,
  );
  // The reply was acted on: the lanes' tasks are still open, so the Lead was nudged to work on them (the seed's rule), then answered.
  const turnOne = agent.conversation.filter((e) => e.turn === 1).map((e) => [e.role, e.content]);
  expect(turnOne).toEqual([
    ['user', prompt],
    ['assistant', 'answered across the rollover'],
  ]);
  expect(agent.conversation.find((e) => e.turn === 2 && e.role === 'user')?.content).toMatchObject({ event: 'work remains before your final answer' });
  expect(agent.openTasksAtAnswer).toHaveLength(4);
  const chain = await chainReport(env.client, teamId);
  expect({ failedWorkflowTasks: chain.failedWorkflowTasks, terminated: chain.terminatedRuns }).toEqual({ failedWorkflowTasks: 0, terminated: 0 });
  // The call ended in the first run, and the answer was given in a later one.
  expect(chain.runs.length).toBeGreaterThanOrEqual(2);
  await handle.terminate('test done').catch(() => undefined);
});

test("send_message steers the Lead's running turn across continue-as-new: mail pending at the rollover is taken once by the resumed turn", async () => {
  const teamId = uniqueId('team-steer-rollover');
  // The Lead's turn blocks in wait_agent on roster edges; the rollover wakes it ({ woke: "rollover" }).
  const prompt = scriptText(tool('wait_agent', { kinds: ['roster'], timeoutMs: 600_000 }), answer('the original plan, unsteered'));
  const handle: WorkflowHandle = await env.client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: teamId,
    taskQueue: env.worker.taskQueue,
    args: [{ teamId, agent: { prompt, profile: 'team' } }],
  });
  let agent = await handle.query(getAgentStateQuery);
  for (let i = 0; i < 240 && agent.conversation.at(-1)?.toolCalls?.[0]?.name !== 'wait_agent'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    agent = await handle.query(getAgentStateQuery);
  }
  expect(agent.status).toBe('running');

  // A follow-up while the turn runs: it waits in the Lead's inbox for the next step boundary.
  const followUp = scriptText(answer('steered across the rollover'));
  const acceptance = await handle.executeUpdate(promptLeadUpdate, { args: [{ caller: 'lead', content: followUp, messageId: 'follow-up' }] });
  expect(acceptance).toMatchObject({ messageId: 'follow-up', to: 'lead' });
  // 4 lanes × (1 create + 250 edits): past 1,000 accepted Updates, so the run rolls over while the turn waits.
  expect(await driveLanes(handle, 1, 250)).toEqual([]);

  for (let i = 0; i < 240 && !agent.conversation.some((e) => e.role === 'assistant' && e.content === 'steered across the rollover'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    agent = await handle.query(getAgentStateQuery);
  }
  // One turn: the wait (woken by the rollover), then the carried follow-up, taken once, then the reply to it.
  const turnOne = agent.conversation.filter((e) => e.turn === 1);
  expect(turnOne.map((e) => [e.role, e.messageId ?? e.toolName ?? e.content])).toEqual([
    ['user', `${teamId}/prompt`],
    ['assistant', null],
    ['tool', 'wait_agent'],
    ['user', 'follow-up'],
    ['assistant', 'steered across the rollover'],
  ]);
  expect(agent.conversation.filter((e) => e.messageId === 'follow-up')).toHaveLength(1);
  const chain = await chainReport(env.client, teamId);
  expect({ failedWorkflowTasks: chain.failedWorkflowTasks, terminated: chain.terminatedRuns }).toEqual({ failedWorkflowTasks: 0, terminated: 0 });
  expect(chain.runs.length).toBeGreaterThanOrEqual(2);
  // The first run never took it: its only model call is the one before the wait.
  const firstRun = chain.runs[chain.runs.length - 1]!;
  const firstHistory = await env.client.workflow.getHandle(teamId, firstRun.runId).fetchHistory();
  expect((firstHistory.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')).toHaveLength(1);
  await handle.terminate('test done').catch(() => undefined);
});

/**
 * LANES concurrent raw callers, each creating `tasks` tasks and editing each `edits` times in order,
 * with no retry of any kind. Returns every failure (a lane stops at its first).
 */
async function driveLanes(handle: WorkflowHandle, tasks: number, edits: number): Promise<string[]> {
  const failures: string[] = [];
  const lane = async (laneIndex: number): Promise<void> => {
    for (let t = 0; t < tasks; t++) {
      const { task } = await handle.executeUpdate(createTaskUpdate, { args: [{ caller: 'lead', subject: `lane ${laneIndex} task ${t}` }] });
      let revision = task.revision;
      for (let e = 0; e < edits; e++) {
        try {
          revision = (
            await handle.executeUpdate(editTaskUpdate, { args: [{ caller: 'lead', taskId: task.id, expectedRevision: revision, description: `edit ${e}` }] })
          ).task.revision;
        } catch (error) {
          failures.push(String(error));
          return;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
  return failures;
}

/** Cheap attributed reads (listTasks adds no edge) until the Lead has continued as new once more. */
async function rollOver(team: TeamClient): Promise<void> {
  const before = (await team.runInfo()).continuedRuns;
  for (let batch = 0; (await team.runInfo()).continuedRuns === before; batch++) {
    expect(batch).toBeLessThan(200);
    await Promise.all(Array.from({ length: 16 }, () => team.listTasks()));
  }
}

test("a wait in progress when the Lead rolls over returns rollover to the waiter: a client's waitForEdge and the Lead agent's own wait_agent", async () => {
  const team = await TeamClient.start(env.client, {
    teamId: uniqueId('team-wait-rollover'),
    taskQueue: env.worker.taskQueue,
    // The Lead agent waits for a roster change, which nothing makes: only the rollover ends its wait.
    agent: { profile: 'team', prompt: scriptText(tool('wait_agent', { timeoutMs: 600_000, kinds: ['roster'] }), answer('re-read after the wait')) },
  });
  await eventually(
    () => team.handle().query(getAgentStateQuery),
    (v) => v.conversation.some((e) => e.toolCalls?.some((c) => c.name === 'wait_agent')),
  );
  // A client's wait, admitted before the rollover, on edges the reads below never make.
  const clientWait = team.handle().startUpdate(waitForEdgeUpdate, {
    args: [{ caller: 'lead', timeoutMs: 600_000, kinds: ['roster'] }],
    waitForStage: WorkflowUpdateStage.ACCEPTED,
  });
  const waiting = (await clientWait).result();
  const firstRun = (await team.runInfo()).runId;
  await rollOver(team);

  expect(await waiting).toEqual({ woke: 'rollover' });
  // The Lead agent's wait_agent got the same answer; its turn went on in the next run and answered.
  const agent = await team.waitForAnswer({ timeoutMs: 120_000 });
  expect(agent.finalAnswer).toBe('re-read after the wait');
  const waitResult = agent.conversation.find((e) => e.role === 'tool' && e.turn === 1);
  expect(toolResult(waitResult!)).toEqual({ woke: 'rollover' });
  expect((await team.runInfo()).runId).not.toBe(firstRun);
  await team.dispose();
});

test("a teammate's wait_agent in progress when the Lead rolls over is carried to the next run and wakes on the first edge there", async () => {
  const team = await TeamClient.start(env.client, { teamId: uniqueId('team-mate-wait-rollover'), taskQueue: env.worker.taskQueue });
  await team.spawnTeammate({ name: 'watcher', message: script(tool('wait_agent', { timeoutMs: 600_000, kinds: ['roster'] }), answer('woke')) as never });
  await eventually(
    () => teammateState(team, 'watcher'),
    (s) => s.status === 'running' && s.conversation.some((e) => e.toolCalls?.some((c) => c.name === 'wait_agent')),
  );
  // Its watch is with the Lead (a signal, applied whenever it lands, carried if the run is closing).
  await rollOver(team);
  expect((await teammateState(team, 'watcher')).status).toBe('running');

  await team.spawnTeammate({ name: 'newcomer', message: 'hello' });
  const state = await eventually(
    () => teammateState(team, 'watcher'),
    (s) => s.status === 'idle' && s.conversation.some((e) => e.role === 'tool'),
  );
  expect(toolResult(state.conversation.find((e) => e.role === 'tool')!)).toEqual({ woke: 'edge', kind: 'roster', subject: 'memberProvisioning' });
  await team.dispose();
});
