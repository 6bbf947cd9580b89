/**
 * One descriptor per Update of the Lead: the facts about it that the workflow, the client and the
 * docs all need, in one place. The Lead's operations table (workflows/lead/operations.ts) takes
 * its gate, idempotency, counting and deferral from here and adds the parse, decide and work; the
 * TeamClient takes which Updates are read-only and each one's default deadline; a unit test checks
 * docs/wire-contract.md's Update table against the names and `who`.
 */
import type { UpdateDefinition } from '@temporalio/common';
import * as lead from './lead';

/**
 * When a run winding down for continue-as-new refuses the Update with the retriable TeamRollingOver:
 *  - `board`: synchronous board operations complete in the activation that accepts them, so they
 *    stay open while the run winds down, until disposal or the per-run hard cap;
 *  - `team`: everything else, as soon as the run decides to roll over;
 *  - `never`: disposal.
 */
export type UpdateGate = 'board' | 'team' | 'never';

/** Who may call it (the operator, "@operator", has the Lead's authority but owns no tasks). */
export type UpdateAuthority =
  /** The operator, the Lead or any live teammate. */
  | 'anyone'
  /** The Lead or a live teammate, not the operator: it makes the caller a task's owner. */
  | 'member'
  /** The task's owner, the Lead or the operator. */
  | 'ownerOrLead'
  /** The Lead or the operator. */
  | 'lead';

/** The client's default deadline: the one for Updates, disposal's, or a wait's own timeout plus the margin. */
export type UpdateDeadline = 'update' | 'dispose' | 'wait';

export interface LeadUpdateDescriptor {
  definition: UpdateDefinition<unknown, [never]>;
  gate: UpdateGate;
  /** Retried with the same update id, it is answered from the Lead's memory of the first result. */
  idempotent: boolean;
  /** Counted towards the run's accepted Updates (the rollover). Disposal ends the run instead. */
  counted: boolean;
  /** Changes nothing: a client may send it again under a new update id. */
  readOnly: boolean;
  /** A board read: a result that waits for a later workflow task is produced again there, as of then. */
  reproducedWhenDeferred: boolean;
  deadline: UpdateDeadline;
  who: UpdateAuthority;
}

type Facts = Omit<LeadUpdateDescriptor, 'definition'>;
const describe = (definition: { name: string }, facts: Facts): LeadUpdateDescriptor => ({
  definition: definition as LeadUpdateDescriptor['definition'],
  ...facts,
});

const mutation = (who: UpdateAuthority): Facts => ({
  gate: 'board',
  idempotent: true,
  counted: true,
  readOnly: false,
  reproducedWhenDeferred: false,
  deadline: 'update',
  who,
});
const boardRead: Facts = { gate: 'board', idempotent: false, counted: true, readOnly: true, reproducedWhenDeferred: true, deadline: 'update', who: 'anyone' };
const teamCall = (facts: Pick<Facts, 'idempotent' | 'readOnly' | 'who'> & Partial<Facts>): Facts => ({
  gate: 'team',
  counted: true,
  reproducedWhenDeferred: false,
  deadline: 'update',
  ...facts,
});

/** Every Update of the Lead, in the order of the wire contract's table. */
export const LEAD_UPDATES: readonly LeadUpdateDescriptor[] = [
  describe(lead.createTaskUpdate, mutation('anyone')),
  describe(lead.editTaskUpdate, mutation('ownerOrLead')),
  describe(lead.claimTaskUpdate, mutation('member')),
  describe(lead.assignTaskUpdate, mutation('lead')),
  describe(lead.releaseTaskUpdate, mutation('ownerOrLead')),
  describe(lead.transitionTaskUpdate, mutation('ownerOrLead')),
  describe(lead.deleteTaskUpdate, mutation('ownerOrLead')),
  describe(lead.readTaskUpdate, boardRead),
  describe(lead.listTasksUpdate, boardRead),
  describe(lead.listTasksPageUpdate, boardRead),
  describe(lead.disposeTeamUpdate, {
    gate: 'never',
    idempotent: false,
    counted: false,
    readOnly: false,
    reproducedWhenDeferred: false,
    deadline: 'dispose',
    who: 'lead',
  }),
  describe(lead.spawnTeammateUpdate, teamCall({ idempotent: true, readOnly: false, who: 'lead' })),
  describe(lead.sendMessageUpdate, teamCall({ idempotent: true, readOnly: false, who: 'anyone' })),
  describe(lead.readLeadInboxUpdate, teamCall({ idempotent: false, readOnly: false, who: 'lead' })),
  describe(lead.interruptTeammateUpdate, teamCall({ idempotent: false, readOnly: false, who: 'lead' })),
  describe(lead.waitForEdgeUpdate, teamCall({ idempotent: false, readOnly: true, deadline: 'wait', who: 'anyone' })),
  describe(lead.promptLeadUpdate, teamCall({ idempotent: true, readOnly: false, who: 'lead' })),
  describe(lead.setBudgetUpdate, teamCall({ idempotent: true, readOnly: false, who: 'lead' })),
];

const byName: ReadonlyMap<string, LeadUpdateDescriptor> = new Map(LEAD_UPDATES.map((d) => [d.definition.name, d]));

/** The descriptor of the Update named `name`, or undefined for a name that is not one of the Lead's Updates. */
export function leadUpdate(name: string): LeadUpdateDescriptor | undefined {
  return byName.get(name);
}
