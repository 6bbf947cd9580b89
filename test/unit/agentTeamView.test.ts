/**
 * The agentTeam wire projection (shared/projection): which Lead events publish a new view and
 * which keep the view reference, what each view part is rebuilt from, and the refused-operation
 * report that is shown beside the state it left unchanged. No server.
 */
import type { AgentStatus } from '../../shared/contract';
import type { LeadEvent, LeadEventType, LeadState } from '../../shared/lead';
import { applyLead, applyLeadAll, decideRejectionReport, decideSettle, decideSpawnTeammate, emptyLeadState, parseSpawn } from '../../shared/lead';
import { AgentTeamProjector, projectionInputs } from '../../shared/projection/agentTeamView';
import { decideTask } from '../../shared/team';
import { NO_USAGE } from '../../shared/agent/usage';
import { LEAD } from '../../shared/contract';

const NOW = '2026-12-01T00:00:00.000Z';
const OPERATIONS: ReadonlySet<string> = new Set(['claimTask', 'sendMessage']);

/** A Team with an active member "mate" and one task owned by nobody. */
function teamWithMateAndTask(): LeadState {
  let state = emptyLeadState('t', 8);
  const spawn = decideSpawnTeammate(state, parseSpawn({ caller: LEAD, name: 'mate', message: 'start', model: 'gpt-x' }), NOW);
  if (!spawn.ok) throw new Error(spawn.rejection.message);
  state = applyLeadAll(state, spawn.events, NOW);
  const settle = decideSettle(state, 'mate', { phase: 'active' }, NOW, 100);
  if (!settle.ok) throw new Error('settle refused');
  state = applyLeadAll(state, settle.events, NOW);
  const create = decideTask(
    state.team,
    { kind: 'createTask', subject: 'parse', description: '', dependencies: [], writeScopes: ['src/'] },
    { caller: LEAD, now: NOW },
  );
  if (!create.ok) throw new Error(create.rejection.message);
  return applyLeadAll(state, create.events, NOW);
}

type Expectation = 'keeps' | 'publishes';
/** One example of every Lead event kind, and whether the view must change. The Record type makes a new kind fail to compile here. */
const EVERY_EVENT: Record<LeadEventType, { event: LeadEvent; view: Expectation; leadStatus?: AgentStatus }> = {
  taskCreated: {
    event: { type: 'taskCreated', taskId: 2, subject: 'two', description: '', dependencies: [], writeScopes: [], createdBy: LEAD, at: NOW },
    view: 'publishes',
  },
  taskEdited: { event: { type: 'taskEdited', taskId: 1, changes: { subject: 'parse v2' }, at: NOW }, view: 'publishes' },
  taskClaimed: { event: { type: 'taskClaimed', taskId: 1, owner: 'mate', at: NOW }, view: 'publishes' },
  taskAssigned: { event: { type: 'taskAssigned', taskId: 1, owner: 'mate', at: NOW }, view: 'publishes' },
  taskReleased: { event: { type: 'taskReleased', taskId: 1, at: NOW }, view: 'publishes' },
  taskStatusChanged: { event: { type: 'taskStatusChanged', taskId: 1, status: 'completed', at: NOW }, view: 'publishes' },
  taskDeleted: { event: { type: 'taskDeleted', taskId: 1, at: NOW }, view: 'publishes' },
  memberProvisioning: {
    event: { type: 'memberProvisioning', name: 'other', context: 'fresh', workflowId: 't/teammate/other', model: null, at: NOW },
    view: 'publishes',
  },
  memberActivated: { event: { type: 'memberActivated', name: 'mate', at: NOW }, view: 'publishes' },
  memberFailed: { event: { type: 'memberFailed', name: 'mate', reason: 'gone', at: NOW }, view: 'publishes' },
  memberStopped: { event: { type: 'memberStopped', name: 'mate', at: NOW }, view: 'publishes' },
  admissionClosed: { event: { type: 'admissionClosed', at: NOW }, view: 'publishes' },
  leadMailReceived: { event: { type: 'leadMailReceived', message: { messageId: 'm', from: 'mate', content: 'hi', sentAt: NOW } }, view: 'keeps' },
  leadInboxTaken: { event: { type: 'leadInboxTaken' }, view: 'keeps' },
  memberInboxOpened: { event: { type: 'memberInboxOpened', name: 'mate', initialMessageBytes: 10 }, view: 'keeps' },
  relayBegun: { event: { type: 'relayBegun', to: 'mate', bytes: 10 }, view: 'keeps' },
  relayAbandoned: { event: { type: 'relayAbandoned', to: 'mate', bytes: 10 }, view: 'keeps' },
  messageRelayed: { event: { type: 'messageRelayed', messageId: 'm' }, view: 'keeps' },
  memberStatusReported: { event: { type: 'memberStatusReported', name: 'mate', status: 'running' }, view: 'publishes' },
  leadStatusChanged: { event: { type: 'leadStatusChanged', status: 'waiting' }, view: 'publishes', leadStatus: 'waiting' },
  watchRegistered: { event: { type: 'watchRegistered', name: 'mate', waitId: 'w', kinds: ['task'] }, view: 'keeps' },
  watchCleared: { event: { type: 'watchCleared', name: 'mate' }, view: 'keeps' },
  updateRemembered: { event: { type: 'updateRemembered', updateId: 'u', result: { ok: true } }, view: 'keeps' },
  budgetSet: { event: { type: 'budgetSet', name: 'mate', limits: { calls: 3 } }, view: 'keeps' },
  memberUsageReported: { event: { type: 'memberUsageReported', name: 'mate', usage: { ...NO_USAGE, calls: 2 } }, view: 'keeps' },
  operationRejected: {
    event: { type: 'operationRejected', failure: { operation: 'claimTask', caller: 'mate', type: 'TaskRevisionConflict', message: 'stale', at: NOW } },
    view: 'publishes',
  },
};

describe('agentTeam projection', () => {
  test.each(Object.entries(EVERY_EVENT))('%s: mailbox-only events keep the view reference and publish nothing; Team events publish', (_kind, example) => {
    const before = teamWithMateAndTask();
    const projector = new AgentTeamProjector();
    const first = projector.view(projectionInputs(before, 'running', null));
    expect(projector.view(projectionInputs(before, 'running', null))).toBe(first);
    const after = applyLead(before, example.event, NOW);
    const next = projector.view(projectionInputs(after, example.leadStatus ?? 'running', null));
    if (example.view === 'keeps') {
      expect(next).toBe(first);
    } else {
      expect(next).not.toBe(first);
      expect(JSON.stringify(next)).not.toBe(JSON.stringify(first));
    }
  });

  test('a task event replaces only the board; a member event replaces only the roster and models; the Lead row follows the Lead agent', () => {
    const state = teamWithMateAndTask();
    const projector = new AgentTeamProjector();
    const first = projector.view(projectionInputs(state, 'running', null));

    const claimed = projector.view(projectionInputs(applyLead(state, EVERY_EVENT.taskClaimed.event, NOW), 'running', null));
    expect(claimed.tasks).not.toBe(first.tasks);
    expect(claimed.tasks[0]).toMatchObject({ id: 1, owner: 'mate', status: 'in_progress', ready: false });
    expect(claimed.members).toBe(first.members);
    expect(claimed.models).toBe(first.models);

    const projector2 = new AgentTeamProjector();
    const base = projector2.view(projectionInputs(state, 'running', null));
    const afterFailure = applyLead(state, EVERY_EVENT.memberFailed.event, NOW);
    const failed = projector2.view(projectionInputs(afterFailure, 'running', null));
    expect(failed.members).not.toBe(base.members);
    expect(failed.members[0]).toMatchObject({ name: 'mate', phase: 'failed', failure: 'gone', model: 'gpt-x' });
    expect(failed.tasks).toBe(base.tasks);

    const answered = projector2.view(projectionInputs(afterFailure, 'answered', 'done'));
    expect(answered.lead).toEqual({ name: LEAD, role: 'lead', phase: 'active', status: 'answered', answer: 'done' });
    expect(answered.members).toBe(failed.members);
    expect(answered.tasks).toBe(failed.tasks);
  });

  test('a missing value stays absent: no live status before one is known, no Lead status or answer without a Lead agent', () => {
    const empty = emptyLeadState('t', 8);
    const spawn = decideSpawnTeammate(empty, parseSpawn({ caller: LEAD, name: 'mate', message: 'start' }), NOW);
    if (!spawn.ok) throw new Error(spawn.rejection.message);
    const provisioning = applyLeadAll(empty, spawn.events, NOW);
    const view = new AgentTeamProjector().view(projectionInputs(provisioning, null, null));
    expect(view.lead).toEqual({ name: LEAD, role: 'lead', phase: 'active' });
    expect(view.members).toHaveLength(1);
    expect(view.members[0]).not.toHaveProperty('live');
    expect(view.members[0]).toMatchObject({ name: 'mate', phase: 'provisioning', model: null });
    const reported = applyLead(provisioning, { type: 'memberStatusReported', name: 'mate', status: 'running' }, NOW);
    expect(new AgentTeamProjector().view(projectionInputs(reported, null, null)).members[0]).toHaveProperty('live', 'running');
  });
});

describe('what a view costs a browser', () => {
  test('a complete view of 8 members and 50 tasks is about 21 KB (the README quotes this)', () => {
    let state = emptyLeadState('team-example', 8);
    for (let i = 0; i < 8; i++) {
      const name = `mate-${i}`;
      const spawn = decideSpawnTeammate(state, parseSpawn({ caller: LEAD, name, message: 'go' }), NOW);
      if (!spawn.ok) throw new Error(spawn.rejection.message);
      state = applyLeadAll(state, spawn.events, NOW);
      const settle = decideSettle(state, name, { phase: 'active' }, NOW, 10);
      if (!settle.ok) throw new Error('settle refused');
      state = applyLeadAll(state, settle.events, NOW);
    }
    for (let i = 0; i < 50; i++) {
      const command = {
        kind: 'createTask' as const,
        subject: `task number ${i} with a typical subject`,
        description: 'a description of moderate length, about one sentence.',
        dependencies: i > 0 ? [i] : [],
        writeScopes: [`src/module${i}`],
      };
      const create = decideTask(state.team, command, { caller: LEAD, now: NOW });
      if (!create.ok) throw new Error(create.rejection.message);
      state = applyLeadAll(state, create.events, NOW);
    }
    const view = new AgentTeamProjector().view(projectionInputs(state, 'running', null));
    const frameBytes = Buffer.byteLength(JSON.stringify({ view, closed: false, unreachable: null }));
    expect(frameBytes).toBeGreaterThan(19_000);
    expect(frameBytes).toBeLessThan(23_000);
  });
});

describe('refused operations reported by callers', () => {
  test('a report from the Lead or a member is shown beside the unchanged Team and numbers a failure edge', () => {
    const state = teamWithMateAndTask();
    const decision = decideRejectionReport(
      state,
      { caller: 'mate', operation: 'claimTask', type: 'TaskRevisionConflict', message: 'task 1 is at revision 2' },
      OPERATIONS,
      NOW,
    );
    if (!decision.ok) throw new Error('refused');
    const after = applyLeadAll(state, decision.events, NOW);
    expect(after.team).toBe(state.team);
    expect(after.lastFailure).toEqual({ caller: 'mate', operation: 'claimTask', type: 'TaskRevisionConflict', message: 'task 1 is at revision 2', at: NOW });
    expect(after.edges.recent.at(-1)).toMatchObject({ kind: 'failure', subject: 'claimTask:TaskRevisionConflict' });
    const view = new AgentTeamProjector().view(projectionInputs(after, null, null));
    expect(view.failure).toEqual(after.lastFailure);
    expect(view.tasks[0]).toMatchObject({ id: 1, owner: null, status: 'pending', revision: 1 });
  });

  test.each([
    ['a caller that is neither the Lead nor a member', { caller: 'stranger', operation: 'claimTask', type: 'TaskRevisionConflict' }, 'nonMember'],
    ['an operation the Lead does not have', { caller: LEAD, operation: 'dropDatabase', type: 'TaskRevisionConflict' }, 'unknownKey'],
    ['a type that is not a Team rejection', { caller: LEAD, operation: 'claimTask', type: 'Whatever' }, 'unknownKey'],
    ['an inherited property name as the operation', { caller: LEAD, operation: 'constructor', type: 'TaskRevisionConflict' }, 'unknownKey'],
    ['an inherited property name as the caller', { caller: '__proto__', operation: 'claimTask', type: 'TaskRevisionConflict' }, 'nonMember'],
  ])('%s is ignored', (_what, report, ignored) => {
    const decision = decideRejectionReport(teamWithMateAndTask(), { ...report, message: 'm' }, OPERATIONS, NOW);
    expect(decision).toEqual({ ok: false, ignored });
  });
});
