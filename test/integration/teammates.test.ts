/**
 * Teammates as child workflows on the real server: provisioning, name reservation, roster limit,
 * reconciliation of a taken reserved id, sends with inbox acceptance and de-duplication, sender
 * attribution, cold targets, `__proto__` content, wait edges, interrupt and disposal.
 */
import { ApplicationFailure } from '@temporalio/common';
import { TeamClient } from '../../client/teamClient';
import { teammateWorkflowId } from '../../shared/team';
import { useClientAndWorker } from '../support/harness';
import { startWorker, uniqueId } from '../support/temporal';
import { eventually, newTeam, rejectionOf, runningWorkflowsOfTeam, teammateState } from '../support/teams';

const env = useClientAndWorker();

test('spawning records provisioning then active, starts the reserved child with the initial message first in its inbox', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  const { member, initialMessageId } = await team.spawnTeammate({ name: 'api-writer', message: { task: 'write the API' } });
  expect(member).toMatchObject({
    name: 'api-writer',
    phase: 'active',
    context: 'fresh',
    workflowId: teammateWorkflowId(team.teamId, 'api-writer'),
    revision: 2,
  });

  const state = await eventually(
    () => teammateState(team, 'api-writer'),
    (s) => s.consumed === 1 && s.status === 'idle',
  );
  expect(state.seenMessageIds).toEqual([initialMessageId]);
  expect(state.conversation[0]).toMatchObject({ role: 'user', from: 'lead', messageId: initialMessageId, content: { task: 'write the API' }, turn: 1 });

  const description = await env.client.workflow.getHandle(member.workflowId).describe();
  expect(description.type).toBe('teammate');
  expect(description.parentExecution?.workflowId).toBe(team.teamId);
  const roster = (await team.view()).members;
  expect(roster.map((m) => [m.name, m.phase])).toEqual([['api-writer', 'active']]);
  expect(await runningWorkflowsOfTeam(env.client, team.teamId)).toEqual(expect.arrayContaining([team.teamId, member.workflowId]));
  await team.dispose();
});

test('names are validated, reserved forever (also after failure), and the roster limit counts failed members', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue, 2);
  expect((await rejectionOf(team.spawnTeammate({ name: 'Bad_Name', message: 'x' }))).type).toBe('InvalidMemberName');
  expect((await rejectionOf(team.spawnTeammate({ name: 'lead', message: 'x' }))).type).toBe('InvalidMemberName');
  expect((await rejectionOf(team.as('nobody').spawnTeammate({ name: 'x', message: 'x' }))).type).toBe('LeadOnly');

  // Something else already holds bob's reserved id: the start fails, recovery inspects the holder
  // (wrong type, not our child) and leaves it as it is; the spawn fails with ReservedIdTaken naming
  // it and the record fails. The name stays consumed.
  const squatter = await env.client.workflow.start('squatter', { taskQueue: env.worker.taskQueue, workflowId: teammateWorkflowId(team.teamId, 'bob') });
  const refused = await rejectionOf(team.spawnTeammate({ name: 'bob', message: 'hello' }));
  expect(refused.type).toBe('ReservedIdTaken');
  expect(refused.message).toMatch(/held by workflow .*\/teammate\/bob \(type squatter, run /);
  expect((await team.view()).members.find((m) => m.name === 'bob')).toMatchObject({ phase: 'failed', failure: expect.stringMatching(/^ReservedIdTaken/) });
  expect((await squatter.describe()).status.name).toBe('RUNNING');
  await squatter.terminate('test: done');
  expect((await rejectionOf(team.spawnTeammate({ name: 'bob', message: 'again' }))).type).toBe('MemberNameTaken');

  await team.spawnTeammate({ name: 'carol', message: 'hi' });
  const full = await rejectionOf(team.spawnTeammate({ name: 'dave', message: 'hi' }));
  expect(full.type).toBe('RosterFull');
  expect(full.message).toMatch(/2 of 2/);
  await team.dispose();
});

test('sends are signals with inbox acceptance; the same message id is consumed once; senders are attributed by the runtime', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  await team.spawnTeammate({ name: 'alice', message: 'start' });
  await team.spawnTeammate({ name: 'bob', message: 'start' });
  await eventually(
    () => teammateState(team, 'bob'),
    (s) => s.status === 'idle' && s.consumed === 1,
  );

  const first = await team.sendMessage('bob', { text: 'once' }, 'msg-1');
  expect(first).toMatchObject({ messageId: 'msg-1', to: 'bob', targetPhase: 'active' });
  expect(['idle', 'running', 'starting']).toContain(first.targetStatus);
  const again = await team.sendMessage('bob', { text: 'once' }, 'msg-1');
  expect(again.messageId).toBe('msg-1');
  // A different update id with the same message id: recorded once by the target anyway.
  await team.update((await import('../../shared/contract')).sendMessageUpdate, { to: 'bob', content: { text: 'once' }, messageId: 'msg-1' });
  const bob = await eventually(
    () => teammateState(team, 'bob'),
    (s) => s.consumed === 2 && s.status === 'idle',
  );
  expect(bob.received).toBe(2);
  expect(bob.conversation.filter((e) => e.messageId === 'msg-1')).toHaveLength(1);

  // alice sends to bob and to the lead from inside her turn (scripted model); "from" is set by the runtime.
  await team.sendMessage('alice', { script: [{ send: { to: 'bob', content: 'from alice' } }, { send: { to: 'lead', content: { done: true } } }] });
  const bobAfter = await eventually(
    () => teammateState(team, 'bob'),
    (s) => s.conversation.some((e) => e.content === 'from alice'),
  );
  expect(bobAfter.conversation.find((e) => e.content === 'from alice')?.from).toBe('alice');
  const leadInbox = await eventually(
    () => team.readLeadInbox(),
    (m) => m.length > 0,
  );
  expect(leadInbox).toEqual([expect.objectContaining({ from: 'alice', content: { done: true } })]);
  // The turn's final reply carries the receipts of every send it made.
  const alice = await eventually(
    () => teammateState(team, 'alice'),
    (s) => s.status === 'idle' && s.turns === 2,
  );
  expect(alice.conversation.filter((e) => e.role === 'tool' && e.toolName === 'send_message').map((e) => e.ok)).toEqual([true, true]);
  expect(alice.conversation.filter((e) => e.role === 'assistant' && e.turn === 2).at(-1)?.receipts).toEqual([
    expect.objectContaining({ ok: true, acceptance: expect.objectContaining({ to: 'bob', targetPhase: 'active' }) }),
    expect.objectContaining({ ok: true, acceptance: expect.objectContaining({ to: 'lead', targetPhase: 'lead' }) }),
  ]);

  expect((await rejectionOf(team.sendMessage('zed', 'hi'))).type).toBe('UnknownMember');
  expect((await rejectionOf(team.as('mallory').sendMessage('bob', 'hi'))).type).toBe('NotATeamMember');
  expect((await rejectionOf(team.sendMessage('bob', undefined as never))).type).toBe('InvalidTeamCommand');
  await team.dispose();
});

test('message content keeps an own __proto__ key through every hop and view', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  await team.spawnTeammate({ name: 'parser', message: 'start' });
  const content = JSON.parse('{"__proto__":{"polluted":true},"text":"keep me"}') as Record<string, unknown>;
  expect(Object.prototype.hasOwnProperty.call(content, '__proto__')).toBe(true);

  await team.sendMessage('parser', content as never, 'proto-1');
  const state = await eventually(
    () => teammateState(team, 'parser'),
    (s) => s.conversation.some((e) => e.messageId === 'proto-1'),
  );
  const delivered = state.conversation.find((e) => e.messageId === 'proto-1')?.content as Record<string, unknown>;
  expect(Object.prototype.hasOwnProperty.call(delivered, '__proto__')).toBe(true);
  expect(Object.getOwnPropertyDescriptor(delivered, '__proto__')?.value).toEqual({ polluted: true });
  expect(delivered.text).toBe('keep me');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();

  // And back to the Lead's inbox through a teammate's turn.
  await team.sendMessage('parser', { script: [{ send: { to: 'lead', content } }] } as never);
  const [toLead] = await eventually(
    () => team.readLeadInbox(),
    (m) => m.length > 0,
  );
  expect(Object.prototype.hasOwnProperty.call(toLead!.content, '__proto__')).toBe(true);
  await team.dispose();
});

test('a send to a cold teammate (no worker has it cached) is accepted and then consumed', async () => {
  const taskQueue = uniqueId('tq-cold');
  let coldWorker = await startWorker(taskQueue);
  const team = await TeamClient.start(env.client, { teamId: uniqueId('team-cold'), taskQueue });
  await team.spawnTeammate({ name: 'sleeper', message: 'start' });
  await eventually(
    () => teammateState(team, 'sleeper'),
    (s) => s.status === 'idle',
  );
  await coldWorker.stop(); // every cached workflow is gone with this worker
  coldWorker = await startWorker(taskQueue);
  try {
    const acceptance = await team.sendMessage('sleeper', 'wake up', 'cold-1');
    expect(acceptance).toMatchObject({ messageId: 'cold-1', targetPhase: 'active' });
    const state = await eventually(
      () => teammateState(team, 'sleeper'),
      (s) => s.conversation.some((e) => e.messageId === 'cold-1'),
    );
    expect(state.consumed).toBe(2);
    await team.dispose();
  } finally {
    await coldWorker.stop();
  }
});

test('waitForEdge wakes on the next edge after the call began, never replays earlier ones, and times out', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  await team.createTask({ subject: 'an earlier edge' });
  expect(await team.waitForEdge(300)).toEqual({ woke: 'timeout' });

  const waiting = team.waitForEdge(60_000, ['task']);
  await new Promise((r) => setTimeout(r, 300));
  await team.createTask({ subject: 'the edge' });
  const woke = await waiting;
  expect(woke).toMatchObject({ woke: 'edge', edge: { kind: 'task', subject: 'taskCreated' } });

  const rosterWait = team.waitForEdge(60_000, ['roster']);
  await new Promise((r) => setTimeout(r, 300));
  await team.spawnTeammate({ name: 'waker', message: 'x' });
  expect(await rosterWait).toMatchObject({ woke: 'edge', edge: { kind: 'roster', subject: 'memberProvisioning' } });
  await team.dispose();
});

test('waitForEdge after a seq wakes on the first edge after it, even one recorded before the call; a seq past the last counts as the last', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  for (const subject of ['one', 'two', 'three']) await team.createTask({ subject });
  // Only tasks make edges here: 1, 2 and 3, all recorded before these calls.
  const first = await team.waitForEdge(60_000, ['task'], { afterSeq: 0 });
  expect(first).toMatchObject({ woke: 'edge', edge: { seq: 1, kind: 'task', subject: 'taskCreated' } });
  expect(await team.waitForEdge(60_000, ['task'], { afterSeq: 2 })).toMatchObject({ woke: 'edge', edge: { seq: 3 } });
  expect(await team.waitForEdge(300, ['task'], { afterSeq: 3 })).toEqual({ woke: 'timeout' });
  // A seq the Lead never reached (from a run a reset discarded, or made up) waits for the next edge, not past it.
  const ahead = team.waitForEdge(60_000, ['task'], { afterSeq: 1_000_000 });
  await new Promise((r) => setTimeout(r, 300));
  await team.createTask({ subject: 'four' });
  expect(await ahead).toMatchObject({ woke: 'edge', edge: { seq: 4 } });
  await expect(team.waitForEdge(300, ['task'], { afterSeq: -1 })).rejects.toMatchObject({ type: 'InvalidTeamCommand' });
  await team.dispose();
});

test('interrupt cancels the running turn, keeps the inbox and changes no task ownership; a steered message no model call saw opens the next turn', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  await team.spawnTeammate({ name: 'thinker', message: 'start' });
  await eventually(
    () => teammateState(team, 'thinker'),
    (s) => s.status === 'idle',
  );
  const { task } = await team.createTask({ subject: 'owned by thinker' });
  const assigned = (await team.assignTask({ taskId: task.id, expectedRevision: task.revision, owner: 'thinker' })).task;

  // The turn blocks in wait_agent until the next task edge, so the test decides when its step boundary comes.
  await team.sendMessage('thinker', { script: [{ tool: { name: 'wait_agent', args: { kinds: ['task'], timeoutMs: 600_000 } } }] }, 'long');
  await eventually(
    () => teammateState(team, 'thinker'),
    (s) => s.status === 'running' && s.conversation.at(-1)?.toolCalls?.[0]?.name === 'wait_agent',
  );
  // Steer: the message sent meanwhile is taken at the step boundary after the wait, not when the turn ends;
  // its script makes the model call that would see it think for a minute.
  await team.sendMessage('thinker', { script: [{ think: 60_000 }] }, 'meanwhile');
  await team.createTask({ subject: 'ends the wait' });
  const during = await eventually(
    () => teammateState(team, 'thinker'),
    (s) => s.conversation.at(-1)?.messageId === 'meanwhile',
  );
  expect(during).toMatchObject({ status: 'running', pending: [], turns: 2 });
  expect(during.conversation.at(-1)?.turn).toBe(2);

  // The interrupt comes between the take and the model call that would see it: the message is not
  // lost, it goes back to the inbox and opens the next turn (in the conversation once).
  const started = Date.now();
  const result = await team.interruptTeammate('thinker');
  expect(result).toEqual({ name: 'thinker', statusAtInterrupt: 'running' });
  const after = await eventually(
    () => teammateState(team, 'thinker'),
    (s) => s.interruptedTurns === 1 && s.turns === 3,
  );
  expect(Date.now() - started).toBeLessThan(30_000);
  const interruptNote = after.conversation.findIndex((e) => e.role === 'system' && JSON.stringify(e.content).includes('interrupted'));
  expect(interruptNote).toBeGreaterThan(0);
  expect(after.conversation.filter((e) => e.messageId === 'meanwhile')).toEqual([expect.objectContaining({ role: 'user', turn: 3 })]);
  expect(after.conversation.findIndex((e) => e.messageId === 'meanwhile')).toBeGreaterThan(interruptNote);
  expect(after.received).toBe(3);
  expect(after.consumed).toBe(3);

  const history = await env.client.workflow.getHandle(teammateWorkflowId(team.teamId, 'thinker')).fetchHistory();
  expect(history.events?.some((e) => e.activityTaskCancelRequestedEventAttributes)).toBe(true);
  expect(await team.task(task.id)).toMatchObject({ owner: 'thinker', revision: assigned.revision });
  expect((await rejectionOf(team.as('thinker').interruptTeammate('thinker'))).type).toBe('LeadOnly');
  await team.dispose();
});

test('disposal stops every child (failed ones included) and leaves nothing running; later calls get TeamClosed', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  await team.spawnTeammate({ name: 'one', message: { script: [{ think: 60_000 }] } });
  await team.spawnTeammate({ name: 'two', message: 'idle soon' });
  const squatter = await env.client.workflow.start('squatter', { taskQueue: env.worker.taskQueue, workflowId: teammateWorkflowId(team.teamId, 'three') });
  expect((await rejectionOf(team.spawnTeammate({ name: 'three', message: 'x' }))).type).toBe('ReservedIdTaken');
  await eventually(
    () => teammateState(team, 'one'),
    (s) => s.status === 'running',
  );

  // While disposal is stopping children, admission is already closed: sends get TeamAdmissionClosed.
  const disposal = team.dispose();
  let refusedDuringDisposal: string | undefined;
  for (let i = 0; i < 200 && refusedDuringDisposal === undefined; i++) {
    const type = await team.sendMessage('two', `late ${i}`).then(
      () => null,
      (error: unknown) => (error instanceof ApplicationFailure ? (error.type ?? 'untyped') : String(error)),
    );
    if (type !== null) refusedDuringDisposal = type;
  }
  const finalView = await disposal;
  expect(refusedDuringDisposal).toBe('TeamAdmissionClosed');
  expect(finalView.admission).toBe('closed');
  expect(finalView.members.map((m) => [m.name, m.phase])).toEqual([
    ['one', 'stopped'],
    ['two', 'stopped'],
    ['three', 'stopped'],
  ]);
  expect(await runningWorkflowsOfTeam(env.client, team.teamId)).toEqual([]);
  for (const name of ['one', 'two']) {
    expect((await env.client.workflow.getHandle(teammateWorkflowId(team.teamId, name)).describe()).status.name).not.toBe('RUNNING');
  }
  // The failed record's id is held by a workflow that is not the Lead's: disposal leaves it alone.
  expect((await squatter.describe()).status.name).toBe('RUNNING');
  await squatter.terminate('test: done');
  expect((await rejectionOf(team.sendMessage('two', 'too late'))).type).toBe('TeamClosed');
});

test('historical Lead-log mailbox records stay readable and validated, and are never delivered', async () => {
  const legacyContent = JSON.parse('{"__proto__":{"old":true},"text":"queued long ago"}') as unknown;
  const team = await TeamClient.start(env.client, {
    teamId: uniqueId('team-legacy'),
    taskQueue: env.worker.taskQueue,
    legacyMailbox: [
      { id: 'old-1', from: 'lead', to: 'bob', status: 'queued', content: legacyContent, at: '2025-01-01T00:00:00Z' },
      { id: 'old-2', from: 'bob', to: 'lead', status: 'delivered', content: 'done', at: '2025-01-01T00:01:00Z' },
      { id: 'old-3', from: 'lead', to: 'bob', status: 'lost', content: 'x', at: '2025-01-01T00:02:00Z' },
      { id: 'old-1', from: 'lead', to: 'bob', status: 'queued', content: 'duplicate id', at: '2025-01-01T00:03:00Z' },
    ],
  });
  const legacy = await team.legacyMailbox();
  expect(legacy.records.map((r) => [r.id, r.from, r.to, r.status])).toEqual([
    ['old-1', 'lead', 'bob', 'queued'],
    ['old-2', 'bob', 'lead', 'delivered'],
  ]);
  expect(Object.prototype.hasOwnProperty.call(legacy.records[0]!.content, '__proto__')).toBe(true);
  expect(legacy.problems).toEqual([
    { index: 2, reason: 'status must be "queued" or "delivered"' },
    { index: 3, reason: 'duplicate id old-1' },
  ]);

  await team.spawnTeammate({ name: 'bob', message: 'start' });
  const bob = await eventually(
    () => teammateState(team, 'bob'),
    (s) => s.status === 'idle' && s.consumed === 1,
  );
  expect(bob.seenMessageIds).not.toContain('old-1');
  expect(await team.readLeadInbox()).toEqual([]);
  expect((await team.legacyMailbox()).records[0]?.status).toBe('queued');
  await team.dispose();
});
