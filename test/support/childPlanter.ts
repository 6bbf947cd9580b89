/**
 * A test-only workflow that leaves children behind the way an earlier run of a Lead would have:
 * it starts each planted child as its own direct child (abandoned on close, as the Lead's are),
 * with a chosen workflow type, input and memo (or none), and reports them started. On the
 * `handOver` signal it either continues as new into the Lead with the given run input, so each
 * child's parent is an earlier run of that Lead's own chain (what a continue-as-new leaves), or
 * just completes (a parent that is some other workflow).
 */
import type { SearchAttributePair } from '@temporalio/common';
import {
  ParentClosePolicy,
  condition,
  defineQuery,
  defineSignal,
  makeContinueAsNewFunc,
  setDefaultSignalHandler,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import { TEAM_LEAD_WORKFLOW_TYPE } from '../../shared/contract';
import type { LeadRunInput } from '../../shared/lead/carried';

export interface PlantedChild {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  /** Absent: the child has no memo at all. */
  memo?: Record<string, unknown>;
  typedSearchAttributes?: SearchAttributePair[];
  /** Absent: the planter's own queue. */
  taskQueue?: string;
}

export interface Planting {
  children: PlantedChild[];
  /** The Lead's next run; absent: the planter completes on hand-over. */
  thenLead?: LeadRunInput;
}

export const handOverSignal = defineSignal('handOver');
export const plantedQuery = defineQuery<number>('planted');

export async function childPlanter(planting: Planting): Promise<void> {
  let handOver = false;
  let planted = 0;
  setHandler(handOverSignal, () => void (handOver = true));
  setHandler(plantedQuery, () => planted);
  // Planted teammates report their status to the Team's id, which is this workflow until the hand-over.
  setDefaultSignalHandler(() => undefined);
  for (const child of planting.children) {
    await startChild(child.workflowType, {
      workflowId: child.workflowId,
      args: child.args,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      ...(child.memo ? { memo: child.memo } : {}),
      ...(child.typedSearchAttributes ? { typedSearchAttributes: child.typedSearchAttributes } : {}),
      ...(child.taskQueue ? { taskQueue: child.taskQueue } : {}),
    });
    planted += 1;
  }
  await condition(() => handOver);
  if (planting.thenLead) await makeContinueAsNewFunc({ workflowType: TEAM_LEAD_WORKFLOW_TYPE })(planting.thenLead);
}
