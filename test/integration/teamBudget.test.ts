/**
 * Issue 27, the Team budget, on the real server: one cap on the whole Team's calls, tokens or cost.
 * Under it every member asks the Lead before each model call (modelCallRequest, with its totals)
 * and calls only once the Lead has answered from the Team's totals, so the Team overshoots its cap
 * by at most one call per member. A runaway exchange stops at the Team's cap, the members and the
 * Lead are told, raises by the Lead or a teammate are refused, and the operator's raise lets the
 * stopped members go on with their waiting mail. 0 failed workflow tasks, 0 terminations.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { createActivities } from '../../activities';
import { NO_USAGE } from '../../shared/agent/usage';
import { TEAM_CLOSED } from '../../shared/contract/failures';
import type { ModelCallAnswer, ModelCallRequest } from '../../shared/contract/signals';
import { MODEL_CALL_REQUEST_ACTIVITY_PATCH } from '../../shared/contract/patches';
import { answer, script, scriptText, send, think, tool, type Script } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import { OPERATOR } from '../../shared/contract/callers';
import { teammateWorkflowId } from '../../shared/team';
import { budgetNotes, expectClean as expectCleanOn, PRICED_AND_FREE, scriptJson } from '../support/budgets';
import { cli } from '../support/cli';
import { useClientAndWorker } from '../support/harness';
import { recordedPatchIds } from '../support/patches';
import { recordedModelUsage } from '../support/recordedUsage';
import { eventually, rejectionOf, teammateState, toolResult } from '../support/teams';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorker();
const json = scriptJson;
const expectClean = (teamId: string): Promise<void> => expectCleanOn(env.client, teamId);

/** ping's first message: a script that sends pong a script that sends ping... `depth` exchanges deep. */
function pingPong(depth: number): Script {
  let message: Script = script(answer('the exchange ended'));
  for (let k = depth - 1; k >= 0; k--) message = script(send(k % 2 === 0 ? 'pong' : 'ping', message));
  return message;
}

const CAP = 9;

test("a runaway exchange stops at the Team's cap, at most a call over per member; raises by the Lead or a teammate refused, the operator's works", async () => {
  const lead = await TeamClient.start(env.client, { teamId: uniqueId('team-budget'), taskQueue: env.worker.taskQueue, budgets: { team: { calls: CAP } } });
  await lead.spawnTeammate({ name: 'ping', message: 'wait for pong' });
  await lead.spawnTeammate({ name: 'pong', message: 'wait for ping' });
  await lead.sendMessage('ping', json(pingPong(12)));

  // Stopped: whoever asked once the Team's total reached the cap, with the Team's exhaustion.
  const recordedTotal = async (): Promise<number> =>
    (await recordedModelUsage(env.client, teammateWorkflowId(lead.teamId, 'ping'))).calls +
    (await recordedModelUsage(env.client, teammateWorkflowId(lead.teamId, 'pong'))).calls;
  const stopped = await eventually(
    async () => Promise.all(['ping', 'pong'].map((name) => teammateState(lead, name))),
    (states) => states.some((s) => s.status === 'idle' && budgetNotes(s.conversation).length === 1),
    60_000,
  );
  await new Promise((r) => setTimeout(r, 1_000)); // nothing more is called
  const total = await recordedTotal();
  expect(total).toBeGreaterThanOrEqual(CAP);
  expect(total).toBeLessThanOrEqual(CAP + 1); // the cap, plus at most one call per member in flight (2 members, the first granted under the cap)
  expect(await recordedTotal()).toBe(total);
  // The member that asked past the cap stopped with the Team's exhaustion; whichever has mail, it waits (asked before its turn began).
  const stoppedMember = stopped.find((s) => budgetNotes(s.conversation).length === 1)!;
  expect(budgetNotes(stoppedMember.conversation)[0]?.content).toEqual({
    event: 'budget exhausted',
    type: 'BudgetExhausted',
    budget: 'calls',
    scope: 'team',
    used: expect.any(Number),
    limit: CAP,
  });
  const waiting = await eventually(
    async () => (await Promise.all(['ping', 'pong'].map((name) => teammateState(lead, name)))).find((s) => s.pending.length === 1),
    (s) => s !== undefined && s.budgetStop !== undefined,
  );
  expect(waiting!.budgetStop).toMatchObject({ type: 'BudgetExhausted', budget: 'calls', scope: 'team', limit: CAP });
  expect(waiting!.status).toBe('idle');

  // The Team's view holds every member's totals as they asked: the recorded ones.
  const usage = await eventually(
    () => lead.as(OPERATOR).usage(),
    (u) => u.total.calls === total,
  );
  expect(usage.members.map((m) => m.name)).toEqual(['lead', 'ping', 'pong']);
  expect(usage.teamBudget).toEqual({ limits: { calls: CAP }, exhausted: { type: 'BudgetExhausted', budget: 'calls', used: total, limit: CAP, scope: 'team' } });
  const table = await cli('usage', lead.teamId);
  expect(table.stdout).toContain(`Team budget: calls ${CAP} (calls used up: ${total} of ${CAP}; the operator raises it with budget <teamId> @team)`);

  // The Lead was told, in its own inbox, of each member the Team budget stopped.
  const notes = await eventually(
    () => lead.readLeadInbox(),
    (messages) => messages.length > 0,
  );
  expect(notes[0]?.content).toMatchObject({ event: 'teammate stopped by the Team budget', type: 'BudgetExhausted', scope: 'team', limit: CAP });

  // The board still takes changes: a Team budget caps model calls, not the Team's operations.
  expect((await lead.createTask({ subject: 'after the cap' })).task.id).toBe(1);

  // Raises by the Lead and by a teammate are refused, typed; nothing changes.
  const byLead = await rejectionOf(lead.setBudget(defs.TEAM_BUDGET, { calls: 100 }));
  expect([byLead.type, byLead.message]).toEqual(['OperatorOnly', expect.stringContaining("raise the Team's")]);
  expect((await rejectionOf(lead.as('ping').setBudget(defs.TEAM_BUDGET, { calls: 100 }))).type).toBe('LeadOnly');
  expect((await rejectionOf(lead.as(OPERATOR).setBudget(defs.TEAM_BUDGET, { turns: 100 }))).type).toBe('InvalidTeamCommand');
  await new Promise((r) => setTimeout(r, 300));
  expect(await recordedTotal()).toBe(total);

  // The operator's raise, from the CLI: the stopped member goes on with its waiting mail.
  const raised = await cli('--json', 'budget', lead.teamId, '@team', `calls=${CAP + 6}`);
  expect([raised.code, raised.stderr]).toEqual([0, '']);
  expect(JSON.parse(raised.stdout)).toEqual({ name: '@team', budget: { calls: CAP + 6 }, previous: { calls: CAP } });
  const resumed = await eventually(
    () => teammateState(lead, waiting!.descriptor.name),
    (s) => s.pending.length === 0 && s.usage.total.calls > waiting!.usage.total.calls,
    60_000,
  );
  expect(resumed.turns).toBeGreaterThan(waiting!.turns);
  // And stops again at the raised cap.
  await eventually(
    () => recordedTotal(),
    (n) => n >= CAP + 6,
    60_000,
  );
  await new Promise((r) => setTimeout(r, 1_000));
  expect(await recordedTotal()).toBeLessThanOrEqual(CAP + 6 + 1);
  await expectClean(lead.teamId);
}, 180_000);

test("the Lead agent's own calls count and stop at the Team's cap, and its answer says so", async () => {
  const lead = await TeamClient.start(env.client, {
    teamId: uniqueId('team-budget-lead'),
    taskQueue: env.worker.taskQueue,
    budgets: { team: { calls: 2 } },
    // Three calls' work (tool steps a think apart, then the answer) under a Team cap of two.
    agent: { profile: 'team', prompt: scriptText(tool('list_tasks'), think(1), tool('list_tasks'), answer('never reached')) },
  });
  const view = await lead.waitForAnswer({ timeoutMs: 60_000 });
  expect(view.finalAnswer).toMatch(/^BudgetExhausted: the Team's calls budget is used up \(2 of 2\), which stops the Lead\. .*setBudget "@team"/);
  expect((await recordedModelUsage(env.client, lead.teamId)).calls).toBe(2);
  await expectClean(lead.teamId);
}, 60_000);

test('a Team budget is refused typed where it cannot be checked or changed: cost over unpriced models, a Team without one, turns', async () => {
  const models = PRICED_AND_FREE;
  const refused = await rejectionOf(
    TeamClient.start(env.client, { teamId: uniqueId('team-unpriced'), taskQueue: env.worker.taskQueue, models, budgets: { team: { costUsd: 1 } } }),
  );
  expect([refused.type, refused.message]).toEqual(['BudgetUnpriced', expect.stringContaining('"scripted:free"')]);

  const team = await TeamClient.start(env.client, { teamId: uniqueId('no-team-budget'), taskQueue: env.worker.taskQueue });
  const none = await rejectionOf(team.as(OPERATOR).setBudget(defs.TEAM_BUDGET, { calls: 5 }));
  expect([none.type, none.message]).toEqual(['NoTeamBudget', expect.stringContaining('--team-budget')]);
  const flag = await cli('start', uniqueId('cli-team-budget'), '--team-budget', 'turns=3');
  expect([flag.code, flag.stderr]).toEqual([1, expect.stringContaining('a Team budget caps calls, tokens and cost, not turns')]);
  await expectClean(team.teamId);
}, 60_000);

test("a subagent asks the Lead too: it stops at the Team's cap, and the Lead after it", async () => {
  const teamId = uniqueId('team-budget-sub');
  const agentId = `${teamId}/subagent/1`;
  // The Lead's first call starts the subagent; the subagent's third call would pass the Team's cap of three.
  const subagentWork = scriptText(tool('read_file', { path: 'a.txt' }), think(1), tool('read_file', { path: 'b.txt' }), think(1), answer('never reached'));
  const lead = await TeamClient.start(env.client, {
    teamId,
    taskQueue: env.worker.taskQueue,
    budgets: { team: { calls: 3 } },
    agent: { profile: 'default', prompt: scriptText(tool('subagent', { prompt: subagentWork }), answer('never reached either')) },
  });
  const view = await lead.waitForAnswer({ timeoutMs: 60_000 });
  expect(view.finalAnswer).toMatch(/^BudgetExhausted: the Team's calls budget is used up \(3 of 3\), which stops the Lead\./);
  const sub = await env.client.workflow.getHandle(agentId).query(defs.getTeammateStateQuery);
  expect(sub.budgetStop).toMatchObject({ type: 'BudgetExhausted', budget: 'calls', scope: 'team', used: 3, limit: 3 });
  expect(sub.usage.total.calls).toBe(2);
  // The subagent's answer (none: its turn was stopped) came back as the Lead's tool result.
  expect(view.conversation.filter((e) => e.role === 'tool').map((e) => toolResult(e))).toEqual([{ agentId, turn: 1, answer: null }]);
  const recorded = (await recordedModelUsage(env.client, teamId)).calls + (await recordedModelUsage(env.client, agentId)).calls;
  expect(recorded).toBe(3);
  expect((await lead.as(OPERATOR).usage()).total.calls).toBe(3);
  await lead.dispose();
  await expectClean(teamId);
}, 60_000);

test("a member's ask reaches the Lead as a modelCallRequest signal sent by an activity of the member, never a signal command of its own", async () => {
  const lead = await TeamClient.start(env.client, { teamId: uniqueId('team-budget-ask'), taskQueue: env.worker.taskQueue, budgets: { team: { calls: 50 } } });
  await lead.spawnTeammate({ name: 'asker', message: json(script(tool('list_tasks'), answer('asked twice'))) });
  const mateId = teammateWorkflowId(lead.teamId, 'asker');
  await eventually(
    () => teammateState(lead, 'asker'),
    (s) => s.status === 'idle' && s.usage.total.calls === 2,
    30_000,
  );
  const mateEvents = (await env.client.workflow.getHandle(mateId).fetchHistory()).events ?? [];
  const asks = mateEvents.map((e) => e.activityTaskScheduledEventAttributes).filter((a) => a?.activityType?.name === 'requestModelCall');
  // One ask per call, each on the member's own queue (the worker that runs it), never the checkout's.
  expect(asks).toHaveLength(2);
  expect(new Set(asks.map((a) => a?.taskQueue?.name))).toEqual(new Set([env.worker.taskQueue]));
  // Retried until sent, as the server retries a signal command: no overall deadline that an outage could outlast.
  expect(asks.map((a) => Number(a?.scheduleToCloseTimeout?.seconds ?? 0))).toEqual([0, 0]);
  expect(recordedPatchIds(mateEvents)).toContain(MODEL_CALL_REQUEST_ACTIVITY_PATCH);
  expect(mateEvents.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'modelCallRequest')).toEqual([]);
  // The Lead sees the same signal as before, naming the member's workflow id, and answers each ask.
  const leadEvents = (await lead.handle().fetchHistory()).events ?? [];
  const requests = leadEvents
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === 'modelCallRequest')
    .map((a) => defaultPayloadConverter.fromPayload<ModelCallRequest>(a!.input!.payloads![0]!));
  expect(requests.map((r) => [r.member, r.calls])).toEqual([
    [mateId, 0],
    [mateId, 1],
  ]);
  const answers = mateEvents
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === 'modelCallAnswer')
    .map((a) => defaultPayloadConverter.fromPayload<ModelCallAnswer>(a!.input!.payloads![0]!));
  expect(answers).toEqual([
    { calls: 0, exhaustion: null },
    { calls: 1, exhaustion: null },
  ]);
  // The Lead counts the member's calls from its idle report, which can land after the member's own state says idle.
  await eventually(
    () => lead.as(OPERATOR).usage(),
    (usage) => usage.total.calls === 2,
  );
  await lead.dispose();
  await expectClean(lead.teamId);
}, 60_000);

test('an ask to a Lead that has closed, or never was, fails typed and is not retried: nobody is left to answer it', async () => {
  const { requestModelCall } = createActivities({ client: env.client });
  const request = { member: 'x/teammate/asker', calls: 0, usage: NO_USAGE };
  const absent = await rejectionOf(requestModelCall({ teamId: uniqueId('no-such-team'), request }));
  expect(absent).toMatchObject({ type: TEAM_CLOSED, nonRetryable: true });
  expect(absent.message).toMatch(/has finished: nobody is left to answer/);

  const lead = await TeamClient.start(env.client, { teamId: uniqueId('team-budget-closed'), taskQueue: env.worker.taskQueue, budgets: { team: { calls: 5 } } });
  await lead.dispose();
  await lead.handle().result();
  await expect(requestModelCall({ teamId: lead.teamId, request })).rejects.toMatchObject({ type: TEAM_CLOSED, nonRetryable: true });
});
