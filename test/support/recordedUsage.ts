/**
 * The usage a workflow's histories hold: every callModel activity that completed in any run of its
 * chain, summed from the results the server recorded. What the views say must equal this: each
 * recorded call counted once, none lost to a rollover, a crash or a retry.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { NO_USAGE, addUsage, callUsage } from '../../shared/agent/usage';
import type { ModelResponse } from '../../shared/contract/model';
import type { UsageTotals } from '../../shared/contract/usage';

export async function recordedModelUsage(client: Client, workflowId: string): Promise<UsageTotals> {
  let total = NO_USAGE;
  let runId: string | null = (await client.workflow.getHandle(workflowId).describe()).runId;
  const seen = new Set<string>();
  while (runId && !seen.has(runId)) {
    seen.add(runId);
    const events: temporal.api.history.v1.IHistoryEvent[] = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    total = addUsage(total, usageOfRun(events));
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || null;
  }
  return total;
}

function usageOfRun(events: temporal.api.history.v1.IHistoryEvent[]): UsageTotals {
  const modelCalls = new Set<string>();
  let total = NO_USAGE;
  for (const event of events) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel') modelCalls.add(String(event.eventId));
    const completed = event.activityTaskCompletedEventAttributes;
    if (!completed || !modelCalls.has(String(completed.scheduledEventId))) continue;
    const payload = completed.result?.payloads?.[0];
    const response = payload ? defaultPayloadConverter.fromPayload<ModelResponse>(payload) : undefined;
    total = addUsage(total, callUsage(response?.usage));
  }
  return total;
}
