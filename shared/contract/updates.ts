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

/** What every Update of the Lead is described by, beside its definition. */
export interface LeadUpdateFacts {
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

/** An entry of the registry: the Update's definition, whose name is the entry's key, and its facts. */
export interface LeadUpdateEntry<Ret = unknown, Req = never, Name extends string = string> extends LeadUpdateFacts {
  definition: UpdateDefinition<Ret, [Req], Name>;
}

const entry = <Ret, Req, Name extends string>(definition: UpdateDefinition<Ret, [Req], Name>, facts: LeadUpdateFacts): LeadUpdateEntry<Ret, Req, Name> => ({
  definition,
  ...facts,
});

const mutation = (who: UpdateAuthority): LeadUpdateFacts => ({
  gate: 'board',
  idempotent: true,
  counted: true,
  readOnly: false,
  reproducedWhenDeferred: false,
  deadline: 'update',
  who,
});
const boardRead: LeadUpdateFacts = {
  gate: 'board',
  idempotent: false,
  counted: true,
  readOnly: true,
  reproducedWhenDeferred: true,
  deadline: 'update',
  who: 'anyone',
};
const teamCall = (facts: Pick<LeadUpdateFacts, 'idempotent' | 'readOnly' | 'who'> & Partial<LeadUpdateFacts>): LeadUpdateFacts => ({
  gate: 'team',
  counted: true,
  reproducedWhenDeferred: false,
  deadline: 'update',
  ...facts,
});

/** Each key must be its entry's wire name: a registry whose key and definition disagree does not compile. */
type KeyedByWireName<R> = { [K in keyof R]: K extends string ? { definition: { name: K } } : never };
const keyedByWireName = <R extends KeyedByWireName<R>>(registry: R): R => registry;

/**
 * Every Update of the Lead, keyed by its wire name, in the order of the wire contract's table. The
 * Lead's operations table (workflows/lead/operations.ts) is a mapped type over it, so an Update
 * without an operation, an operation without an Update, or a result of the wrong type does not compile.
 */
export const LEAD_UPDATE_REGISTRY = keyedByWireName({
  createTask: entry(lead.createTaskUpdate, mutation('anyone')),
  editTask: entry(lead.editTaskUpdate, mutation('ownerOrLead')),
  claimTask: entry(lead.claimTaskUpdate, mutation('member')),
  assignTask: entry(lead.assignTaskUpdate, mutation('lead')),
  releaseTask: entry(lead.releaseTaskUpdate, mutation('ownerOrLead')),
  transitionTask: entry(lead.transitionTaskUpdate, mutation('ownerOrLead')),
  deleteTask: entry(lead.deleteTaskUpdate, mutation('ownerOrLead')),
  readTask: entry(lead.readTaskUpdate, boardRead),
  listTasks: entry(lead.listTasksUpdate, boardRead),
  listTasksPage: entry(lead.listTasksPageUpdate, boardRead),
  disposeTeam: entry(lead.disposeTeamUpdate, {
    gate: 'never',
    idempotent: false,
    counted: false,
    readOnly: false,
    reproducedWhenDeferred: false,
    deadline: 'dispose',
    who: 'lead',
  }),
  spawnTeammate: entry(lead.spawnTeammateUpdate, teamCall({ idempotent: true, readOnly: false, who: 'lead' })),
  sendMessage: entry(lead.sendMessageUpdate, teamCall({ idempotent: true, readOnly: false, who: 'anyone' })),
  readLeadInbox: entry(lead.readLeadInboxUpdate, teamCall({ idempotent: false, readOnly: false, who: 'lead' })),
  interruptTeammate: entry(lead.interruptTeammateUpdate, teamCall({ idempotent: false, readOnly: false, who: 'lead' })),
  waitForEdge: entry(lead.waitForEdgeUpdate, teamCall({ idempotent: false, readOnly: true, deadline: 'wait', who: 'anyone' })),
  promptLead: entry(lead.promptLeadUpdate, teamCall({ idempotent: true, readOnly: false, who: 'lead' })),
  setBudget: entry(lead.setBudgetUpdate, teamCall({ idempotent: true, readOnly: false, who: 'lead' })),
});

export type LeadUpdateRegistry = typeof LEAD_UPDATE_REGISTRY;
export type LeadUpdateName = keyof LeadUpdateRegistry;
/** The request an Update of the Lead takes, from its registry entry. */
export type LeadUpdateRequest<K extends LeadUpdateName> = LeadUpdateRegistry[K] extends LeadUpdateEntry<infer _Ret, infer Req, K> ? Req : never;
/** The result an Update of the Lead answers with, from its registry entry. */
export type LeadUpdateResult<K extends LeadUpdateName> = LeadUpdateRegistry[K] extends LeadUpdateEntry<infer Ret, infer _Req, K> ? Ret : never;
/** One entry of the registry, any of them. */
export type LeadUpdateDescriptor = LeadUpdateRegistry[LeadUpdateName];

/** Every Update of the Lead, in the order of the wire contract's table. */
export const LEAD_UPDATES: readonly LeadUpdateDescriptor[] = Object.values(LEAD_UPDATE_REGISTRY);

const byName: ReadonlyMap<string, LeadUpdateDescriptor> = new Map(Object.entries(LEAD_UPDATE_REGISTRY));

/** The descriptor of the Update named `name`, or undefined for a name that is not one of the Lead's Updates. */
export function leadUpdate(name: string): LeadUpdateDescriptor | undefined {
  return byName.get(name);
}
