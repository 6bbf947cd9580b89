/**
 * What recovery reads from the workflow at a teammate's reserved id: the descriptor in its memo,
 * checked against the Lead's provisioning record. Anything could have started a workflow there, so
 * the memo is untrusted: inspected field by field, never trusted for its shape. Each problem names
 * which of the seed's failure causes it is (a missing or corrupt descriptor, a mismatched
 * provider/lineage), so a failed record says why.
 */
import type { TeammateDescriptor } from '../contract';

const DESCRIPTOR_FIELDS = ['teamId', 'name', 'context', 'initialMessageId'] as const;

/** A value as short JSON for a reason text (the value is untrusted and may be long). */
function shown(value: string): string {
  return JSON.stringify(value.slice(0, 120));
}

/** Why the memo's descriptor does not prove this record's child, or null when it matches. */
export function descriptorProblem(memoValue: unknown, expected: TeammateDescriptor): string | null {
  if (memoValue === undefined || memoValue === null) return 'missing teammate descriptor: the child has no agentTeam memo';
  if (typeof memoValue !== 'object' || Array.isArray(memoValue)) {
    return `corrupt teammate descriptor: the agentTeam memo is ${Array.isArray(memoValue) ? 'an array' : `a ${typeof memoValue}`}, not an object`;
  }
  const field = (key: (typeof DESCRIPTOR_FIELDS)[number]): unknown => Object.getOwnPropertyDescriptor(memoValue, key)?.value;
  const notString = DESCRIPTOR_FIELDS.find((key) => typeof field(key) !== 'string');
  if (notString) return `corrupt teammate descriptor: ${notString} is not a string`;
  const actual = Object.fromEntries(DESCRIPTOR_FIELDS.map((key) => [key, field(key) as string])) as unknown as TeammateDescriptor;
  if (actual.teamId !== expected.teamId) return `mismatched lineage: the child's descriptor belongs to Team ${shown(actual.teamId)}, not this Lead's`;
  if (actual.context !== expected.context) {
    return `mismatched provider/lineage: the child was started by the ${shown(actual.context)} provider, the record says ${expected.context}`;
  }
  if (actual.name !== expected.name) return `mismatched teammate descriptor: the child is named ${shown(actual.name)}`;
  if (actual.initialMessageId !== expected.initialMessageId)
    return `mismatched teammate descriptor: the child's initial message is ${shown(actual.initialMessageId)}`;
  return null;
}
