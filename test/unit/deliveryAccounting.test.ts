/**
 * Delivery accounting on the target's word, with the Lead's pure state (shared/lead) and a
 * teammate's in-run logic wired by hand (the same calls the workflows make, no server): the Lead counts a member busy while it
 * has relayed more messages than the member reports settled, and a member settles a relayed
 * message when it takes it into a turn or drops it (duplicate id, malformed, over the inbox's size limit).
 */
import type { TeammateInput } from '../../shared/contract';
import { rejectionFailure } from '../../shared/contract/failures';
import { MEMBER_INBOX_MAX_BYTES } from '../../shared/contract/limits';
import type { LeadDecision, LeadEvent, LeadState, SignalDecision } from '../../shared/lead';
import {
  applyLeadAll,
  busyMembers as busy,
  decideInboxRoom,
  decideSettle,
  decideSpawnTeammate,
  decideStatusReport,
  emptyLeadState,
  messageBytes,
  parseSpawn,
} from '../../shared/lead';
import { SessionRun } from '../../workflows/session/sessionRun';
import { hasPending, hasUnreportedSettlements } from '../../shared/session';

const NOW = '2026-11-30T00:00:00.000Z';

/** The Lead's state in a cell, changed only by applying what the decide functions return. */
class Lead {
  state: LeadState = emptyLeadState('t', 8);
  apply(decision: LeadDecision | SignalDecision | { ok: false; conflict: true }): void {
    if (!decision.ok) throw new Error(`refused: ${JSON.stringify(decision)}`);
    this.state = applyLeadAll(this.state, decision.events, NOW);
  }
  applyEvents(events: LeadEvent[]): void {
    this.state = applyLeadAll(this.state, events, NOW);
  }
  /** ops.send to a teammate: reserve the relay; its relaySeq is the new delivered count. */
  beginRelay(to: string, bytes: number): number {
    this.applyEvents([{ type: 'relayBegun', to, bytes }]);
    return this.state.delivered[to]!;
  }
  reportStatus(report: { name: string; status: 'running' | 'idle'; consumed: number; settled: number }): void {
    this.apply(decideStatusReport(this.state, report));
  }
  requireInboxRoom(to: string, bytes: number): void {
    const decision = decideInboxRoom(this.state, to, bytes);
    if (!decision.ok) throw rejectionFailure(decision.rejection);
  }
}
const busyMembers = (lead: Lead): string[] => busy(lead.state);

function team(): { lead: Lead; mate: SessionRun } {
  const lead = new Lead();
  lead.apply(decideSpawnTeammate(lead.state, parseSpawn({ caller: 'lead', name: 'mate', message: 'start' }), NOW));
  const member = lead.state.team.members.mate!;
  lead.apply(decideSettle(lead.state, 'mate', { phase: 'active' }, NOW, messageBytes('start')));
  const input: TeammateInput = {
    descriptor: { teamId: 't', name: 'mate', context: 'fresh', initialMessageId: `${member.workflowId}/initial` },
    model: null,
    seed: [],
    initialMessage: { messageId: `${member.workflowId}/initial`, from: 'lead', content: 'start', sentAt: NOW, relaySeq: 1 },
  };
  return { lead, mate: new SessionRun(input, 'teammate') };
}

/** The Lead relays (ops.send): reserve, then the target records the signal. */
function relay(lead: Lead, mate: SessionRun, messageId: string, content: unknown = 'hi'): void {
  const relaySeq = lead.beginRelay('mate', messageBytes(content as string));
  mate.deliver({ messageId, from: 'lead', content, sentAt: NOW, relaySeq });
}

/** The member's status report (session.ts's report()). */
function report(lead: Lead, mate: SessionRun, status: 'running' | 'idle'): void {
  mate.takeReport();
  lead.reportStatus({ name: 'mate', status, consumed: mate.state.inbox.consumed, settled: mate.state.settled });
}

test('a member that took every relayed message into a turn is not busy; one relayed since is', () => {
  const { lead, mate } = team();
  expect(busyMembers(lead)).toEqual(['mate']); // starting, initial message unsettled
  mate.beginTurn();
  report(lead, mate, 'running');
  mate.endTurn({ completed: true });
  report(lead, mate, 'idle');
  expect(busyMembers(lead)).toEqual([]);
  relay(lead, mate, 'm1');
  expect(busyMembers(lead)).toEqual(['mate']); // delivered, not yet taken, member still says idle
});

test('a duplicate message id dropped by the member is settled on its word: the Lead does not wait for it for ever', () => {
  const { lead, mate } = team();
  mate.beginTurn();
  mate.endTurn({ completed: true });
  report(lead, mate, 'idle');
  relay(lead, mate, 'same-id');
  mate.beginTurn();
  mate.endTurn({ completed: true });
  report(lead, mate, 'idle');
  expect(busyMembers(lead)).toEqual([]);
  relay(lead, mate, 'same-id'); // recorded before: dropped by the member
  expect(hasPending(mate.state)).toBe(false);
  expect(busyMembers(lead)).toEqual(['mate']);
  expect(hasUnreportedSettlements(mate.state)).toBe(true); // session.ts reports idle for it
  report(lead, mate, 'idle');
  expect(busyMembers(lead)).toEqual([]);
});

test('malformed and over-limit deliveries are settled too, and the Lead refuses what would overflow the inbox first', () => {
  const { lead, mate } = team();
  mate.beginTurn();
  mate.endTurn({ completed: true });
  report(lead, mate, 'idle');
  const relaySeq = lead.beginRelay('mate', 10);
  mate.deliver({ messageId: 'x'.repeat(500), from: 'lead', content: 1, sentAt: NOW, relaySeq }); // id too long: refused
  expect(mate.state.rejectedDeliveries).toHaveLength(1);
  report(lead, mate, 'idle');
  expect(busyMembers(lead)).toEqual([]);

  // The Lead counts unsettled bytes per member and says InboxFull before the member would refuse.
  const big = 'y'.repeat(100_000);
  relay(lead, mate, 'b1', big);
  relay(lead, mate, 'b2', big);
  let refusal: unknown;
  try {
    lead.requireInboxRoom('mate', messageBytes(big));
  } catch (error) {
    refusal = error;
  }
  expect(refusal).toMatchObject({ type: 'InboxFull' });
  expect(mate.state.rejectedDeliveries).toHaveLength(1); // nothing the Lead relayed was refused
  mate.beginTurn();
  report(lead, mate, 'running');
  expect(() => lead.requireInboxRoom('mate', messageBytes(big))).not.toThrow();
  expect(MEMBER_INBOX_MAX_BYTES).toBeLessThan(3 * messageBytes(big));
});
