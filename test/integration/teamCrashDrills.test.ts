/**
 * Crash drills: the worker process is killed with SIGKILL during provisioning, during a send and
 * during a teammate's turn, then a new worker process takes over. Each time the Team converges to
 * the roster, board and delivered messages of an uninterrupted run. A Temporal reset of the Lead to
 * a point before a provisioning settled is reconciled by the recovery activity.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TeamClient } from '../../client/teamClient';
import type { TeammateStateView } from '../../shared/contract';
import { teammateWorkflowId } from '../../shared/team';
import { useClientAndWorkerProcesses } from '../support/harness';
import { recordedModelUsage } from '../support/recordedUsage';
import { LOST_ANSWERS_METRIC } from '../../activities/lostAnswers';
import { countOn, scrape } from '../support/prometheus';
import { resetBeforeSettled } from '../support/reconciliation';
import { freePort } from '../../scripts/devServer';
import { tempCheckout, uniqueId } from '../support/temporal';
import { demoAgentPrompt } from '../../scripts/demoScenario';
import { eventually, runningWorkflowsOfTeam, teammateState } from '../support/teams';
import type { WorkerProcess } from '../support/workerProcess';

const env = useClientAndWorkerProcesses();

/** The callModel activities of a workflow's history that completed on a retry: here, each retried once, after the kill lost its attempt. */
async function retriedModelCalls(workflowId: string): Promise<number> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const modelCalls = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').map((e) => String(e.eventId)));
  return events.filter(
    (e) => modelCalls.has(String(e.activityTaskStartedEventAttributes?.scheduledEventId)) && (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1,
  ).length;
}

const worker = (taskQueue: string): Promise<WorkerProcess> => env.spawnWorker(taskQueue);

/** Resolves once the workflow's history has an event matching `match` (polling history, no worker needed). */
async function untilEvent(workflowId: string, match: (e: { eventType?: unknown } & Record<string, unknown>) => boolean): Promise<void> {
  await eventually(
    async () => (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [],
    (events) => events.some((e) => match(e as never)),
    30_000,
  );
}

test('SIGKILL during provisioning: the spawn settles active, exactly one child, initial message consumed once', async () => {
  const taskQueue = uniqueId('tq-drill-prov');
  const first = await worker(taskQueue);
  const team = await TeamClient.start(env.client, { teamId: uniqueId('drill-prov'), taskQueue });
  const spawning = team.spawnTeammate({ name: 'fresh-hand', message: { script: [{ think: 300 }] } });
  await untilEvent(
    team.teamId,
    (e) => e.workflowExecutionUpdateAcceptedEventAttributes !== undefined && e.workflowExecutionUpdateAcceptedEventAttributes !== null,
  );
  await first.kill();
  await worker(taskQueue);

  const { member, initialMessageId } = await spawning;
  expect(member).toMatchObject({ name: 'fresh-hand', phase: 'active' });
  const state = await eventually(
    () => teammateState(team, 'fresh-hand'),
    (s) => s.consumed === 1 && s.status === 'idle',
  );
  expect(state.seenMessageIds).toEqual([initialMessageId]);
  expect(state.conversation.filter((e) => e.role === 'user')).toHaveLength(1);
  expect((await team.view()).members.map((m) => [m.name, m.phase])).toEqual([['fresh-hand', 'active']]);
  await team.dispose();
  expect(await runningWorkflowsOfTeam(env.client, team.teamId)).toEqual([]);
});

test('SIGKILL during a send and during a turn: every message is delivered exactly once and the board is intact', async () => {
  const taskQueue = uniqueId('tq-drill-send');
  let current = await worker(taskQueue);
  const team = await TeamClient.start(env.client, { teamId: uniqueId('drill-send'), taskQueue });
  await team.spawnTeammate({ name: 'alice', message: 'start' });
  await team.spawnTeammate({ name: 'bob', message: 'start' });
  const { task } = await team.createTask({ subject: 'owned across crashes' });
  await team.assignTask({ taskId: task.id, expectedRevision: task.revision, owner: 'alice' });
  await eventually(
    () => teammateState(team, 'bob'),
    (s) => s.status === 'idle' && s.consumed === 1,
  );

  // During a send: alice works, then relays three messages to bob through the Lead.
  const relay = { script: [{ think: 1_500 }, ...[1, 2, 3].map((n) => ({ send: { to: 'bob', content: `relay ${n}` } }))] };
  await team.sendMessage('alice', relay, 'relay-order');
  await eventually(
    () => teammateState(team, 'alice'),
    (s) => s.status === 'running',
  );
  await new Promise((r) => setTimeout(r, 1_600)); // the think is over: the sends are under way
  await current.kill();
  current = await worker(taskQueue);

  // During a turn: bob thinks for a while; the worker dies mid-activity; a new one retries the turn.
  await team.sendMessage('bob', { script: [{ think: 2_000 }] }, 'long-turn');
  await eventually(
    () => teammateState(team, 'bob'),
    (s) => s.status === 'running' && s.conversation.some((e) => e.messageId === 'long-turn'),
  );
  await current.kill();
  await worker(taskQueue);
  const burst = await Promise.all(Array.from({ length: 5 }, () => team.sendMessage('bob', 'after the crash', randomUUID())));

  const bob = await eventually(
    () => teammateState(team, 'bob'),
    (s) => s.status === 'idle' && s.consumed === 1 + 3 + 1 + 5,
    120_000,
  );
  const contents = bob.conversation.filter((e) => e.role === 'user').map((e) => e.content);
  expect(contents.filter((c) => typeof c === 'string' && c.startsWith('relay '))).toEqual(['relay 1', 'relay 2', 'relay 3']);
  expect(bob.conversation.filter((e) => e.messageId === 'long-turn')).toHaveLength(1);
  expect(new Set(bob.seenMessageIds)).toEqual(new Set([...bob.conversation.filter((e) => e.role === 'user').map((e) => e.messageId)]));
  expect(burst.every((a) => a.targetPhase === 'active')).toBe(true);
  // alice's turn records its receipts when it ends, which can come after bob has taken its relays.
  const turnTwoReceipts = (s: TeammateStateView): boolean[] | undefined =>
    s.conversation
      .filter((e) => e.role === 'assistant' && e.turn === 2)
      .at(-1)
      ?.receipts?.map((r) => r.ok);
  const alice = await eventually(
    () => teammateState(team, 'alice'),
    (s) => turnTwoReceipts(s)?.length === 3,
  );
  expect(turnTwoReceipts(alice)).toEqual([true, true, true]);

  const view = await team.view();
  expect(view.members.map((m) => [m.name, m.phase])).toEqual([
    ['alice', 'active'],
    ['bob', 'active'],
  ]);
  expect(view.tasks).toEqual([expect.objectContaining({ id: 1, owner: 'alice', revision: 2 })]);
  await team.dispose();
  expect(await runningWorkflowsOfTeam(env.client, team.teamId)).toEqual([]);
});

test('a Lead reset to before a provisioning settled is reconciled from the child: active, no orphan', async () => {
  const taskQueue = uniqueId('tq-drill-reset');
  await worker(taskQueue);
  const team = await TeamClient.start(env.client, { teamId: uniqueId('drill-reset'), taskQueue });
  await team.spawnTeammate({ name: 'survivor', message: 'start' });
  const oldRunId = await resetBeforeSettled(team, 'crash drill: reset before the provisioning settled');

  const settled = await eventually(
    () => team.view(),
    (v) => v.members[0]?.phase !== 'provisioning',
  );
  expect(settled.members.map((m) => [m.name, m.phase])).toEqual([['survivor', 'active']]);
  const newHistory = await team.handle().fetchHistory();
  expect(newHistory.events?.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'reconcileTeammate')).toBe(true);
  expect((await team.handle().describe()).runId).not.toBe(oldRunId);

  // The same child, still alive and reachable; disposal then leaves nothing running.
  await team.sendMessage('survivor', 'after the reset', 'after-reset');
  await eventually(
    () => teammateState(team, 'survivor'),
    (s) => s.conversation.some((e) => e.messageId === 'after-reset'),
  );
  expect((await env.client.workflow.getHandle(teammateWorkflowId(team.teamId, 'survivor')).describe()).status.name).toBe('RUNNING');
  await team.dispose();
  expect(await runningWorkflowsOfTeam(env.client, team.teamId)).toEqual([]);
});

test("SIGKILL during an agent Team's model call: a new worker takes over and the Team ends exactly as an uninterrupted run", async () => {
  const taskQueue = uniqueId('tq-drill-agent');
  const checkoutRoot = tempCheckout(); // one checkout, as on a real machine: both worker processes use it
  const first = await env.spawnWorker(taskQueue, { checkoutRoot });
  const team = await TeamClient.start(env.client, {
    teamId: uniqueId('drill-agent'),
    taskQueue,
    agent: { prompt: demoAgentPrompt({ parserThinkMs: 8_000 }), profile: 'team' },
  });
  // parser-dev has claimed its task and a worker has started its long model call when the worker dies.
  await eventually(
    () => team.view(),
    (v) => v.tasks.some((t) => t.id === 1 && t.owner === 'parser-dev'),
    60_000,
  );
  const devHandle = env.client.workflow.getHandle(teammateWorkflowId(team.teamId, 'parser-dev'));
  await eventually(
    async () => (await devHandle.describe()).raw.pendingActivities ?? [],
    // Started, and the server holds its first heartbeat: the attempt that the kill loses says it awaits its answer.
    (pending) =>
      pending.some((a) => a.activityType?.name === 'callModel' && Number(a.state) === 2 /* STARTED */ && (a.heartbeatDetails?.payloads?.length ?? 0) > 0),
    60_000,
  );
  await first.kill();
  const metricsPort = await freePort();
  await env.spawnWorker(taskQueue, { checkoutRoot, env: { AGENT_TEAMS_METRICS_BIND: `127.0.0.1:${metricsPort}` } });

  const lead = await team.waitForAnswer({ timeoutMs: 180_000 });
  expect(lead.finalAnswer).toMatch(/Parser and tests are written/);
  expect(lead.turns).toBe(3);
  const view = await team.view();
  // Exactly the board of an uninterrupted run: each task claimed once and completed once (revision 3).
  expect(view.tasks.map((t) => [t.id, t.status, t.owner, t.revision])).toEqual([
    [1, 'completed', 'parser-dev', 3],
    [2, 'completed', 'test-writer', 3],
  ]);
  expect(view.members.map((m) => [m.name, m.phase])).toEqual([
    ['parser-dev', 'active'],
    ['test-writer', 'active'],
  ]);
  const dev = await teammateState(team, 'parser-dev');
  const ownResults = dev.conversation.filter((e) => e.role === 'tool').map((e) => `${e.toolName}:${e.ok}`);
  expect(ownResults).toEqual(['claim_task:true', 'write_file:true', 'set_task_status:true', 'send_message:true']);
  expect(fs.readFileSync(path.join(checkoutRoot, 'src/parser.ts'), 'utf8')).toContain('export const parse');
  // The model call was retried after the heartbeat timeout: a later attempt completed it.
  const history = (await devHandle.fetchHistory()).events ?? [];
  expect(history.some((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1)).toBe(true);
  // Usage: every member's figures equal what its histories recorded, each completed call once: the
  // killed attempt recorded nothing, the retry once, and the new worker's replay rebuilt the rest.
  const recorded = {
    lead: await recordedModelUsage(env.client, team.teamId),
    'parser-dev': await recordedModelUsage(env.client, devHandle.workflowId),
    'test-writer': await recordedModelUsage(env.client, teammateWorkflowId(team.teamId, 'test-writer')),
  };
  expect(recorded['parser-dev'].calls).toBeGreaterThan(0);
  const usage = await eventually(
    () => team.usage(),
    (u) => u.members.every((m) => JSON.stringify(m.total) === JSON.stringify(recorded[m.name as keyof typeof recorded])),
  );
  expect(usage.members.map((m) => m.name)).toEqual(['lead', 'parser-dev', 'test-writer']);
  expect(dev.usage.total).toEqual(recorded['parser-dev']);
  // The killed attempts' answers were lost, billed and never recorded: the new worker's retries counted each once, by role.
  // parser-dev's attempt had heartbeated (waited for above), so its retry counts it; another member's call
  // caught by the kill before its first heartbeat reached the server is retried uncounted.
  const samples = await scrape(metricsPort);
  const lost = {
    lead: countOn(samples, LOST_ANSWERS_METRIC, { taskQueue, role: 'lead' }),
    teammate: countOn(samples, LOST_ANSWERS_METRIC, { taskQueue, role: 'teammate' }),
  };
  const devRetried = await retriedModelCalls(devHandle.workflowId);
  const teammatesRetried = devRetried + (await retriedModelCalls(teammateWorkflowId(team.teamId, 'test-writer')));
  expect(devRetried).toBe(1);
  expect(lost.teammate).toBeGreaterThanOrEqual(devRetried);
  expect(lost.teammate).toBeLessThanOrEqual(teammatesRetried);
  expect(lost.lead).toBeLessThanOrEqual(await retriedModelCalls(team.teamId));
  await team.dispose();
  expect(await runningWorkflowsOfTeam(env.client, team.teamId)).toEqual([]);
});
