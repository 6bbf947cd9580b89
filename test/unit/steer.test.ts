/**
 * Steer's pure part (shared/agent/steer.ts): what a running turn takes at a step boundary, and what
 * an interrupt before the next model call gives back. The model test drives deliveries, takes,
 * answered model calls and interrupts in any order: every message is in exactly one place (the
 * conversation or the pending list), once, in arrival order.
 */
import fc from 'fast-check';
import { inboxEntry, takeAtStepBoundary, unansweredTake, withdrawUnanswered } from '../../shared/agent/steer';
import type { ConversationEntry, InboxMessage } from '../../shared/contract';
import { emptyInbox, receive, type InboxState } from '../../shared/team/inbox';

const msg = (messageId: string, from = 'bob'): InboxMessage => ({ messageId, from, content: { text: messageId }, sentAt: '2025-01-01T00:00:00Z' });
const inboxOf = (...ids: string[]): InboxState => ids.reduce((inbox, id) => receive(inbox, msg(id)).inbox, emptyInbox());

describe('send_message steers a running turn', () => {
  test('a step boundary takes every pending message, in arrival order, as user entries in the format a turn opens with', () => {
    const take = takeAtStepBoundary(inboxOf('m1', 'm2'), 3, (m) => (m.from === 'bob' ? 'team-1' : undefined));
    expect(take.inbox).toMatchObject({ pending: [], consumed: 2, received: 2, seen: ['m1', 'm2'] });
    expect(take.messages.map((m) => m.messageId)).toEqual(['m1', 'm2']);
    expect(take.entries).toEqual([
      { role: 'user', messageId: 'm1', from: 'bob', content: { text: 'm1' }, turn: 3, teamId: 'team-1' },
      { role: 'user', messageId: 'm2', from: 'bob', content: { text: 'm2' }, turn: 3, teamId: 'team-1' },
    ]);
    expect(inboxEntry(msg('m3', 'operator'), 1)).not.toHaveProperty('teamId');
    expect(takeAtStepBoundary(emptyInbox(), 1, () => undefined)).toMatchObject({ messages: [], entries: [] });
  });

  test('a take is unanswered while its entries are the conversation tail; a completed model call answers it', () => {
    const taken = [msg('m1'), msg('m2')];
    const entries = taken.map((m) => inboxEntry(m, 2));
    const before: ConversationEntry[] = [{ role: 'assistant', content: null, turn: 2 }];
    expect(unansweredTake([...before, ...entries], taken).map((m) => m.messageId)).toEqual(['m1', 'm2']);
    expect(unansweredTake([...before, ...entries, { role: 'assistant', content: 'seen', turn: 2 }], taken)).toEqual([]);
    expect(unansweredTake(entries.slice(1), taken)).toEqual([]);
    expect(unansweredTake([...before, ...entries], [])).toEqual([]);
  });

  test('an interrupt between the take and the next model call returns the take to the front of the inbox, out of the conversation', () => {
    const take = takeAtStepBoundary(inboxOf('m1', 'm2'), 2, () => undefined);
    const later = receive(take.inbox, msg('m3')).inbox;
    const conversation: ConversationEntry[] = [{ role: 'user', content: 'open', turn: 2 }, ...take.entries];
    const back = withdrawUnanswered(conversation, later, take.messages);
    expect(back.conversation).toEqual([{ role: 'user', content: 'open', turn: 2 }]);
    expect(back.inbox.pending.map((m) => m.messageId)).toEqual(['m1', 'm2', 'm3']);
    expect(back.inbox).toMatchObject({ consumed: 0, received: 3, seen: ['m1', 'm2', 'm3'] });
    // A retried send of a returned message is still a duplicate.
    expect(receive(back.inbox, msg('m1')).duplicate).toBe(true);
  });

  type Op = { kind: 'deliver'; id: string } | { kind: 'take' } | { kind: 'modelCall' } | { kind: 'interrupt' } | { kind: 'beginTurn' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f').map((id): Op => ({ kind: 'deliver', id })),
    fc.constant<Op>({ kind: 'take' }),
    fc.constant<Op>({ kind: 'modelCall' }),
    fc.constant<Op>({ kind: 'interrupt' }),
    fc.constant<Op>({ kind: 'beginTurn' }),
  );

  test('never taken twice, never lost: each message is in the conversation or pending, once, in arrival order (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        let inbox = emptyInbox();
        let conversation: ConversationEntry[] = [];
        let lastTake: InboxMessage[] = [];
        const arrived: string[] = [];
        for (const o of ops) {
          if (o.kind === 'deliver') {
            const r = receive(inbox, msg(o.id));
            inbox = r.inbox;
            if (!r.duplicate) arrived.push(o.id);
          } else if (o.kind === 'take' || o.kind === 'beginTurn') {
            const take = takeAtStepBoundary(inbox, 1, () => undefined);
            inbox = take.inbox;
            conversation.push(...take.entries);
            lastTake = o.kind === 'take' ? take.messages : []; // a turn's opening messages are not a step-boundary take
          } else if (o.kind === 'modelCall') {
            conversation.push({ role: 'assistant', content: 'ok', turn: 1 });
          } else {
            const back = withdrawUnanswered(conversation, inbox, lastTake);
            conversation = back.conversation;
            inbox = back.inbox;
            lastTake = [];
            conversation.push({ role: 'system', content: { event: 'turn interrupted by the Lead' }, turn: 1 });
          }
          const recorded = conversation.flatMap((e) => (e.messageId ? [e.messageId] : []));
          expect([...recorded, ...inbox.pending.map((m) => m.messageId)]).toEqual(arrived);
          expect(inbox.consumed).toBe(recorded.length);
        }
      }),
    );
  });
});
