/** The Lead's import of historical mailbox records: every record validated, bad ones listed, ids unique. */
import { LEGACY_MAILBOX_MAX_BYTES } from '../../shared/contract/limits';
import { MAX_LEGACY_PROBLEMS, admitLegacyMailbox } from '../../shared/team/legacyMailbox';

const record = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  from: 'lead',
  to: 'bob',
  status: 'queued',
  content: 'hi',
  at: '2025-01-01T00:00:00Z',
  ...extra,
});

test('valid records are kept in order; nothing imported means an empty mailbox', () => {
  expect(admitLegacyMailbox(undefined)).toEqual({ records: [], problems: [] });
  const admitted = admitLegacyMailbox([record('a'), record('b', { status: 'delivered', from: 'bob', to: 'lead' })]);
  expect(admitted.problems).toEqual([]);
  expect(admitted.records.map((r) => [r.id, r.from, r.to, r.status])).toEqual([
    ['a', 'lead', 'bob', 'queued'],
    ['b', 'bob', 'lead', 'delivered'],
  ]);
});

test('each bad record is listed by position with its reason and kept out', () => {
  const admitted = admitLegacyMailbox([record('a'), 'junk', record(''), record('a'), record('c', { status: 'sent' }), record('d', { to: 'not a name!' })]);
  expect(admitted.records.map((r) => r.id)).toEqual(['a']);
  expect(admitted.problems).toEqual([
    { index: 1, reason: 'a record must be an object' },
    { index: 2, reason: 'id must be a non-empty string' },
    { index: 3, reason: 'duplicate id a' },
    { index: 4, reason: 'status must be "queued" or "delivered"' },
    { index: 5, reason: 'to must be "lead" or a member name' },
  ]);
});

test('ids that name Object.prototype members are ordinary ids: a repeated "__proto__" is a duplicate', () => {
  const admitted = admitLegacyMailbox([record('__proto__'), record('__proto__'), record('constructor'), record('constructor')]);
  expect(admitted.records.map((r) => r.id)).toEqual(['__proto__', 'constructor']);
  expect(admitted.problems).toEqual([
    { index: 1, reason: 'duplicate id __proto__' },
    { index: 3, reason: 'duplicate id constructor' },
  ]);
});

test('the import is bounded: records past the size limit are refused, and at most MAX_LEGACY_PROBLEMS are listed', () => {
  const big = 'x'.repeat(Math.floor(LEGACY_MAILBOX_MAX_BYTES / 3));
  const admitted = admitLegacyMailbox([record('a', { content: big }), record('b', { content: big }), record('c', { content: big }), record('d')]);
  expect(admitted.records.map((r) => r.id)).toEqual(['a', 'b', 'd']);
  expect(admitted.problems).toEqual([{ index: 2, reason: `over the ${LEGACY_MAILBOX_MAX_BYTES}-byte import budget` }]);
  const flood = admitLegacyMailbox(Array.from({ length: MAX_LEGACY_PROBLEMS + 50 }, () => 'junk'));
  expect(flood.problems).toHaveLength(MAX_LEGACY_PROBLEMS);
});

test('anything but an array is one problem, not a crash', () => {
  expect(admitLegacyMailbox('junk')).toEqual({ records: [], problems: [{ index: -1, reason: 'legacyMailbox must be an array of records' }] });
});
