import type { JsonValue } from '../contract/json';
import { jsonProblem } from '../contract/json';
import { LEGACY_MAILBOX_MAX_BYTES, jsonBytes } from '../contract/limits';
import { memberNameProblem } from './roster';
import type { LegacyMailboxRecord, LegacyMailbox } from '../contract/team';
import { LEAD } from '../contract/callers';

/** Problems reported for an import, at most (the rest of a bad import is refused the same way). */
export const MAX_LEGACY_PROBLEMS = 100;

export function emptyLegacyMailbox(): LegacyMailbox {
  return { records: [], problems: [] };
}

const own = (value: object, key: string): unknown => Object.getOwnPropertyDescriptor(value, key)?.value;

function recordProblem(raw: unknown, seen: ReadonlySet<string>): string | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'a record must be an object';
  const id = own(raw, 'id');
  if (typeof id !== 'string' || id.length === 0) return 'id must be a non-empty string';
  if (seen.has(id)) return `duplicate id ${id.slice(0, 200)}`;
  for (const field of ['from', 'to']) {
    const name = own(raw, field);
    if (typeof name !== 'string' || (name !== LEAD && memberNameProblem(name) !== null)) return `${field} must be "lead" or a member name`;
  }
  const status = own(raw, 'status');
  if (status !== 'queued' && status !== 'delivered') return 'status must be "queued" or "delivered"';
  if (typeof own(raw, 'at') !== 'string') return 'at must be a timestamp';
  const content = own(raw, 'content');
  if (content === undefined) return 'content is required';
  const problem = jsonProblem(content);
  return problem ? `content: ${problem}` : null;
}

/** Validates imported records. Content is inspected, never rebuilt (an own `__proto__` key survives). */
export function admitLegacyMailbox(raw: unknown): LegacyMailbox {
  if (raw === undefined) return emptyLegacyMailbox();
  if (!Array.isArray(raw)) return { records: [], problems: [{ index: -1, reason: 'legacyMailbox must be an array of records' }] };
  const mailbox = emptyLegacyMailbox();
  const seen = new Set<string>();
  let bytes = 0;
  raw.forEach((item: unknown, index) => {
    // Carried by every later run: the import is bounded in bytes and in reported problems.
    const size = jsonBytes(item);
    const problem = bytes + size > LEGACY_MAILBOX_MAX_BYTES ? `over the ${LEGACY_MAILBOX_MAX_BYTES}-byte import budget` : recordProblem(item, seen);
    if (problem) {
      if (mailbox.problems.length < MAX_LEGACY_PROBLEMS) mailbox.problems.push({ index, reason: problem.slice(0, 300) });
      return;
    }
    bytes += size;
    const record = item as Record<string, unknown>;
    seen.add(record.id as string);
    mailbox.records.push({
      id: record.id as string,
      from: record.from as string,
      to: record.to as string,
      status: record.status as LegacyMailboxRecord['status'],
      content: own(record, 'content') as JsonValue,
      at: record.at as string,
    });
  });
  return mailbox;
}
