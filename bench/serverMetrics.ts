/**
 * What the dev server's history service counted while signals were delivered, read from its
 * Prometheus metrics (`DevServer.metricsUrl`). A signal to another workflow is a transfer-queue task
 * of the sender's; the task locks the sender's and the target's workflow as a background caller,
 * which waits at most `history.cacheNonUserContextLockTimeout` (500 ms by default) for each lock and
 * otherwise fails with BusyWorkflow and is tried again later. bench/floor.ts uses the difference of
 * two readings to say how many of a side's signal deliveries waited out that timeout.
 */

/** The server's counters for signal deliveries (transfer tasks `TransferActiveTaskSignalExecution`) so far. */
export interface SignalTaskCounts {
  /** Deliveries done (each counted once, however many tries it took). */
  delivered: number;
  /** Tries that failed because a workflow's lock stayed taken past the background caller's timeout. */
  busyWorkflow: number;
}

const SIGNAL_TASK = 'operation="TransferActiveTaskSignalExecution"';

/** Sums the samples of `metric` whose labels hold every one of `labels`. */
function sumOf(text: string, metric: string, labels: string[]): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const close = line.lastIndexOf('}');
    const labelText = line.slice(metric.length + 1, close);
    if (!labels.every((label) => labelText.includes(label))) continue;
    const value = Number(line.slice(close + 1).trim());
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}

/** The signal-delivery counters in the text of a Prometheus scrape. */
export function signalTaskCountsIn(text: string): SignalTaskCounts {
  return {
    delivered: sumOf(text, 'task_attempt_count', [SIGNAL_TASK]),
    busyWorkflow: sumOf(text, 'task_errors_throttled', [SIGNAL_TASK, 'resource_exhausted_cause="BusyWorkflow"']),
  };
}

export async function signalTaskCounts(metricsUrl: string): Promise<SignalTaskCounts> {
  const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`the dev server's metrics at ${metricsUrl} answered ${response.status}`);
  return signalTaskCountsIn(await response.text());
}

/** What happened between two readings. */
export function countsSince(before: SignalTaskCounts, after: SignalTaskCounts): SignalTaskCounts {
  return { delivered: after.delivered - before.delivered, busyWorkflow: after.busyWorkflow - before.busyWorkflow };
}
