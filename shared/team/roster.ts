/** Roster rules that need no state: member names and phases. */
import { LEAD, MAX_MEMBER_NAME_LENGTH } from '../contract/callers';
import type { MemberPhase } from '../contract/vocabulary';

export const DEFAULT_MAX_MEMBERS = 8;
const MEMBER_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** Returns why `name` cannot be a teammate name, or null when it can. */
export function memberNameProblem(name: string): string | null {
  if (name === LEAD) return `"${LEAD}" is the Lead's own name; choose another teammate name`;
  if (name.length === 0 || name.length > MAX_MEMBER_NAME_LENGTH) return `teammate names are 1-${MAX_MEMBER_NAME_LENGTH} characters`;
  if (!MEMBER_NAME.test(name)) return `"${name}" is not lowercase kebab-case (e.g. "api-writer")`;
  return null;
}

/** Members in these phases may act (call Team commands) and may own tasks. */
export function isLivePhase(phase: MemberPhase): boolean {
  return phase === 'provisioning' || phase === 'active';
}

/** The reserved workflow id of a teammate: derived from the Team id and the name, so it is never reused. */
export function teammateWorkflowId(teamId: string, name: string): string {
  return `${teamId}/teammate/${name}`;
}
