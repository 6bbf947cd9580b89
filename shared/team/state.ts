import { own } from '../util/own';
import { DEFAULT_MAX_MEMBERS, isLivePhase } from './roster';
import type { MemberRecord, TaskSnapshot } from '../contract/team';
import { LEAD, OPERATOR } from '../contract/callers';

/**
 * The Team's durable state, owned by the Lead workflow. Plain records only, so it survives every
 * payload conversion (continue-as-new, queries) unchanged.
 */
export interface TeamState {
  /** The root SessionId: the Lead workflow's id. Identity, not an event. */
  teamId: string;
  maxMembers: number;
  admission: 'open' | 'closed';
  members: Record<string, MemberRecord>;
  tasks: Record<string, TaskSnapshot>;
  /** Next Team-local task id. Monotonic; ids are never reused. */
  nextTaskId: number;
}

export function emptyTeamState(teamId: string, maxMembers: number = DEFAULT_MAX_MEMBERS): TeamState {
  return { teamId, maxMembers, admission: 'open', members: {}, tasks: {}, nextTaskId: 1 };
}

/** The Lead always acts; a roster member acts while provisioning or active. */
export function isActingMember(state: TeamState, name: string): boolean {
  if (name === LEAD) return true;
  const member = own(state.members, name);
  return member !== undefined && isLivePhase(member.phase);
}

/** Who may call the Team's commands: an acting member, or the operator (a person, never on the roster). */
export function mayAct(state: TeamState, caller: string): boolean {
  return caller === OPERATOR || isActingMember(state, caller);
}
