/**
 * Issue 27, budgets, on the real server. A teammate whose budget runs out stops before its next
 * model call with BudgetExhausted, keeps its mail waiting and the Lead is told; a raise from the Lead
 * or a teammate is refused and the operator's lets it go on. Two scripted teammates that message
 * each other without end are stopped by their budgets while the rest of the Team works on. The
 * Lead's own budget ends its turn and its answer says so. 0 failed workflow tasks, 0 terminations.
 */
import { answer, script, scriptText, send, think, tool, type Script } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import { LEAD, OPERATOR } from '../../shared/contract/callers';
import { teammateWorkflowId } from '../../shared/team';
import { budgetNotes, expectClean as expectCleanOn, PRICED_AND_FREE, scriptJson } from '../support/budgets';
import { cli } from '../support/cli';
import { useClientAndWorker } from '../support/harness';
import { recordedModelUsage } from '../support/recordedUsage';
import { eventually, rejectionOf, teammateState } from '../support/teams';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorker();
const json = scriptJson;
const expectClean = (teamId: string): Promise<void> => expectCleanOn(env.client, teamId);

test("a teammate's budget stops it at its next model call, the Lead is told; raises by the Lead or a teammate are refused, the operator's works", async () => {
  const lead = await TeamClient.start(env.client, { teamId: uniqueId('budget'), taskQueue: env.worker.taskQueue, budgets: { member: { calls: 3 } } });
  const operator = lead.as(OPERATOR);
  // Four calls' work (three tool steps a think apart, then the answer) under a cap of three.
  await lead.spawnTeammate({
    name: 'mate',
    message: json(script(tool('list_tasks'), think(1), tool('list_tasks'), think(1), tool('list_tasks'), answer('done'))),
  });
  const stopped = await eventually(
    () => teammateState(lead, 'mate'),
    (s) => s.status === 'idle' && budgetNotes(s.conversation).length === 1,
  );
  expect(budgetNotes(stopped.conversation)[0]?.content).toEqual({ event: 'budget exhausted', type: 'BudgetExhausted', budget: 'calls', used: 3, limit: 3 });
  expect(stopped.usage.total.calls).toBe(3);
  expect(stopped.budget).toEqual({ limits: { calls: 3 } });
  const mateId = teammateWorkflowId(lead.teamId, 'mate');
  expect((await recordedModelUsage(env.client, mateId)).calls).toBe(3);

  // The Lead was told, once, in its own inbox.
  const notes = await eventually(
    () =>
      lead
        .handle()
        .query(defs.getTeamViewQuery)
        .then(() => lead.readLeadInbox()),
    (messages) => messages.length > 0,
  );
  expect(notes).toEqual([
    expect.objectContaining({
      from: LEAD,
      content: expect.objectContaining({
        event: 'teammate stopped by its budget',
        teammate: 'mate',
        type: 'BudgetExhausted',
        budget: 'calls',
        used: 3,
        limit: 3,
      }),
    }),
  ]);

  // Mail that arrives meanwhile waits: no turn begins.
  await lead.sendMessage('mate', json(script(answer('the second job is done'))));
  await eventually(
    () => teammateState(lead, 'mate'),
    (s) => s.pending.length === 1,
  );
  expect((await teammateState(lead, 'mate')).turns).toBe(1);

  // Raises from the Lead and from a teammate are refused, typed; nothing changes.
  const byLead = await rejectionOf(lead.setBudget('mate', { calls: 100 }));
  expect([byLead.type, byLead.message]).toEqual(['OperatorOnly', expect.stringContaining('raise the calls cap from 3 to 100')]);
  expect((await rejectionOf(lead.as('mate').setBudget('mate', { calls: 100 }))).type).toBe('LeadOnly');
  expect((await rejectionOf(lead.setBudget('mate', {}))).type).toBe('OperatorOnly'); // removing the cap is a raise too
  expect(await lead.setBudget('mate', { calls: 2 })).toEqual({ name: 'mate', budget: { calls: 2 }, previous: { calls: 3 } }); // lowering is the Lead's
  await new Promise((r) => setTimeout(r, 300));
  expect(await teammateState(lead, 'mate')).toMatchObject({ turns: 1, pending: [expect.anything()] });

  // The operator's raise, from the CLI: the member goes on with its waiting mail.
  const raised = await cli('--json', 'budget', lead.teamId, 'mate', 'calls=10');
  expect(raised.code).toBe(0);
  expect(JSON.parse(raised.stdout)).toEqual({ name: 'mate', budget: { calls: 10 }, previous: { calls: 2 } });
  const after = await eventually(
    () => teammateState(lead, 'mate'),
    (s) => s.turns === 2 && s.status === 'idle' && s.pending.length === 0,
  );
  expect(after.conversation.at(-1)).toMatchObject({ role: 'assistant', content: 'the second job is done' });
  expect(after.usage.total.calls).toBe(4);
  // The Lead learns it from the member's idle report, an activity that may land after the member's own state says idle.
  const mateCalls = () => operator.usage().then((u) => u.members.find((m) => m.name === 'mate')?.total.calls);
  expect(await eventually(mateCalls, (calls) => calls === 4, 10_000)).toBe(4);
  await expectClean(lead.teamId);
}, 120_000);

/**
 * What ping reads first: a script that sends pong a script that sends ping a script... `depth`
 * exchanges deep (12: four nesting levels each stay under the 64 a message may have), far more than
 * the budgets here allow.
 */
function pingPong(depth: number): Script {
  let message: Script = script(answer('the exchange ended'));
  for (let k = depth - 1; k >= 0; k--) message = script(send(k % 2 === 0 ? 'pong' : 'ping', message));
  return message;
}

test('two scripted teammates that keep messaging each other are stopped by their budgets, and the rest of the Team works on', async () => {
  const lead = await TeamClient.start(env.client, { teamId: uniqueId('runaway'), taskQueue: env.worker.taskQueue, budgets: { member: { calls: 4 } } });
  await lead.spawnTeammate({ name: 'ping', message: 'wait for pong' });
  await lead.spawnTeammate({ name: 'pong', message: 'wait for ping' });
  await lead.spawnTeammate({ name: 'bystander', message: 'ready' });
  // A first turn over the spawn message is one call, each exchange two (the send, then the reply): a
  // cap of four stops each member in its second exchange, after its send, before its reply.
  await lead.sendMessage('ping', json(pingPong(12)));

  const [ping, pong] = await Promise.all(
    ['ping', 'pong'].map((name) =>
      eventually(
        () => teammateState(lead, name),
        (s) => s.status === 'idle' && budgetNotes(s.conversation).length === 1,
      ),
    ),
  );
  for (const member of [ping!, pong!]) {
    expect(member.usage.total.calls).toBe(4);
    expect(budgetNotes(member.conversation)[0]?.content).toMatchObject({ budget: 'calls', used: 4, limit: 4 });
    expect(member.budgetStop).toEqual({ type: 'BudgetExhausted', budget: 'calls', used: 4, limit: 4 });
  }
  // Stopped for good: whatever the other sent last waits in the inbox, and nothing more is called.
  await new Promise((r) => setTimeout(r, 1_000));
  for (const name of ['ping', 'pong']) {
    const state = await teammateState(lead, name);
    expect([name, state.usage.total.calls, state.status]).toEqual([name, 4, 'idle']);
    expect((await recordedModelUsage(env.client, teammateWorkflowId(lead.teamId, name))).calls).toBe(4);
  }
  // pong's last send reached ping after ping stopped: it waits there, not lost and not answered.
  expect((await teammateState(lead, 'ping')).pending).toEqual([expect.objectContaining({ from: 'pong' })]);
  // Each note comes with its member's idle report, an activity that can land after the member's own
  // state says idle; a read takes what it returns, so the reads are gathered until both came.
  const told: Array<string | undefined> = [];
  await eventually(
    async () => told.push(...(await lead.readLeadInbox()).map((m) => (m.content as { teammate?: string }).teammate)),
    () => told.length >= 2,
  );
  expect(told.sort()).toEqual(['ping', 'pong']);

  // The rest of the Team is undisturbed: the bystander still works, the board still takes changes.
  const { task } = await lead.createTask({ subject: 'after the runaway' });
  await lead.sendMessage(
    'bystander',
    json(
      script(
        tool('claim_task', { taskId: task.id, expectedRevision: 1 }),
        tool('set_task_status', { taskId: task.id, expectedRevision: 2, status: 'completed' }),
      ),
    ),
  );
  await eventually(
    () => lead.view(),
    (v) => v.tasks.some((t) => t.id === task.id && t.status === 'completed' && t.owner === 'bystander'),
  );
  expect((await lead.view()).members.map((m) => [m.name, m.phase])).toEqual([
    ['ping', 'active'],
    ['pong', 'active'],
    ['bystander', 'active'],
  ]);
  await expectClean(lead.teamId);
}, 120_000);

test("the Lead's own budget ends its turn and its answer says so; the operator's raise lets it answer the next prompt", async () => {
  const team = await TeamClient.start(env.client, {
    teamId: uniqueId('lead-budget'),
    taskQueue: env.worker.taskQueue,
    budgets: { lead: { calls: 2 } },
    agent: { profile: 'team', prompt: scriptText(tool('list_tasks'), think(1), tool('list_tasks'), think(1), tool('list_tasks'), answer('never reached')) },
  });
  const view = await team.waitForAnswer({ timeoutMs: 60_000 });
  expect(view.finalAnswer).toMatch(/^BudgetExhausted: the Lead's calls budget is used up \(2 of 2\)\. /);
  expect(view.usage.total.calls).toBe(2);
  expect((await rejectionOf(team.setBudget(LEAD, { calls: 5 }))).type).toBe('OperatorOnly');

  // A prompt while the budget is used up begins no turn: it waits, and the answer still says why.
  await team.as(OPERATOR).promptLead(scriptText(answer('answered after the raise')));
  await new Promise((r) => setTimeout(r, 500));
  const waiting = await team.agentState();
  expect([waiting.status, waiting.usage.total.calls, waiting.turns]).toEqual(['answered', 2, 1]);
  expect(waiting.finalAnswer).toMatch(/^BudgetExhausted: /);
  await team.as(OPERATOR).setBudget(LEAD, { calls: 5 });
  const next = await eventually(
    () => team.agentState(),
    (v) => v.finalAnswer === 'answered after the raise',
  );
  expect(next.usage.total.calls).toBe(3);
  await expectClean(team.teamId);
}, 120_000);

test("the Lead agent's lower_budget lowers a teammate's budget and stops it; its attempt to raise one, its own included, is refused", async () => {
  const team = await TeamClient.start(env.client, {
    teamId: uniqueId('lower-budget'),
    taskQueue: env.worker.taskQueue,
    budgets: { lead: { calls: 20 }, member: { calls: 50 } },
    agent: {
      profile: 'team',
      prompt: scriptText(
        tool('spawn_teammate', { name: 'busy', message: script(think(1)) }),
        tool('lower_budget', { name: 'busy', budget: { calls: 1 } }),
        tool('lower_budget', { name: 'busy', budget: { calls: 100 } }),
        tool('lower_budget', { name: 'lead', budget: { calls: 21 } }),
        answer('lowered'),
      ),
    },
  });
  // The stop the lowering caused reaches the Lead as a runtime note, which starts another turn.
  const view = await eventually(
    () => team.agentState(),
    (v) =>
      v.status === 'answered' &&
      v.conversation.some((e) => e.role === 'assistant' && e.content === 'lowered') &&
      v.conversation.some((e) => e.role === 'user' && (e.content as { teammate?: string } | null)?.teammate === 'busy'),
  );
  const results = view.conversation.filter((e) => e.role === 'tool' && e.toolName === 'lower_budget').map((e) => [e.ok, e.content]);
  expect(results).toEqual([
    [true, expect.stringContaining('"budget":{"calls":1},"previous":{"calls":50}')],
    [false, expect.stringContaining('OperatorOnly')],
    [false, expect.stringContaining('OperatorOnly')],
  ]);
  // The teammate now runs under one call: its next message waits once that call is used.
  const busy = await eventually(
    () => teammateState(team, 'busy'),
    (s) => s.budget?.limits.calls === 1 && s.status === 'idle',
  );
  expect(busy.usage.total.calls).toBeGreaterThanOrEqual(1);
  await team.sendMessage('busy', 'one more');
  await eventually(
    () => teammateState(team, 'busy'),
    (s) => s.pending.length === 1 && s.budgetStop?.budget === 'calls',
  );
  await expectClean(team.teamId);
}, 60_000);

test('an active-time budget stops a teammate whose turn ran past it, before its next model call', async () => {
  const team = await TeamClient.start(env.client, {
    teamId: uniqueId('active-budget'),
    taskQueue: env.worker.taskQueue,
    budgets: { member: { activeSeconds: 1 } },
  });
  // The first call thinks for 1.5 s: the second would start past the one second in turns.
  await team.spawnTeammate({ name: 'slow', message: json(script(think(1_500), tool('list_tasks'), answer('never reached'))) });
  const slow = await eventually(
    () => teammateState(team, 'slow'),
    (s) => s.status === 'idle' && budgetNotes(s.conversation).length === 1,
  );
  expect(budgetNotes(slow.conversation)[0]?.content).toMatchObject({ budget: 'activeSeconds', limit: 1 });
  expect(slow.usage.total.calls).toBe(1);
  expect(slow.usage.activeMs).toBeGreaterThanOrEqual(1_500);
  expect(slow.budgetStop).toMatchObject({ budget: 'activeSeconds' });
  await expectClean(team.teamId);
}, 60_000);

test('a cost budget for a model without a price is refused at start and at spawn, typed', async () => {
  const models = PRICED_AND_FREE;
  const refused = await rejectionOf(
    TeamClient.start(env.client, {
      teamId: uniqueId('unpriced'),
      taskQueue: env.worker.taskQueue,
      models,
      budgets: { lead: { costUsd: 1 } },
      agent: { prompt: 'plan', model: 'scripted:free' },
    }),
  );
  expect([refused.type, refused.message]).toEqual(['BudgetUnpriced', expect.stringContaining('model "scripted:free"')]);

  const team = await TeamClient.start(env.client, {
    teamId: uniqueId('unpriced-spawn'),
    taskQueue: env.worker.taskQueue,
    models,
    budgets: { member: { costUsd: 1 } },
  });
  const spawn = await rejectionOf(team.spawnTeammate({ name: 'free', message: 'hi', model: 'scripted:free' }));
  expect(spawn.type).toBe('BudgetUnpriced');
  expect((await team.view()).members).toEqual([]);
  await team.spawnTeammate({ name: 'priced', message: 'hi', model: 'scripted:priced' });
  expect((await teammateState(team, 'priced')).budget).toEqual({ limits: { costUsd: 1 }, price: { input: 1, output: 2 } });
  await expectClean(team.teamId);
}, 60_000);
