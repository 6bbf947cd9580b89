/**
 * Starting a session child (a teammate or an ordinary subagent): measured against the payload
 * budget first, so an input over budget fails only that start, and abandoned on the Lead's close,
 * because children outlive each Lead run (continue-as-new); disposal and close_agent stop them.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { ApplicationFailure, ParentClosePolicy, WorkflowIdReusePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import type { SubagentWorkflow, TeamActivities, TeammateInput, TeammateWorkflow } from '../../shared/contract';
import { PAYLOAD_BUDGET_BYTES, jsonBytes } from '../../shared/limits';

/** The Lead's control activities: recovery and stopping children. */
export const control = proxyActivities<TeamActivities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '20 seconds', retry: { maximumAttempts: 5 } });

export interface ChildStart {
  workflowType: string;
  workflowId: string;
  input: TeammateInput;
  memo?: Record<string, unknown>;
  typedSearchAttributes?: SearchAttributePair[];
}

/** Not async on purpose: awaiting this is awaiting startChild itself, with no extra promise step to reorder commands. */
export function startSessionChild(start: ChildStart): ReturnType<typeof startChild> {
  const args: Parameters<TeammateWorkflow | SubagentWorkflow> = [start.input];
  const bytes = jsonBytes(args);
  if (bytes > PAYLOAD_BUDGET_BYTES) {
    throw ApplicationFailure.create({
      type: 'PayloadTooLarge',
      message: `the child's start input would be ${bytes} bytes, over the ${PAYLOAD_BUDGET_BYTES}-byte payload budget`,
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
  });
}
