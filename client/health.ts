/**
 * What the server can say about a Team's Lead without a worker: its run status, its task queue and
 * whether any worker polls it, and whether its workflow tasks keep failing. Used to diagnose a call
 * that timed out, and by `agent-teams status`.
 */
import type { Client } from '@temporalio/client';
import type { TeamHealth } from './deadlines';

/** temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL (the proto enums are not a dependency of this package). */
const TASK_QUEUE_KIND_NORMAL = 1;
/** temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW. */
const TASK_QUEUE_TYPE_WORKFLOW = 1;
/** Events read back from the end of the run's history for the last workflow task failure. */
const HISTORY_TAIL = 100;
const MAX_FAILURE_CHARS = 300;

/** Reads the Lead's health; the gRPC deadline is the caller's (`connection.withDeadline`). Throws WorkflowNotFoundError for an unknown Team. */
export async function readTeamHealth(client: Client, teamId: string): Promise<TeamHealth> {
  const description = await client.workflow.getHandle(teamId).describe();
  const namespace = client.options.namespace;
  const attempt = description.raw.pendingWorkflowTask ? (description.raw.pendingWorkflowTask.attempt ?? 1) : null;
  const [pollers, lastFailure] = await Promise.all([
    client.workflowService
      .describeTaskQueue({ namespace, taskQueue: { name: description.taskQueue, kind: TASK_QUEUE_KIND_NORMAL }, taskQueueType: TASK_QUEUE_TYPE_WORKFLOW })
      .then(
        (response) => response.pollers?.length ?? 0,
        () => null,
      ),
    attempt !== null && attempt > 1 ? lastWorkflowTaskFailure(client, namespace, teamId, description.runId).catch(() => null) : Promise.resolve(null),
  ]);
  return {
    teamId,
    status: description.status.name,
    runId: description.runId,
    taskQueue: description.taskQueue,
    historyLength: description.historyLength,
    workflowTaskAttempt: attempt,
    pollers,
    lastWorkflowTaskFailure: lastFailure,
  };
}

/** The most recent WorkflowTaskFailed event of the run (later attempts of a failing task are not written to history). */
async function lastWorkflowTaskFailure(client: Client, namespace: string, workflowId: string, runId: string): Promise<string | null> {
  const response = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace,
    execution: { workflowId, runId },
    maximumPageSize: HISTORY_TAIL,
  });
  for (const event of response.history?.events ?? []) {
    const failure = event.workflowTaskFailedEventAttributes?.failure;
    if (event.workflowTaskFailedEventAttributes) {
      const message = (failure?.message ?? 'no message').replace(/\s+/g, ' ').trim();
      return message.length > MAX_FAILURE_CHARS ? `${message.slice(0, MAX_FAILURE_CHARS - 1)}…` : message;
    }
  }
  return null;
}
