/**
 * The Lead's pure core (shared/lead): one state value changed only by `applyLead`, the decide
 * functions validators run, the required-work step, and the board's size limit computed without
 * applying the command to the whole board. No server.
 */
import fc from 'fast-check';
import { jsonBytes } from '../../shared/contract/limits';
import type { LeadEvent, LeadState } from '../../shared/lead';
import {
  MAX_COMPLETION_NUDGES,
  RECENT_UPDATE_WINDOW,
  applyLead,
  applyLeadAll,
  busyMembers,
  decideSettle,
  decideSpawnTeammate,
  decideStatusReport,
  decideUnwatch,
  decideWatch,
  dueNotifications,
  emptyLeadState,
  nextStepAfterReply,
  REQUIRED_WORK_WAIT_MS,
  parseSpawn,
  rememberedResult,
  upgradeCarriedLeadState,
} from '../../shared/lead';
import type { TeamState } from '../../shared/team';
import { apply, applyAll, boardFullProblem, decideTask, emptyTeamState } from '../../shared/team';
import type { TaskCommand } from '../../shared/contract/taskCommands';
import { LEAD } from '../../shared/contract/callers';

const NOW = '2026-11-30T00:00:00.000Z';

function withActiveMember(name: string, state: LeadState = emptyLeadState('t', 8)): LeadState {
  const spawn = decideSpawnTeammate(state, parseSpawn({ caller: LEAD, name, message: 'start' }), NOW);
  if (!spawn.ok) throw new Error(spawn.rejection.message);
  const afterSpawn = applyLeadAll(state, spawn.events, NOW);
  const settle = decideSettle(afterSpawn, name, { phase: 'active' }, NOW, 100);
  if (!settle.ok) throw new Error('settle refused');
  return applyLeadAll(afterSpawn, settle.events, NOW);
}

describe('applyLead', () => {
  test('every Team event numbers one roster or task edge; mailbox and status events number theirs; bookkeeping events number none', () => {
    let state = withActiveMember('mate');
    expect(state.edges.recent.map((e) => [e.kind, e.subject])).toEqual([
      ['roster', 'memberProvisioning'],
      ['roster', 'memberActivated'],
    ]);
    const seq = state.edges.lastSeq;
    state = applyLead(state, { type: 'relayBegun', to: 'mate', bytes: 10 }, NOW);
    state = applyLead(state, { type: 'updateRemembered', updateId: 'u1', result: { ok: 1 } }, NOW);
    state = applyLead(state, { type: 'leadInboxTaken' }, NOW);
    expect(state.edges.lastSeq).toBe(seq);
    state = applyLead(state, { type: 'messageRelayed', messageId: 'm1' }, NOW);
    state = applyLead(state, { type: 'leadStatusChanged', status: 'waiting' }, NOW);
    state = applyLead(state, { type: 'memberStatusReported', name: 'mate', status: 'running' }, NOW);
    state = applyLead(state, { type: 'memberStatusReported', name: 'mate', status: 'running' }, NOW); // unchanged: no edge
    expect(state.edges.recent.slice(-3).map((e) => [e.kind, e.subject])).toEqual([
      ['mailbox', 'm1'],
      ['status', 'lead:waiting'],
      ['status', 'mate:running'],
    ]);
  });

  test('returns a new value and never changes the one it was given', () => {
    const before = withActiveMember('mate');
    const frozen = JSON.stringify(before);
    const events: LeadEvent[] = [
      { type: 'relayBegun', to: 'mate', bytes: 5 },
      { type: 'relayAbandoned', to: 'mate', bytes: 5 },
      { type: 'leadMailReceived', message: { messageId: 'x', from: 'mate', content: 'hi', sentAt: NOW } },
      { type: 'watchRegistered', name: 'mate', waitId: 'w', kinds: ['task'] },
      { type: 'watchCleared', name: 'mate' },
      { type: 'memberStopped', name: 'mate', at: NOW },
    ];
    let state = before;
    for (const event of events) {
      const next = applyLead(state, event, NOW);
      expect(next).not.toBe(state);
      state = next;
    }
    expect(JSON.stringify(before)).toBe(frozen);
    expect(state.liveStatus.mate).toBe('exited'); // a stopped member's child has exited
  });

  test('an active member opens its inbox with the initial message as relay 1, once', () => {
    const state = withActiveMember('mate');
    expect(state.delivered.mate).toBe(1);
    expect(state.unsettledBytes.mate).toEqual([100]);
    expect(state.liveStatus.mate).toBe('starting');
    // Settling again (creator and recovery both report) changes nothing.
    const again = decideSettle(state, 'mate', { phase: 'active' }, NOW, 999);
    expect(again).toEqual({ ok: true, events: [] });
    // The other way is a conflict for the creator to resolve.
    expect(decideSettle(state, 'mate', { phase: 'failed', reason: 'x' }, NOW)).toEqual({ ok: false, conflict: true });
  });

  test('remembered Updates: small results whole, large task results as the task id, the newest window only, over-long ids never', () => {
    let state = emptyLeadState('t', 8);
    state = applyLead(state, { type: 'updateRemembered', updateId: 'small', result: { n: 1 } }, NOW);
    expect(rememberedResult(state, 'small')).toEqual({ n: 1 });
    state = applyLead(state, { type: 'updateRemembered', updateId: 'x'.repeat(1_000), result: { n: 2 } }, NOW);
    expect(rememberedResult(state, 'x'.repeat(1_000))).toBeUndefined();
    const big = { task: { id: 7, revision: 3, description: 'd'.repeat(2_000) } };
    state = applyLead(state, { type: 'updateRemembered', updateId: 'big', result: big }, NOW);
    expect(state.recentUpdates.at(-1)).toEqual({ updateId: 'big', taskId: 7, revision: 3 });
    expect(() => rememberedResult(state, 'big')).toThrow(/task 7/); // forgotten task: TaskNotFound, never a stale copy
    for (let i = 0; i < RECENT_UPDATE_WINDOW; i += 1) state = applyLead(state, { type: 'updateRemembered', updateId: `u${i}`, result: i }, NOW);
    expect(state.recentUpdates).toHaveLength(RECENT_UPDATE_WINDOW);
    expect(rememberedResult(state, 'small')).toBeUndefined();
  });
});

describe('signals decide, never refuse', () => {
  test('a status report from a non-member and an unwatch for another wait are ignored, with the reason', () => {
    const state = withActiveMember('mate');
    expect(decideStatusReport(state, { name: 'stranger', status: 'idle' })).toEqual({ ok: false, ignored: 'nonMember' });
    expect(decideStatusReport(state, { name: '__proto__', status: 'idle' })).toEqual({ ok: false, ignored: 'nonMember' });
    const watched = applyLeadAll(state, (decideWatch(state, { name: 'mate', waitId: 'w1' }) as { events: LeadEvent[] }).events, NOW);
    expect(watched.watchers.mate).toEqual({ waitId: 'w1', kinds: ['roster', 'mailbox', 'task', 'status'], since: state.edges.lastSeq });
    expect(decideUnwatch(watched, 'mate', 'w2')).toEqual({ ok: false, ignored: 'unknownKey' });
    expect(decideWatch(state, { name: 'ghost', waitId: 'w' })).toEqual({ ok: false, ignored: 'nonMember' });
  });

  test('a watch is due at the first edge of its kinds after it was registered', () => {
    let state = withActiveMember('mate');
    state = applyLeadAll(state, (decideWatch(state, { name: 'mate', waitId: 'w', kinds: ['mailbox'] }) as { events: LeadEvent[] }).events, NOW);
    state = applyLead(state, { type: 'leadStatusChanged', status: 'running' }, NOW);
    expect(dueNotifications(state)).toEqual([]);
    state = applyLead(state, { type: 'messageRelayed', messageId: 'm' }, NOW);
    expect(dueNotifications(state)).toEqual([
      expect.objectContaining({ name: 'mate', waitId: 'w', edge: expect.objectContaining({ kind: 'mailbox', subject: 'm' }) }),
    ]);
  });

  test('a watch that says when its call began is due at an edge recorded since then, even before the watch arrived, but not at its own status', () => {
    const at = (second: number): string => new Date(Date.parse(NOW) + second * 1_000).toISOString();
    let state = withActiveMember('peer', withActiveMember('mate'));
    state = applyLead(state, { type: 'messageRelayed', messageId: 'before-the-call' }, at(1));
    state = applyLead(state, { type: 'memberStatusReported', name: 'mate', status: 'running' }, at(3));
    const beforeWatch = state;
    state = applyLead(state, { type: 'memberStatusReported', name: 'peer', status: 'running' }, at(4));
    const watch = (from: LeadState, callStartedAt?: string): LeadState =>
      applyLeadAll(
        from,
        (decideWatch(from, { name: 'mate', waitId: 'w', ...(callStartedAt ? { callStartedAt } : {}) }) as { events: LeadEvent[] }).events,
        at(5),
      );
    expect(dueNotifications(watch(state, at(2)))).toEqual([
      expect.objectContaining({ name: 'mate', edge: expect.objectContaining({ kind: 'status', subject: 'peer:running' }) }),
    ]);
    // Only its own status since the call began: nothing yet.
    expect(dueNotifications(watch(beforeWatch, at(2)))).toEqual([]);
    // A watch without its call's start (sent before teammates said it) sees only what comes after it.
    expect(dueNotifications(watch(state))).toEqual([]);
  });
});

describe('delivery accounting, against a model of per-member counters', () => {
  type Step = { kind: 'relay'; bytes: number } | { kind: 'abandon' } | { kind: 'report'; settled: number; status: 'running' | 'idle' };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('relay' as const), bytes: fc.integer({ min: 0, max: 1_000 }) }),
    fc.constant({ kind: 'abandon' as const }),
    fc.record({ kind: fc.constant('report' as const), settled: fc.integer({ min: 0, max: 30 }), status: fc.constantFrom('running' as const, 'idle' as const) }),
  );

  test('busy iff running or relayed more than settled; unsettled bytes are exactly the relays after the settled count', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let state = withActiveMember('mate');
        // The model: every relay in order (bytes), how many the member settled, and what it said last.
        const relays: number[] = [100];
        let settled = 0;
        let status = 'starting';
        for (const s of steps) {
          if (s.kind === 'relay') {
            state = applyLead(state, { type: 'relayBegun', to: 'mate', bytes: s.bytes }, NOW);
            relays.push(s.bytes);
          } else if (s.kind === 'abandon') {
            // Only the newest relay can fail (its signal is awaited before the next one starts).
            if (relays.length <= settled || relays.length === 0) continue;
            state = applyLead(state, { type: 'relayAbandoned', to: 'mate', bytes: relays.at(-1)! }, NOW);
            relays.pop();
          } else {
            const report = Math.min(s.settled, relays.length);
            state = applyLeadAll(
              state,
              (decideStatusReport(state, { name: 'mate', status: s.status, settled: report }) as { events: LeadEvent[] }).events,
              NOW,
            );
            settled = Math.max(settled, report);
            status = s.status;
          }
        }
        expect(state.delivered.mate).toBe(relays.length);
        expect(state.unsettledBytes.mate).toEqual(relays.slice(settled));
        expect(busyMembers(state)).toEqual(status === 'running' || status === 'starting' || relays.length > settled ? ['mate'] : []);
      }),
    );
  });
});

describe('the required-work step', () => {
  const busyTeam = (): LeadState => withActiveMember('mate'); // starting, initial message unsettled
  const idleTeam = (): LeadState =>
    applyLeadAll(busyTeam(), (decideStatusReport(busyTeam(), { name: 'mate', status: 'idle', settled: 1 }) as { events: LeadEvent[] }).events, NOW);
  const withOpenTask = (state: LeadState): LeadState => {
    const decision = decideTask(
      state.team,
      { kind: 'createTask', subject: 'open', description: '', dependencies: [], writeScopes: [] },
      { caller: LEAD, now: NOW },
    );
    return applyLeadAll(state, (decision as { events: LeadEvent[] }).events, NOW);
  };

  test('mail first, then busy teammates (a wait, then a note once it runs out), then open tasks a bounded number of times, then the answer', () => {
    const mail = applyLead(busyTeam(), { type: 'leadMailReceived', message: { messageId: 'm', from: 'mate', content: 'done', sentAt: NOW } }, NOW);
    expect(nextStepAfterReply(mail, 0, true)).toEqual({ kind: 'turn' });
    expect(nextStepAfterReply(busyTeam(), 0, false)).toEqual({ kind: 'wait', busy: ['mate'] });
    expect(nextStepAfterReply(busyTeam(), 0, true)).toMatchObject({
      kind: 'nudge',
      countsAgainstNudgeLimit: false,
      content: { event: 'teammates are still busy', busy: ['mate'], waitedMs: REQUIRED_WORK_WAIT_MS },
    });
    // A Lead started with its own required-work wait is told that wait's length.
    expect(nextStepAfterReply(busyTeam(), 0, true, 5_000)).toMatchObject({ kind: 'nudge', content: { waitedMs: 5_000 } });
    const open = withOpenTask(idleTeam());
    expect(nextStepAfterReply(open, 0, false)).toMatchObject({ kind: 'nudge', countsAgainstNudgeLimit: true, content: { openTasks: [1] } });
    expect(nextStepAfterReply(open, MAX_COMPLETION_NUDGES, false)).toEqual({ kind: 'answer', openTasks: [1] });
    expect(nextStepAfterReply(idleTeam(), 0, false)).toEqual({ kind: 'answer', openTasks: [] });
  });
});

describe('the board size limit, computed from the one task a command touches', () => {
  const tasks = fc.array(
    fc.record({ subject: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0), description: fc.string({ maxLength: 300 }) }),
    { maxLength: 12 },
  );

  test('equals the size of the whole board after applying the command', () => {
    fc.assert(
      fc.property(tasks, fc.string({ maxLength: 500 }), fc.boolean(), (created, text, edit) => {
        let team: TeamState = emptyTeamState('t');
        for (const t of created) {
          const d = decideTask(
            team,
            { kind: 'createTask', subject: t.subject, description: t.description, dependencies: [], writeScopes: [] },
            { caller: LEAD, now: NOW },
          );
          if (d.ok) team = applyAll(team, d.events);
        }
        const command: TaskCommand =
          edit && team.nextTaskId > 1
            ? { kind: 'editTask', taskId: 1, expectedRevision: 1, description: text }
            : { kind: 'createTask', subject: 'next', description: text, dependencies: [], writeScopes: [] };
        const decision = decideTask(team, command, { caller: LEAD, now: NOW });
        if (!decision.ok) return;
        const exact = jsonBytes(decision.events.reduce(apply, team).tasks);
        // With the limit at exactly that size the command fits; one byte less and it does not.
        expect(boardFullProblem(team, command, decision.events, exact)).toBeNull();
        expect(boardFullProblem(team, command, decision.events, exact - 1)).toMatch(new RegExp(`board to ${exact} bytes`));
      }),
    );
  });
});

test('a carried state from a run that carried the Team as `state` is upgraded; the current shape is carried as it is', () => {
  const current = withActiveMember('mate');
  expect(upgradeCarriedLeadState(current)).toBe(current);
  const { team, delivered: _d, consumed: _c, settled: _s, unsettledBytes: _u, watchers: _w, ...rest } = current;
  const upgraded = upgradeCarriedLeadState({ ...rest, state: team });
  expect(upgraded).toEqual({ ...current, delivered: {}, consumed: {}, settled: {}, unsettledBytes: {}, watchers: {} });
});
