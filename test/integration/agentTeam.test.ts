/**
 * The agent runtime end to end on the real server, driven by the scripted model: a Lead started
 * with a prompt plans tasks, spawns teammates (fresh and fork), waits for their work, and answers;
 * teammates claim and complete tasks and edit the shared checkout through version-checked tools.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { answer, script, scriptText, send, think, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import type { LeadAgentView } from '../../shared/contract';
import { teammateWorkflowId } from '../../shared/team';
import { useClientAndWorker } from '../support/harness';
import { eventually, runningWorkflowsOfTeam, startAgentTeam, teammateState, toolResult } from '../support/teams';
import { address, tempCheckout, uniqueId } from '../support/temporal';
import { createCheckoutWorker } from '../../worker/createCheckoutWorker';

const env = useClientAndWorker();

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
type EdgeNote = { waitId: string; edge: defs.TeamEdge };
const signalInput = <T>(event: temporal.api.history.v1.IHistoryEvent): T =>
  defaultPayloadConverter.fromPayload<T>(event.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!);

const agentState = (team: TeamClient): Promise<LeadAgentView> => team.handle().query(defs.getAgentStateQuery);
const answered = (team: TeamClient): Promise<LeadAgentView> =>
  eventually(
    () => agentState(team),
    (v) => v.status === 'answered',
    120_000,
  );

async function activityTypes(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name ? [e.activityTaskScheduledEventAttributes.activityType.name] : [],
  );
}

test('a Lead with a prompt plans, spawns a fresh and a fork teammate, waits for their work and answers; files change only through version checks', async () => {
  const bobScript = script(
    tool('claim_task', { taskId: 2, expectedRevision: 1 }),
    tool('read_file', { path: 'src/parser.ts' }),
    tool('write_file', { path: 'src/parser.ts', content: 'clobbered', version: `sha256:${'0'.repeat(64)}` }),
    tool('write_file', { path: 'test/parser.test.ts', content: 'test("parses", () => {});\n', version: null }),
    tool('set_task_status', { taskId: 2, expectedRevision: 2, status: 'completed' }),
    send('lead', script(answer('parser and tests done'))),
  );
  const aliceScript = script(
    tool('claim_task', { taskId: 1, expectedRevision: 1 }),
    tool('write_file', { path: 'src/parser.ts', content: 'export const parse = (s: string) => s.split(",");\n', version: null }),
    tool('set_task_status', { taskId: 1, expectedRevision: 2, status: 'completed' }),
    // The Lead's next turn follows this message's script: it spawns bob as a fork once the parser exists.
    send('lead', script(tool('spawn_teammate', { name: 'bob', context: 'fork', message: bobScript }))),
  );
  const team = await startAgentTeam(env.client, env.worker.taskQueue, {
    profile: 'team',
    prompt: scriptText(
      tool('create_task', { subject: 'write the parser', writeScopes: ['src/parser.ts'] }),
      tool('create_task', { subject: 'test the parser', dependencies: [1], writeScopes: ['test/'] }),
      tool('spawn_teammate', { name: 'alice', message: aliceScript }),
    ),
  });

  const lead = await answered(team);
  expect(lead.finalAnswer).toBe('parser and tests done');
  expect(lead.openTasksAtAnswer).toEqual([]);
  // Turn 1: the plan; turn 2: alice's report (spawns bob); turn 3: bob's report. Between them the Lead waited.
  expect(lead.turns).toBe(3);
  const leadTools = lead.conversation.filter((e) => e.role === 'tool').map((e) => `${e.toolName}:${e.ok}`);
  expect(leadTools).toEqual(['create_task:true', 'create_task:true', 'spawn_teammate:true', 'spawn_teammate:true']);

  const view = await team.view();
  expect(view.members.map((m) => [m.name, m.phase, m.context])).toEqual([
    ['alice', 'active', 'fresh'],
    ['bob', 'active', 'fork'],
  ]);
  expect(view.tasks.map((t) => [t.id, t.status, t.owner, t.revision])).toEqual([
    [1, 'completed', 'alice', 3],
    [2, 'completed', 'bob', 3],
  ]);

  // The shared checkout: bob's blind overwrite was refused as stale; the parser is alice's.
  expect(fs.readFileSync(path.join(env.worker.checkoutRoot, 'src/parser.ts'), 'utf8')).toContain('export const parse');
  expect(fs.existsSync(path.join(env.worker.checkoutRoot, 'test/parser.test.ts'))).toBe(true);
  const bob = await eventually(
    () => teammateState(team, 'bob'),
    (s) => s.status === 'idle' && s.turns === 1,
  );
  const seedLength = bob.conversation.findIndex((e) => e.messageId === `${teammateWorkflowId(team.teamId, 'bob')}/initial`);
  const bobResults = bob.conversation.slice(seedLength).filter((e) => e.role === 'tool');
  expect(bobResults.map((e) => `${e.toolName}:${e.ok}`)).toEqual([
    'claim_task:true',
    'read_file:true',
    'write_file:false',
    'write_file:true',
    'set_task_status:true',
    'send_message:true',
  ]);
  expect(toolResult(bobResults[2]!)).toMatchObject({ error: 'StaleVersion' });

  // bob is a fork: his conversation starts with the Lead's completed turns (1 only), never the
  // delegation turn (2) in which he was spawned.
  const seedEnd = bob.conversation.findIndex((e) => e.messageId === `${teammateWorkflowId(team.teamId, 'bob')}/initial`);
  const seed = bob.conversation.slice(0, seedEnd);
  expect(seed[0]).toMatchObject({ role: 'user', messageId: `${team.teamId}/prompt`, from: 'user' });
  expect(seed.every((e) => e.turn === 1)).toBe(true);
  expect(seed.filter((e) => e.role === 'tool').map((e) => e.toolName)).toEqual(['create_task', 'create_task', 'spawn_teammate']);
  const alice = await teammateState(team, 'alice');
  expect(alice.conversation[0]).toMatchObject({ role: 'user', from: 'lead' }); // fresh: no inherited conversation

  // Persisted histories: model calls and tools as activities, children, status signals.
  const leadEvents = (await env.client.workflow.getHandle(team.teamId).fetchHistory()).events ?? [];
  expect(leadEvents.filter((e) => e.childWorkflowExecutionStartedEventAttributes)).toHaveLength(2);
  expect(leadEvents.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'reportMemberStatus')).toBe(true);
  const leadActivities = await activityTypes(env.client, team.teamId);
  // Team tools of the Lead run inside its own workflow: its only activities are the 5 model calls
  // (plan + handled, spawn bob + handled, the final answer).
  expect(leadActivities).toEqual(Array(5).fill('callModel'));
  const aliceActivities = await activityTypes(env.client, teammateWorkflowId(team.teamId, 'alice'));
  // Her turn between its two status reports (running, then idle), which her worker signals to the Lead.
  expect(aliceActivities).toEqual([
    'reportMemberStatus',
    'callModel',
    'runTeamTool',
    'runWorkTool',
    'runTeamTool',
    'runTeamTool',
    'callModel',
    'reportMemberStatus',
  ]);

  await team.dispose();
  expect(await runningWorkflowsOfTeam(env.client, team.teamId)).toEqual([]);
});

test('a Team tool error comes back to the model as a typed result, and teammates cannot do Lead-only things', async () => {
  const team = await startAgentTeam(env.client, env.worker.taskQueue, {
    profile: 'team',
    prompt: scriptText(
      tool('claim_task', { taskId: 9, expectedRevision: 1 }),
      tool('spawn_teammate', { name: 'Not Kebab', message: 'hi' }),
      tool('spawn_teammate', {
        name: 'carol',
        message: script(tool('spawn_teammate', { name: 'dave', message: 'hi' }), tool('interrupt_teammate', { name: 'carol' }), tool('no_such_tool')),
      }),
      answer('done'),
    ),
  });
  const lead = await answered(team);
  const results = lead.conversation.filter((e) => e.role === 'tool').map((e) => toolResult(e) as { error?: string });
  expect(results.map((r) => r.error ?? 'ok')).toEqual(['TaskNotFound', 'InvalidMemberName', 'ok']);
  const carol = await eventually(
    () => teammateState(team, 'carol'),
    (s) => s.turns === 1 && s.status === 'idle',
  );
  expect(carol.conversation.filter((e) => e.role === 'tool').map((e) => toolResult(e).error)).toEqual(['LeadOnly', 'LeadOnly', 'UnknownTool']);
  expect((await team.view()).members.map((m) => m.name)).toEqual(['carol']);
  await team.dispose();
});

test("read_roster shows the Lead pseudo-row with the Lead agent's status, to the Lead and to a teammate", async () => {
  const team = await startAgentTeam(env.client, env.worker.taskQueue, {
    profile: 'team',
    prompt: scriptText(tool('read_roster'), tool('spawn_teammate', { name: 'reader', message: script(tool('read_roster')) }), answer('done')),
  });
  const lead = await answered(team);
  const leadRoster = lead.conversation.find((e) => e.role === 'tool' && e.toolName === 'read_roster');
  // The Lead reads the roster in its own running turn, before any member exists: the Lead row only.
  expect(toolResult(leadRoster!)).toEqual({
    maxMembers: 8,
    admission: 'open',
    lead: { name: 'lead', role: 'lead', phase: 'active', status: 'running' },
    members: [],
  });
  const reader = await eventually(
    () => teammateState(team, 'reader'),
    (s) => s.turns === 1 && s.status === 'idle',
  );
  // What the teammate's model read, as its conversation recorded it: the Lead row first, with the
  // Lead agent's status at that moment (its turn, or its wait for required work), then the roster.
  const readerRoster = toolResult(reader.conversation.find((e) => e.role === 'tool' && e.toolName === 'read_roster')!);
  expect(readerRoster.lead).toEqual({ name: 'lead', role: 'lead', phase: 'active', status: expect.stringMatching(/^(running|waiting)$/) });
  expect(readerRoster.members).toEqual([expect.objectContaining({ name: 'reader', context: 'fresh' })]);
  // getTeamView shows the same row; the Lead has answered by now.
  expect((await team.view()).lead).toEqual({ name: 'lead', role: 'lead', phase: 'active', status: 'answered' });
  await team.dispose();
});

test('the default profile has no Team tools; ordinary subagents answer, take follow-ups and are closed outside the roster', async () => {
  const teamId = uniqueId('solo');
  const agentId = `${teamId}/subagent/1`;
  const team = await startAgentTeam(
    env.client,
    env.worker.taskQueue,
    {
      prompt: scriptText(
        tool('spawn_teammate', { name: 'eve', message: 'hi' }),
        tool('subagent', { prompt: scriptText(tool('write_file', { path: 'notes.txt', content: 'from a subagent', version: null }), answer('notes written')) }),
        think(1),
        tool('send_input', { agentId, message: scriptText(answer('second answer')) }),
        tool('wait_agent', { agentId, timeoutMs: 60_000 }),
        tool('close_agent', { agentId }),
        answer('solo done'),
      ),
    },
    { teamId },
  );
  const lead = await answered(team);
  expect(lead.profile).toBe('default');
  expect(lead.finalAnswer).toBe('solo done');
  const results = lead.conversation.filter((e) => e.role === 'tool').map((e) => [e.toolName, toolResult(e)]);
  expect(results).toEqual([
    ['spawn_teammate', expect.objectContaining({ error: 'UnknownTool' })],
    ['subagent', { agentId, turn: 1, answer: 'notes written' }],
    ['send_input', { agentId, messageId: expect.any(String) }],
    ['wait_agent', { woke: 'answer', agentId, turn: 2, answer: 'second answer' }],
    ['close_agent', { agentId, closed: true }],
  ]);
  expect(fs.readFileSync(path.join(env.worker.checkoutRoot, 'notes.txt'), 'utf8')).toBe('from a subagent');
  expect((await team.view()).members).toEqual([]);
  const sub = await env.client.workflow.getHandle(agentId).describe();
  expect(sub.type).toBe('subagent');
  expect(sub.status.name).not.toBe('RUNNING');
  await team.dispose();
});

test('a fork of a root is a new root: it keeps the conversation, not the ancestor Team; follow-up prompts start new turns', async () => {
  const ancestor = await startAgentTeam(env.client, env.worker.taskQueue, {
    profile: 'team',
    prompt: scriptText(tool('spawn_teammate', { name: 'alice', message: 'hello' }), answer('ancestor done')),
  });
  const before = await answered(ancestor);
  const fork = await startAgentTeam(
    env.client,
    env.worker.taskQueue,
    { profile: 'team', prompt: scriptText(tool('spawn_teammate', { name: 'alice', message: 'hello again' }), answer('fork done')) },
    { forkOf: { teamId: ancestor.teamId, conversation: before.conversation } },
  );
  const forked = await answered(fork);
  expect(forked.finalAnswer).toBe('fork done');
  expect(forked.conversation.slice(0, before.conversation.length)).toEqual(before.conversation);
  // The name alice belongs to the ancestor's Team only: the fork's roster starts empty.
  expect((await fork.view()).members.map((m) => [m.name, m.phase])).toEqual([['alice', 'active']]);

  const acceptance = await fork.update(defs.promptLeadUpdate, { content: scriptText(answer('follow-up done')) });
  expect(acceptance).toMatchObject({ to: 'lead', targetPhase: 'lead' });
  await eventually(
    () => agentState(fork),
    (v) => v.finalAnswer === 'follow-up done',
    60_000,
  );
  await ancestor.dispose();
  await fork.dispose();
});

test('the Lead agent survives continue-as-new: conversation, answer and subagent records carry over and it keeps taking prompts', async () => {
  const team = await startAgentTeam(env.client, env.worker.taskQueue, {
    profile: 'team',
    prompt: scriptText(tool('create_task', { subject: 'carried' }), answer('first answer')),
  });
  // It answers with a task still open: the runtime tells it twice (two more turns), then accepts.
  const before = await answered(team);
  expect(before.turns).toBe(3);
  expect(before.openTasksAtAnswer).toEqual([1]);
  expect(before.conversation.filter((e) => e.from === 'lead' && JSON.stringify(e.content).includes('work remains'))).toHaveLength(2);
  // Cheap attributed reads until the Lead rolls over (it does after 1,000 accepted Updates).
  for (let batch = 0; (await team.runInfo()).continuedRuns === 0; batch++) {
    expect(batch).toBeLessThan(200);
    await Promise.all(Array.from({ length: 16 }, () => team.listTasks()));
  }
  const after = await agentState(team);
  expect(after.conversation).toEqual(before.conversation);
  expect(after.finalAnswer).toBe(before.finalAnswer);
  expect(after.turns).toBe(before.turns);
  await team.update(defs.promptLeadUpdate, {
    content: scriptText(
      tool('claim_task', { taskId: 1, expectedRevision: 1 }),
      tool('set_task_status', { taskId: 1, expectedRevision: 2, status: 'completed' }),
      answer('after rollover'),
    ),
  });
  const next = await eventually(
    () => agentState(team),
    (v) => v.finalAnswer === 'after rollover',
    60_000,
  );
  expect(next.turns).toBe(before.turns + 1); // no open task left, so no nudge
  expect(next.openTasksAtAnswer).toEqual([]);
  await team.dispose();
});

test("work tools run on the checkout task queue; members start in the Lead's directory and a cd stays with that member", async () => {
  const checkoutRoot = tempCheckout();
  fs.mkdirSync(path.join(checkoutRoot, 'pkg', 'sub'), { recursive: true });
  const checkoutQueue = uniqueId('checkout');
  const connection = await NativeConnection.connect({ address: address() });
  const { worker: checkoutWorker } = await createCheckoutWorker({ connection, taskQueue: checkoutQueue, checkoutRoot });
  await checkoutWorker.runUntil(async () => {
    const team = await startAgentTeam(env.client, env.worker.taskQueue, {
      profile: 'team',
      cwd: 'pkg',
      checkoutTaskQueue: checkoutQueue,
      prompt: scriptText(
        tool('spawn_teammate', {
          name: 'walker',
          message: script(tool('bash', { command: 'cd sub && pwd' }), tool('write_file', { path: 'here.txt', content: 'walker', version: null })),
        }),
        tool('write_file', { path: 'lead.txt', content: 'lead', version: null }),
        answer('placed'),
      ),
    });
    await answered(team);
    const walker = await eventually(
      () => teammateState(team, 'walker'),
      (s) => s.turns === 1 && s.status === 'idle',
    );
    expect(walker.cwd).toBe('pkg/sub'); // the member's own directory changed...
    expect((await agentState(team)).cwd).toBe('pkg'); // ...the Lead's did not
    // Files landed in the checkout served by the checkout worker, relative to each member's directory.
    expect(fs.readFileSync(path.join(checkoutRoot, 'pkg', 'lead.txt'), 'utf8')).toBe('lead');
    expect(fs.readFileSync(path.join(checkoutRoot, 'pkg', 'sub', 'here.txt'), 'utf8')).toBe('walker');
    expect(fs.existsSync(path.join(env.worker.checkoutRoot, 'pkg'))).toBe(false);
    const history = await env.client.workflow.getHandle(teammateWorkflowId(team.teamId, 'walker')).fetchHistory();
    const queues = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'runWorkTool' ? [e.activityTaskScheduledEventAttributes.taskQueue?.name] : [],
    );
    expect(queues).toEqual([checkoutQueue, checkoutQueue]);
    await team.dispose();
  });
  await connection.close();
});

test("a teammate's wait_agent blocks durably until the next edge after it began; an interrupt cancels the wait", async () => {
  const team = await startAgentTeam(env.client, env.worker.taskQueue, {
    profile: 'team',
    prompt: scriptText(
      tool('spawn_teammate', { name: 'waiter', message: script(tool('wait_agent', { timeoutMs: 120_000, kinds: ['task'] }), send('lead', 'woke up')) }),
      tool('spawn_teammate', { name: 'sleeper', message: script(tool('wait_agent', { timeoutMs: 120_000, kinds: ['task'] })) }),
      answer('spawned'),
    ),
  });
  await eventually(
    () => team.view(),
    (v) => v.members.filter((m) => m.phase === 'active').length === 2,
  );
  const waiting = (s: defs.TeammateStateView): boolean =>
    s.status === 'running' && s.conversation.some((e) => e.toolCalls?.some((c) => c.name === 'wait_agent') === true);
  await eventually(() => teammateState(team, 'waiter'), waiting);
  await eventually(() => teammateState(team, 'sleeper'), waiting);

  // The sleeper is interrupted mid-wait: its turn ends without waking.
  await team.interruptTeammate('sleeper');
  const sleeper = await eventually(
    () => teammateState(team, 'sleeper'),
    (s) => s.interruptedTurns === 1 && s.status === 'idle',
    30_000,
  );
  expect(sleeper.conversation.filter((e) => e.role === 'tool')).toEqual([]);

  // A task edge after the wait began wakes the waiter, which reports to the Lead.
  await team.createTask({ subject: 'wake up' });
  const waiter = await eventually(
    () => teammateState(team, 'waiter'),
    (s) => s.turns === 1 && s.status === 'idle',
  );
  const woke = waiter.conversation.filter((e) => e.role === 'tool').map((e) => [e.toolName, toolResult(e)]);
  expect(woke[0]).toEqual(['wait_agent', { woke: 'edge', kind: 'task', subject: 'taskCreated' }]);
  expect(woke[1]).toEqual(['send_message', expect.objectContaining({ to: 'lead' })]);
  // The waits were signals, not Updates parked on the Lead: no in-flight Update slot was held.
  const leadEvents = (await team.handle().fetchHistory()).events ?? [];
  const signals = leadEvents.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName).filter(Boolean);
  expect(signals.filter((n) => n === 'watchEdges')).toHaveLength(2);
  expect(signals.filter((n) => n === 'unwatchEdges')).toHaveLength(1); // the interrupted sleeper's
  expect(leadEvents.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'waitForEdge')).toHaveLength(0);
  const waiterEvents = (await env.client.workflow.getHandle(teammateWorkflowId(team.teamId, 'waiter')).fetchHistory()).events ?? [];
  expect(waiterEvents.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'edgeNotification')).toHaveLength(1);
  // Each watch says when its call began (the teammate's workflow time): the Lead counts edges from then.
  const watches = leadEvents.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'watchEdges').map((e) => signalInput<defs.EdgeWatch>(e));
  expect(watches.map((w) => w.callStartedAt)).toEqual([expect.stringMatching(ISO_TIME), expect.stringMatching(ISO_TIME)]);
  const wake = waiterEvents
    .filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'edgeNotification')
    .map((e) => signalInput<EdgeNote>(e))[0]!;
  expect(Date.parse(watches.find((w) => w.name === 'waiter')!.callStartedAt!)).toBeLessThanOrEqual(Date.parse(wake.edge.at));
  await team.dispose();
});

test("a teammate's watch counts edges the Lead recorded since its call began, even before the watch arrived, never its own status", async () => {
  const team = await TeamClient.start(env.client, { teamId: uniqueId('watch-from-call'), taskQueue: env.worker.taskQueue });
  const beforeSpawn = new Date().toISOString(); // the dev server runs on this machine: one clock
  await team.spawnTeammate({ name: 'idler', message: script(answer('idle')) as never });
  await eventually(
    () => teammateState(team, 'idler'),
    (s) => s.status === 'idle' && s.turns === 1,
  );
  // The watches below name idler, as its wait_agent would; it ignores notifications of waits it has not begun.
  const idler = env.client.workflow.getHandle(teammateWorkflowId(team.teamId, 'idler'));
  const notified = async (waitId: string): Promise<defs.TeamEdge> => {
    const notes = await eventually(
      async () =>
        ((await idler.fetchHistory()).events ?? [])
          .filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'edgeNotification')
          .map((e) => signalInput<EdgeNote>(e)),
      (all) => all.some((n) => n.waitId === waitId),
    );
    return notes.find((n) => n.waitId === waitId)!.edge;
  };
  const watch = (body: defs.EdgeWatch): Promise<void> => team.handle().signal(defs.watchEdgesSignal, body);

  // The call began, a task was created, then the watch arrived: that task wakes it.
  const callStartedAt = new Date().toISOString();
  await team.createTask({ subject: 'made while the watch was on its way' });
  await watch({ name: 'idler', waitId: 'from-call', kinds: ['task'], callStartedAt });
  const fromCall = await notified('from-call');
  expect(fromCall).toMatchObject({ kind: 'task', subject: 'taskCreated' });

  // A watch that does not say when its call began (as teammates sent before) counts from its arrival:
  // not the task above, but the one created after it (the signal lands before the next Update).
  await watch({ name: 'idler', waitId: 'from-arrival', kinds: ['task'] });
  await team.createTask({ subject: 'made after the watch arrived' });
  const fromArrival = await notified('from-arrival');
  expect(fromArrival).toMatchObject({ kind: 'task', subject: 'taskCreated' });
  expect(fromArrival.seq).toBeGreaterThan(fromCall.seq);

  // Since before its spawn idler's status changed twice or more: no news to idler. A peer's status is.
  await watch({ name: 'idler', waitId: 'own-status', kinds: ['status'], callStartedAt: beforeSpawn });
  await team.spawnTeammate({ name: 'peer', message: script(answer('idle')) as never });
  expect((await notified('own-status')).subject).toMatch(/^peer:/);
  await team.dispose();
});

test("long results stay within Temporal's payload limits: old results are elided from the prompt, the turn completes", async () => {
  fs.writeFileSync(path.join(env.worker.checkoutRoot, 'big.txt'), `${'y'.repeat(89)}\n`.repeat(1_000));
  // 25 reads of 90 kB: without the prompt size limit the next model call's input would be ~2.3 MB,
  // over the server's 2 MB payload limit.
  const team = await startAgentTeam(env.client, env.worker.taskQueue, {
    prompt: scriptText(...Array.from({ length: 25 }, () => tool('read_file', { path: 'big.txt' })), answer('read it all')),
  });
  const lead = await answered(team);
  expect(lead.finalAnswer).toBe('read it all');
  expect(lead.conversation.filter((e) => e.role === 'tool' && e.ok)).toHaveLength(25);
  const history = await team.handle().fetchHistory();
  const inputs = (history.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.input?.payloads ?? []);
  for (const payload of inputs) expect(payload.data?.length ?? 0).toBeLessThan(1_000_000);
  await team.dispose();
});

test("subagent_fork starts the subagent with the Lead's completed turns, not the current one", async () => {
  const teamId = uniqueId('solo-fork');
  const team = await startAgentTeam(
    env.client,
    env.worker.taskQueue,
    { prompt: scriptText(tool('read_file', { path: 'missing.txt' }), answer('first turn done')) },
    { teamId },
  );
  await answered(team);
  await team.update(defs.promptLeadUpdate, {
    content: scriptText(tool('subagent_fork', { prompt: scriptText(answer('forked answer')) }), answer('second turn done')),
  });
  const lead = await eventually(
    () => agentState(team),
    (v) => v.finalAnswer === 'second turn done',
    60_000,
  );
  const result = lead.conversation.filter((e) => e.toolName === 'subagent_fork').map((e) => toolResult(e));
  expect(result).toEqual([{ agentId: `${teamId}/subagent/1`, turn: 1, answer: 'forked answer' }]);
  const sub = await env.client.workflow.getHandle(`${teamId}/subagent/1`).query(defs.getTeammateStateQuery);
  const seed = sub.conversation.slice(
    0,
    sub.conversation.findIndex((e) => e.messageId === `${teamId}/subagent/1/initial`),
  );
  expect(seed.length).toBeGreaterThan(0);
  expect(seed.every((e) => e.turn === 1)).toBe(true); // the Lead's turn 1 only
  expect(seed.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  await team.dispose();
  expect((await env.client.workflow.getHandle(`${teamId}/subagent/1`).describe()).status.name).not.toBe('RUNNING'); // disposal stops open subagents
});
