/** Pure reads of the Lead's state that several operations share. */
import { own } from '../util/own';
import { firstEdgeAfter } from '../team/edges';
import type { LeadState } from './state';
import type { MemberRecord, TeamEdge } from '../contract/team';

/**
 * Teammates with required work: a turn running, or messages relayed that they have not settled
 * (counted, because a send can land while the member still reports idle). Members that report
 * what they settled are taken at their word; older ones by what they consumed.
 */
export function busyMembers(state: LeadState): string[] {
  return Object.values(state.team.members)
    .filter((m) => m.phase === 'active')
    .map((m) => m.name)
    .filter((name) => {
      const status = own(state.liveStatus, name);
      if (status === 'exited') return false;
      const taken = own(state.settled, name) ?? own(state.consumed, name) ?? 0;
      return status === 'running' || status === 'starting' || (own(state.delivered, name) ?? 0) > taken;
    });
}

/** Open tasks (pending or in progress): what the Lead is told about before its final answer. */
export function openTaskIds(state: LeadState): number[] {
  return Object.values(state.team.tasks)
    .filter((t) => !t.deleted && (t.status === 'pending' || t.status === 'in_progress'))
    .map((t) => t.id);
}

/** Watches whose edge has been recorded, with where to send the notification. */
export function dueNotifications(state: LeadState): { name: string; workflowId: string; waitId: string; edge: TeamEdge }[] {
  return Object.entries(state.watchers).flatMap(([name, w]) => {
    const edge = firstEdgeAfter(state.edges, w.since, w.kinds, w.skipsOwnStatus ? name : undefined);
    const member = own(state.team.members, name);
    return edge && member ? [{ name, workflowId: member.workflowId, waitId: w.waitId, edge }] : [];
  });
}

/** Provisioning records no creator in this run is settling (continue-as-new, reset): recovery's to settle. */
export function unsettledProvisioning(state: LeadState, creating: (name: string) => boolean): MemberRecord[] {
  return Object.values(state.team.members).filter((m) => m.phase === 'provisioning' && !creating(m.name));
}

/** Every child the roster recorded that may still be running, failed ones included (cleanup-owned). */
export function childrenToStop(state: LeadState): MemberRecord[] {
  return Object.values(state.team.members).filter((m) => m.phase !== 'stopped');
}
