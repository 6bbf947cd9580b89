/**
 * The size limits: the byte measure is UTF-8 of the JSON encoding (checked against Node's own
 * encoder), and the "Size limits" table of docs/semantics.md states exactly the values of
 * shared/contract/limits.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import * as limits from '../../shared/contract/limits';
import type { TeammateRunInput } from '../../shared/session/carried';
import { SEEN_WINDOW, emptyInbox, receive, takePending } from '../../shared/team/inbox';
import { SessionRun, nextSessionInput } from '../../workflows/session/sessionRun';

describe('byte measure', () => {
  it('utf8Length equals Buffer.byteLength for any string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(limits.utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
      }),
      { numRuns: 2_000 },
    );
    expect(limits.utf8Length('\ud83d')).toBe(3); // a lone high surrogate encodes as U+FFFD
    expect(limits.utf8Length('😀')).toBe(4);
  });

  it('jsonBytes is the UTF-8 size of the JSON text the payload converter writes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(limits.jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
      }),
      { numRuns: 500 },
    );
    expect(limits.jsonBytes(undefined)).toBe(0);
  });
});

describe('the size limits table in docs/semantics.md', () => {
  const doc = readFileSync(join(__dirname, '../../docs/semantics.md'), 'utf8');
  const start = doc.indexOf('## Size limits');
  const next = doc.indexOf('\n## ', start + 1);
  const section = start < 0 ? '' : doc.slice(start, next < 0 ? undefined : next);
  // Cells are trimmed, so a formatter that pads the table's columns does not break the guard.
  const rows = section
    .split('\n')
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .filter((cells) => /^`[A-Z_]+`(?: \/ `[A-Z_]+`)*$/.test(cells[1] ?? '') && /^[\d,]+(?: \/ [\d,]+)*$/.test(cells[2] ?? ''))
    .map((cells) => ({ names: cells[1]!, values: cells[2]! }));

  it('lists every limit of shared/contract/limits.ts with its value', () => {
    const stated = new Map<string, number>();
    for (const { names, values } of rows) {
      const nameList = names.split(' / ').map((n) => n.replace(/`/g, ''));
      const valueList = values.split(' / ').map((v) => Number(v.replace(/,/g, '')));
      nameList.forEach((name, i) => stated.set(name, valueList[i]!));
    }
    const actual = Object.entries(limits).filter(([name, value]) => typeof value === 'number' && !name.startsWith('TEMPORAL_'));
    expect(actual.length).toBeGreaterThan(15);
    for (const [name, value] of actual) expect([name, stated.get(name)]).toEqual([name, value]);
    expect(stated.size).toBe(actual.length);
  });

  it('keeps every limit under the hard payload limit', () => {
    expect(limits.PAYLOAD_MAX_BYTES).toBeLessThan(limits.TEMPORAL_PAYLOAD_LIMIT_BYTES);
    expect(limits.MAX_MESSAGE_BYTES + limits.CARRIED_CONVERSATION_MAX_BYTES).toBeLessThan(limits.PAYLOAD_MAX_BYTES);
    expect(limits.PROMPT_MAX_BYTES).toBeLessThan(limits.PAYLOAD_MAX_BYTES);
    // Every id derived from a Team id fits MAX_ID_LENGTH: `<team>/teammate/<name>/initial`.
    expect(limits.MAX_TEAM_ID_LENGTH + '/teammate/'.length + 40 + '/initial'.length).toBeLessThanOrEqual(limits.MAX_ID_LENGTH);
  });
});

describe('carried inbox and session state at their maxima', () => {
  const astralId = (n: number): string => `${n}-${'😀'.repeat(95)}`; // 192 UTF-16 units, ~380 bytes

  it('an inbox remembers at most 2,048 ids within SEEN_MAX_BYTES, newest kept', () => {
    let inbox = emptyInbox();
    for (let n = 0; n < 3_000; n++) inbox = takePending(receive(inbox, { messageId: astralId(n), from: 'lead', content: n, sentAt: 't' }).inbox).inbox;
    expect(inbox.seen.length).toBeLessThanOrEqual(SEEN_WINDOW);
    expect(limits.jsonBytes(inbox.seen)).toBeLessThanOrEqual(limits.SEEN_MAX_BYTES);
    expect(inbox.seen[inbox.seen.length - 1]).toBe(astralId(2_999));
    expect(receive(inbox, { messageId: astralId(2_999), from: 'lead', content: 0, sentAt: 't' }).duplicate).toBe(true);
  });

  it("a teammate's next-run input stays within the payload limit with a full inbox, seen ids and a huge conversation", () => {
    const initialMessage = { messageId: 't/teammate/a/initial', from: 'lead', content: 'x'.repeat(limits.MAX_MESSAGE_BYTES - 10), sentAt: 't', relaySeq: 1 };
    const input: TeammateRunInput = {
      descriptor: { teamId: 't', name: 'a', context: 'fork', initialMessageId: initialMessage.messageId },
      model: null,
      seed: [],
      initialMessage,
    };
    const mate = new SessionRun(input, 'teammate');
    mate.beginTurn();
    // A full inbox: deliveries until the member refuses more.
    for (let n = 0; mate.state.inbox.pending.length < 200 && n < 200; n++)
      mate.deliver({ messageId: astralId(n), from: 'lead', content: 'y'.repeat(60_000), sentAt: 't', relaySeq: n + 2 });
    expect(limits.jsonBytes(mate.state.inbox.pending)).toBeLessThanOrEqual(limits.MEMBER_INBOX_MAX_BYTES);
    for (let turn = 0; turn < 60; turn++)
      mate.append({ role: 'tool', toolCallId: `c${turn}`, toolName: 'read_file', ok: true, content: 'z'.repeat(90_000), turn: 1 });
    const next = nextSessionInput(input, mate);
    expect(limits.jsonBytes(next)).toBeLessThanOrEqual(limits.PAYLOAD_MAX_BYTES);
    expect(next.carried?.inbox.pending).toEqual(mate.state.inbox.pending); // nothing unread is lost
    expect(next.seed).toEqual([]);
  });
});
