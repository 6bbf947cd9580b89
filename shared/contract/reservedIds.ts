/**
 * Who holds a member's reserved id (`<teamId>/teammate/<name>`, `<teamId>/subagent/<n>`), and
 * whether the Lead may touch it. A Lead (and the orphan reaper on its behalf) stops, cancels,
 * terminates or signals a workflow at a reserved id only when that workflow is provably the Lead's
 * own child: a member workflow type, started by the Lead (its parent is the Lead's workflow id) and
 * recorded as the Team's (its own AgentTeamId search attribute). Anything else holding the id is
 * left exactly as it is: the spawn fails with ReservedIdTaken, naming it.
 */
import { SUBAGENT_WORKFLOW_TYPE, TEAMMATE_WORKFLOW_TYPE } from './workflows';

/** The spawn's failure type when a workflow that is not the Lead's own child holds the reserved id. */
export const RESERVED_ID_TAKEN = 'ReservedIdTaken';

/** The workflow types a Lead starts as its children. */
export const MEMBER_WORKFLOW_TYPES: readonly string[] = [TEAMMATE_WORKFLOW_TYPE, SUBAGENT_WORKFLOW_TYPE];

/** What the server says about the workflow at a reserved id (its latest run, or the run asked for). */
export interface ReservedIdHolder {
  workflowId: string;
  workflowType: string | null;
  runId: string | null;
  /** The workflow id of its parent; null when it was started by a client (no parent). */
  parentWorkflowId: string | null;
  /** Its own AgentTeamId search attribute; null when it has none. */
  agentTeamId: string | null;
}

/**
 * Why `holder` is not provably the own child of the Lead whose workflow id is `leadId` (the Team
 * id); null when it is (type, parent and AgentTeamId all agree). The one ownership check: the Lead's
 * recovery (reconcileTeammate), its stops (disposal, close_agent, a taken subagent id) and the
 * orphan reaper all use it before they touch a workflow.
 */
export function notOwnChildProblem(holder: ReservedIdHolder, leadId: string): string | null {
  const problems: string[] = [];
  if (holder.workflowType === null || !MEMBER_WORKFLOW_TYPES.includes(holder.workflowType)) {
    problems.push(`its workflow type is ${holder.workflowType ?? 'unknown'}, not ${MEMBER_WORKFLOW_TYPES.join(' or ')}`);
  }
  if (holder.parentWorkflowId !== leadId) {
    problems.push(holder.parentWorkflowId === null ? 'it has no parent workflow' : `its parent is ${holder.parentWorkflowId.slice(0, 200)}, not this Lead`);
  }
  if (holder.agentTeamId !== leadId) {
    problems.push(holder.agentTeamId === null ? 'it has no AgentTeamId' : `its AgentTeamId is ${holder.agentTeamId.slice(0, 200)}`);
  }
  return problems.length === 0 ? null : problems.join('; ');
}

/** ReservedIdTaken's sentence: the id, its holder (workflow id, type, run id), why it is not the Lead's, and what to do. */
export function reservedIdTakenMessage(holder: ReservedIdHolder, leadId: string, problem: string): string {
  return (
    `ReservedIdTaken: the reserved id ${holder.workflowId.slice(0, 250)} is held by workflow ${holder.workflowId.slice(0, 250)} ` +
    `(type ${holder.workflowType ?? 'unknown'}, run ${holder.runId ?? 'unknown'}), which is not a child of Team ${leadId.slice(0, 120)}'s Lead ` +
    `(${problem}); nothing of it was changed. Spawn the teammate under another name, and find out who started that workflow`
  );
}
