/** Pure rules of issue 3: roster decisions, inbox de-duplication, JSON inspection, wait edges. */
import fc from 'fast-check';
import { emptyInbox, receive, SEEN_WINDOW, takePending } from '../../shared/team/inbox';
import { jsonProblem } from '../../shared/contract/json';
import {
  applyAll,
  decideCloseAdmission,
  decideProvisioningOutcome,
  decideSend,
  decideSpawn,
  decideStopped,
  emptyTeamState,
  type Decision,
  type TeamState,
} from '../../shared/team';
import { emptyEdgeLog, EDGE_WINDOW, firstEdgeAfter, recordEdge, seqBefore } from '../../shared/team/edges';
import type { InboxMessage } from '../../shared/contract/team';
import type { EdgeKind } from '../../shared/contract/vocabulary';

const now = '2026-11-29T00:00:00.000Z';
const lead = { caller: 'lead', now };

function commit(state: TeamState, decision: Decision): TeamState {
  if (!decision.ok) throw new Error(`${decision.rejection.type}: ${decision.rejection.message}`);
  return applyAll(state, decision.events);
}
function rejectionType(decision: Decision): string | undefined {
  return decision.ok ? undefined : decision.rejection.type;
}
function spawn(state: TeamState, name: string): TeamState {
  return commit(state, decideSpawn(state, { name, context: 'fresh', model: null }, lead));
}

describe('roster', () => {
  test('spawn records provisioning with the reserved workflow id; only the Lead spawns', () => {
    const state = spawn(emptyTeamState('t1'), 'api-writer');
    expect(state.members['api-writer']).toMatchObject({ phase: 'provisioning', workflowId: 't1/teammate/api-writer', revision: 1 });
    expect(rejectionType(decideSpawn(state, { name: 'other', context: 'fresh', model: null }, { caller: 'api-writer', now }))).toBe('LeadOnly');
  });

  test.each([['Upper'], ['under_score'], ['-leading'], ['trailing-'], ['double--dash'], ['lead'], [''], ['x'.repeat(41)]])('rejects the name %j', (name) => {
    expect(rejectionType(decideSpawn(emptyTeamState('t'), { name, context: 'fresh', model: null }, lead))).toBe('InvalidMemberName');
  });

  test('a failed name stays reserved and keeps its slot', () => {
    let state = spawn(emptyTeamState('t', 2), 'bob');
    state = commit(state, decideProvisioningOutcome(state, 'bob', { phase: 'failed', reason: 'start failed' }, now));
    expect(state.members.bob).toMatchObject({ phase: 'failed', failure: 'start failed' });
    expect(rejectionType(decideSpawn(state, { name: 'bob', context: 'fresh', model: null }, lead))).toBe('MemberNameTaken');
    state = spawn(state, 'carol');
    expect(rejectionType(decideSpawn(state, { name: 'dave', context: 'fresh', model: null }, lead))).toBe('RosterFull');
  });

  test('settling is idempotent for the same outcome and a conflict for the other', () => {
    let state = spawn(emptyTeamState('t'), 'bob');
    state = commit(state, decideProvisioningOutcome(state, 'bob', { phase: 'active' }, now));
    expect(decideProvisioningOutcome(state, 'bob', { phase: 'active' }, now)).toEqual({ ok: true, events: [] });
    expect(rejectionType(decideProvisioningOutcome(state, 'bob', { phase: 'failed', reason: 'x' }, now))).toBe('ProvisioningConflict');
    expect(rejectionType(decideProvisioningOutcome(state, 'nobody', { phase: 'active' }, now))).toBe('UnknownMember');
  });

  test('sends: members to the Lead or live teammates, nothing after admission closes', () => {
    let state = spawn(emptyTeamState('t'), 'bob');
    state = commit(state, decideProvisioningOutcome(state, 'bob', { phase: 'active' }, now));
    expect(decideSend(state, 'lead', 'bob').ok).toBe(true);
    expect(decideSend(state, 'bob', 'lead').ok).toBe(true);
    expect(rejectionType(decideSend(state, 'mallory', 'bob'))).toBe('NotATeamMember');
    expect(rejectionType(decideSend(state, 'lead', 'zed'))).toBe('UnknownMember');
    const stopped = commit(state, decideStopped(state, 'bob', now));
    expect(rejectionType(decideSend(stopped, 'lead', 'bob'))).toBe('UnknownMember');
    const closed = commit(state, decideCloseAdmission(state, now));
    expect(closed.admission).toBe('closed');
    expect(rejectionType(decideSend(closed, 'lead', 'bob'))).toBe('TeamAdmissionClosed');
    expect(rejectionType(decideSpawn(closed, { name: 'new', context: 'fresh', model: null }, lead))).toBe('TeamAdmissionClosed');
    expect(decideCloseAdmission(closed, now)).toEqual({ ok: true, events: [] });
  });
});

describe('inbox', () => {
  const message = (id: string): InboxMessage => ({ messageId: id, from: 'lead', content: id, sentAt: now });

  test('each message id is recorded once, in arrival order, and taken whole by a turn', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 40 }), (ids) => {
        let inbox = emptyInbox();
        for (const id of ids) inbox = receive(inbox, message(id)).inbox;
        const distinct = [...new Set(ids)];
        expect(inbox.pending.map((m) => m.messageId)).toEqual(distinct);
        expect(inbox.received).toBe(distinct.length);
        const taken = takePending(inbox);
        expect(taken.messages).toHaveLength(distinct.length);
        expect(taken.inbox.pending).toEqual([]);
        expect(taken.inbox.consumed).toBe(distinct.length);
        expect(receive(taken.inbox, message(ids[0] ?? 'a')).duplicate).toBe(ids.length > 0);
      }),
    );
  });

  test('the id window is bounded', () => {
    let inbox = emptyInbox();
    for (let i = 0; i < SEEN_WINDOW + 10; i++) inbox = takePending(receive(inbox, message(`m${i}`)).inbox).inbox;
    expect(inbox.seen).toHaveLength(SEEN_WINDOW);
    expect(inbox.seen[0]).toBe('m10');
  });
});

describe('JSON content inspection', () => {
  test('accepts decoded JSON, including an own __proto__ key, without changing it', () => {
    const content = JSON.parse('{"__proto__":{"x":1},"a":[1,"two",null,true,{"b":2.5}]}') as unknown;
    const before = JSON.stringify(content);
    expect(jsonProblem(content)).toBeNull();
    expect(JSON.stringify(content)).toBe(before);
  });

  test.each([
    [undefined, 'undefined is not JSON'],
    [Number.NaN, 'numbers must be finite'],
    [new Date(0), 'objects must be plain JSON objects'],
    [{ f: () => 1 }, 'f: function is not JSON'],
  ])('rejects %p', (value, reason) => {
    expect(jsonProblem(value)).toBe(reason);
  });

  test('rejects content nested too deeply', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(jsonProblem(deep)).toMatch(/deeper than/);
  });
});

describe('wait edges', () => {
  test('edges are numbered in order, filtered by kind, and never replayed from before the wait', () => {
    let log = emptyEdgeLog();
    log = recordEdge(log, 'task', 'taskCreated', now);
    const since = log.lastSeq;
    expect(firstEdgeAfter(log, since, ['task'])).toBeUndefined();
    log = recordEdge(log, 'status', 'bob:running', now);
    expect(firstEdgeAfter(log, since, ['task'])).toBeUndefined();
    log = recordEdge(log, 'task', 'taskClaimed', now);
    expect(firstEdgeAfter(log, since, ['task'])).toMatchObject({ seq: 3, subject: 'taskClaimed' });
    expect(firstEdgeAfter(log, since, ['task', 'status'])).toMatchObject({ seq: 2 });
    for (let i = 0; i < EDGE_WINDOW + 5; i++) log = recordEdge(log, 'mailbox', `m${i}`, now);
    expect(log.recent).toHaveLength(EDGE_WINDOW);
    expect(log.lastSeq).toBe(3 + EDGE_WINDOW + 5);
  });

  test('a wait from a moment sees the edges recorded at or after it that are still in the window, and a watcher passes over its own status', () => {
    const at = (second: number): string => new Date(Date.parse(now) + second * 1_000).toISOString();
    let log = recordEdge(emptyEdgeLog(), 'task', 'taskCreated', at(1));
    log = recordEdge(log, 'status', 'bob:running', at(3));
    log = recordEdge(log, 'status', 'bobby:idle', at(4));
    log = recordEdge(log, 'task', 'taskClaimed', at(5));
    expect(seqBefore(log, at(2))).toBe(1);
    expect(seqBefore(log, at(3))).toBe(1); // an edge at the very moment counts
    expect(seqBefore(log, at(9))).toBe(log.lastSeq); // nothing since: only what comes next
    expect(seqBefore(log, 'not a time')).toBe(log.lastSeq);
    expect(firstEdgeAfter(log, seqBefore(log, at(2)), ['task', 'status'])).toMatchObject({ subject: 'bob:running' });
    // bob's own status is no news to bob; bobby's is (a name that only starts the same is not bob's).
    expect(firstEdgeAfter(log, seqBefore(log, at(2)), ['task', 'status'], 'bob')).toMatchObject({ subject: 'bobby:idle' });
    expect(firstEdgeAfter(log, seqBefore(log, at(2)), ['task'], 'bob')).toMatchObject({ subject: 'taskClaimed' });
    // Past the window the oldest edge still kept is the first a wait from an older moment sees.
    for (let i = 0; i < EDGE_WINDOW; i++) log = recordEdge(log, 'mailbox', `m${i}`, at(10 + i));
    expect(seqBefore(log, at(0))).toBe(log.recent[0]!.seq - 1);
  });

  test('against a model: a wait from a moment wakes on the first kept edge since then of its kinds, never on its own status', () => {
    const kinds: EdgeKind[] = ['roster', 'mailbox', 'task', 'status'];
    const edge = fc.record({
      kind: fc.constantFrom(...kinds),
      owner: fc.constantFrom('me', 'peer'),
      gapMs: fc.integer({ min: 0, max: 5 }),
    });
    fc.assert(
      fc.property(
        fc.array(edge, { maxLength: EDGE_WINDOW * 2 }),
        fc.integer({ min: 0, max: 400 }),
        fc.subarray(kinds, { minLength: 1 }),
        (edges, fromMs, wanted) => {
          let log = emptyEdgeLog();
          let ms = 0;
          const all: { seq: number; kind: EdgeKind; subject: string; atMs: number }[] = [];
          for (const e of edges) {
            ms += e.gapMs;
            const subject = e.kind === 'status' ? `${e.owner}:idle` : `${e.owner}-${all.length}`;
            log = recordEdge(log, e.kind, subject, new Date(Date.parse(now) + ms).toISOString());
            all.push({ seq: all.length + 1, kind: e.kind, subject, atMs: ms });
          }
          const kept = all.slice(-EDGE_WINDOW);
          const expected = kept.find((e) => e.atMs >= fromMs && wanted.includes(e.kind) && e.subject !== 'me:idle');
          const woke = firstEdgeAfter(log, seqBefore(log, new Date(Date.parse(now) + fromMs).toISOString()), wanted, 'me');
          expect(woke?.seq).toBe(expected?.seq);
        },
      ),
    );
  });
});
