/**
 * Where a workflow's time goes, read from its history: the events it wrote after a mark, the
 * workflow tasks it completed, each task's time from started to completed, and each signal it sent
 * from initiated to landed. bench/floor.ts uses this to say why sends trail the bare relay. The time
 * a task waited on its queue is not read: the server writes a speculative task's scheduled and
 * started events together, at its completion.
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';

/** One workflow's history after a mark: its events, its completed workflow tasks and each one's time from started to completed (ms). */
export interface WorkflowTaskTimes {
  /** Events written to its history after the mark, of every kind. */
  events: number;
  /** Bytes its history grew by after the mark. */
  bytes: number;
  completed: number;
  ran: number[];
  /** Each signal it sent to another workflow, from initiated to landed as its history records them (ms). */
  signalLanded: number[];
}

/** Where a workflow's history stood: its current run and that run's last event id. */
export interface HistoryMark {
  runId: string;
  lastEventId: number;
  /** The run's history size in bytes, as the server counts it. */
  bytes: number;
}

/** Each workflow's current run and last event id now: the mark its later events are counted from. */
export async function historyMarks(client: Client, workflowIds: string[]): Promise<Map<string, HistoryMark>> {
  const marks = new Map<string, HistoryMark>();
  for (const id of workflowIds) {
    const { runId, historySize } = await client.workflow.getHandle(id).describe();
    const events = (await client.workflow.getHandle(id, runId).fetchHistory()).events ?? [];
    marks.set(id, { runId, lastEventId: Number(events.at(-1)?.eventId ?? 0), bytes: historySize ?? 0 });
  }
  return marks;
}

/**
 * The workflow tasks each workflow completed after its mark, by id; null when a run continued as new
 * since the mark (its history starts again, so its tasks are not comparable).
 */
export async function workflowTaskTimes(client: Client, marks: Map<string, HistoryMark>): Promise<Map<string, WorkflowTaskTimes> | null> {
  const out = new Map<string, WorkflowTaskTimes>();
  for (const [id, { runId, lastEventId: mark, bytes }] of marks) {
    const now = await client.workflow.getHandle(id).describe();
    if (now.runId !== runId) return null;
    const events = (await client.workflow.getHandle(id, runId).fetchHistory()).events ?? [];
    const byId = new Map(events.map((event) => [Number(event.eventId), event]));
    const at = (eventId: unknown): number | undefined => {
      const event = byId.get(Number(eventId));
      return event ? tsToMs(event.eventTime) : undefined;
    };
    const times: WorkflowTaskTimes = {
      events: Number(events.at(-1)?.eventId ?? 0) - mark,
      bytes: (now.historySize ?? 0) - bytes,
      completed: 0,
      ran: [],
      signalLanded: [],
    };
    for (const event of events) {
      const landed = event.externalWorkflowExecutionSignaledEventAttributes;
      if (landed && Number(event.eventId) > mark) {
        const initiatedAt = at(landed.initiatedEventId);
        if (initiatedAt !== undefined) times.signalLanded.push(tsToMs(event.eventTime) - initiatedAt);
      }
      const done = event.workflowTaskCompletedEventAttributes;
      if (!done || Number(event.eventId) <= mark) continue;
      const startedAt = at(done.startedEventId);
      times.completed += 1;
      if (startedAt !== undefined) times.ran.push(tsToMs(event.eventTime) - startedAt);
    }
    out.set(id, times);
  }
  return out;
}
