/**
 * Starting a session child (a teammate or an ordinary subagent): measured against the payload
 * limit first, so an input over the limit fails only that start, and abandoned on the Lead's close,
 * because children outlive each Lead run (continue-as-new); disposal and close_agent stop them.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { ParentClosePolicy, WorkflowIdReusePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import type { ReconcileOutcome, ReconcileTeammateInput, SubagentWorkflow, TeamActivities, TeammateInput, TeammateWorkflow } from '../../shared/contract';
import { PAYLOAD_MAX_BYTES, jsonBytes } from '../../shared/contract/limits';
import { answerFailure } from '../../shared/contract/failures';
import { AGENT_TEAM_ID, AGENT_TEAM_MEMBER, AGENT_TEAM_ROLE } from '../../shared/contract/searchAttributes';
import { controlSummary, startMetadata, type WorkflowIdentity } from '../../shared/text/webUi';

const controlActivities = proxyActivities<TeamActivities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '20 seconds', retry: { maximumAttempts: 5 } });

/** The Lead's control activities: recovery and stopping children, each call with its Web UI summary (same promise, no extra step). */
export const control = {
  reconcileTeammate: (input: ReconcileTeammateInput): Promise<ReconcileOutcome> =>
    controlActivities.reconcileTeammate.executeWithOptions({ summary: controlSummary('reconcileTeammate', input.workflowId) }, [input]),
  stopTeammate: (input: { workflowId: string }): Promise<void> =>
    controlActivities.stopTeammate.executeWithOptions({ summary: controlSummary('stopTeammate', input.workflowId) }, [input]),
  memberClosed: (input: { workflowId: string }): Promise<boolean> =>
    controlActivities.memberClosed.executeWithOptions({ summary: controlSummary('memberClosed', input.workflowId) }, [input]),
};

export interface ChildStart {
  workflowType: string;
  workflowId: string;
  input: TeammateInput;
  memo?: Record<string, unknown>;
  typedSearchAttributes?: SearchAttributePair[];
  /** Who the child is, for the Web UI (static summary and details; user metadata, not checked on replay). */
  identity?: WorkflowIdentity;
}

/** A member's search attributes: `AgentTeamId` lists the whole Team, `AgentTeamMember` finds this one. */
export function memberSearchAttributes(who: Pick<WorkflowIdentity, 'teamId' | 'name' | 'role'>): SearchAttributePair[] {
  return [
    { key: AGENT_TEAM_ID, value: who.teamId },
    { key: AGENT_TEAM_ROLE, value: who.role },
    { key: AGENT_TEAM_MEMBER, value: who.name },
  ];
}

/** Not async on purpose: awaiting this is awaiting startChild itself, with no extra promise step to reorder commands. */
export function startSessionChild(start: ChildStart): ReturnType<typeof startChild> {
  const args: Parameters<TeammateWorkflow | SubagentWorkflow> = [start.input];
  const bytes = jsonBytes(args);
  if (bytes > PAYLOAD_MAX_BYTES) {
    throw answerFailure({
      type: 'PayloadTooLarge',
      message: `the child's start input would be ${bytes} bytes, over the ${PAYLOAD_MAX_BYTES}-byte payload budget`,
      nonRetryable: true,
    });
  }
  return startChild<TeammateWorkflow>(start.workflowType, {
    workflowId: start.workflowId,
    args,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    ...(start.memo ? { memo: start.memo } : {}),
    ...(start.typedSearchAttributes ? { typedSearchAttributes: start.typedSearchAttributes } : {}),
    ...(start.identity ? startMetadata(start.identity) : {}),
  });
}
