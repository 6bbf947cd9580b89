import { own } from '../util/own';
import type { Decision } from './decideTask';
import type { TeamEvent } from './events';
import { reject } from '../contract/rejections';
import { isLivePhase, memberNameProblem, teammateWorkflowId } from './roster';
import type { TeamState } from './state';
import { mayAct } from './state';
import type { MemberContext } from '../contract/vocabulary';
import { LEAD, hasLeadAuthority } from '../contract/callers';

const refuse = (type: Parameters<typeof reject>[0], message: string): Decision => ({ ok: false, rejection: reject(type, message) });
const accept = (...events: TeamEvent[]): Decision => ({ ok: true, events });

export interface SpawnCommand {
  name: string;
  context: MemberContext;
  model: string | null;
}

/**
 * Spawning records a provisioning snapshot first. Names are reserved by that first record and
 * never reused, also after failure; failed records keep their roster slot.
 */
export function decideSpawn(state: TeamState, command: SpawnCommand, ctx: { caller: string; now: string }): Decision {
  if (!hasLeadAuthority(ctx.caller)) return refuse('LeadOnly', 'only the Lead (or the operator) creates teammates');
  if (state.admission === 'closed') return refuse('TeamAdmissionClosed', `Team ${state.teamId} is being disposed; no new teammates`);
  const problem = memberNameProblem(command.name);
  if (problem) return refuse('InvalidMemberName', problem);
  const existing = own(state.members, command.name);
  if (existing) {
    return refuse('MemberNameTaken', `"${command.name}" is already reserved (phase ${existing.phase}); names are never reused, choose another`);
  }
  const size = Object.keys(state.members).length;
  if (size >= state.maxMembers) {
    return refuse('RosterFull', `the roster holds ${size} of ${state.maxMembers} members (failed ones keep their slot); no more teammates can join this Team`);
  }
  return accept({
    type: 'memberProvisioning',
    name: command.name,
    context: command.context,
    workflowId: teammateWorkflowId(state.teamId, command.name),
    model: command.model,
    at: ctx.now,
  });
}

export type ProvisioningOutcome = { phase: 'active' } | { phase: 'failed'; reason: string };

/**
 * Settles a provisioning record. Settling twice with the same outcome is a no-op (creator and
 * recovery may both report); a disagreement is a ProvisioningConflict for the caller to resolve.
 */
export function decideProvisioningOutcome(state: TeamState, name: string, outcome: ProvisioningOutcome, now: string): Decision {
  const member = own(state.members, name);
  if (!member) return refuse('UnknownMember', `no provisioning record for "${name}"`);
  if (member.phase === outcome.phase) return accept();
  if (member.phase !== 'provisioning') {
    return refuse('ProvisioningConflict', `"${name}" was already settled as ${member.phase}; this outcome says ${outcome.phase}`);
  }
  return accept(outcome.phase === 'active' ? { type: 'memberActivated', name, at: now } : { type: 'memberFailed', name, reason: outcome.reason, at: now });
}

/** Marks a member stopped once its child has exited (disposal). */
export function decideStopped(state: TeamState, name: string, now: string): Decision {
  const member = own(state.members, name);
  if (!member) return refuse('UnknownMember', `no member "${name}"`);
  if (member.phase === 'stopped') return accept();
  return accept({ type: 'memberStopped', name, at: now });
}

/** Who may send to whom: the operator or any acting member, to the Lead or any live teammate, while admission is open. */
export function decideSend(state: TeamState, from: string, to: string): Decision {
  if (state.admission === 'closed') return refuse('TeamAdmissionClosed', `Team ${state.teamId} is being disposed; sends are no longer accepted`);
  if (!mayAct(state, from)) return refuse('NotATeamMember', `"${from}" is not an active member of Team ${state.teamId}`);
  if (to === LEAD) return accept();
  const target = own(state.members, to);
  if (!target) return refuse('UnknownMember', `there is no teammate "${to}"; read the roster for valid names`);
  if (!isLivePhase(target.phase)) return refuse('UnknownMember', `teammate "${to}" is ${target.phase} and has no inbox any more`);
  return accept();
}

export function decideCloseAdmission(state: TeamState, now: string): Decision {
  return state.admission === 'closed' ? accept() : accept({ type: 'admissionClosed', at: now });
}
