/**
 * Keeps each workflow-task completion of a run within COMPLETION_MAX_BYTES (shared/lead/completionSize.ts):
 * Update results (guardedUpdate), command payloads (the outbound interceptor in workflows/interceptors.ts)
 * and the final result pass through here; what does not fit waits for a later workflow task.
 *
 * SDK 1.24 has no "yield to the next workflow task", so a waiting item is sent from a later activation,
 * which a signal the workflow sends itself (completionNudge) forces. The server refuses a signal to
 * the sending workflow at once (SignalExternalWorkflowExecutionFailed, cause
 * EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND: service/history/transfer_queue_active_task_executor.go),
 * and that event is the next workflow task, within milliseconds. Waiting items go in the activation
 * that applies the refusal: its event is in history, so a replay sends them in the same task. (Not
 * at "any new activation": one whose only jobs are Updates the validator rejected leaves no trace,
 * and a replay has no such activation.) `workflowInfo().historyLength` names the activation for the
 * scheduler (it is the workflow task's started event id; queries do not change it). A timer would
 * force a task too, but the dev server fires a 1 ms timer about a second later (942 ms median,
 * measured). Each forced task costs five events (the signal initiated and failed, and the workflow
 * task's three), shared by the items it sends.
 *
 * Module state is per workflow: the SDK gives each workflow its own module instances.
 */
import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  patched,
  setHandler,
  workflowInfo,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { completionNudgeSignal } from '../../shared/contract/lead';
import { COMPLETION_ITEM_OVERHEAD_BYTES, CompletionScheduler } from '../../shared/lead/completionSize';
import { jsonBytes } from '../../shared/contract/limits';
import { ARRIVAL_ORDER_PATCH, COMPLETION_SIZE_PATCH } from '../../shared/contract/patches';

interface Waiting {
  /** Measures the item as it would be sent now (a deferred read is produced again). */
  measure(): number;
  /** Sends it: resolves whatever awaits it. */
  admit(): void;
}

let scheduler: CompletionScheduler<Waiting> | null = null;
let arrivalOrder = false;
let draining = false;
/** Nudges sent whose refusal has not come back yet. */
let nudgesInFlight = 0;

const activation = (): number => workflowInfo().historyLength;

/**
 * Turns the completion size limit on for this run, at its start. Returns whether it is on: runs recorded before
 * COMPLETION_SIZE_PATCH keep every item in the completion that produces it, as they were recorded.
 */
export function useCompletionSizeLimit(): boolean {
  if (scheduler === null && patched(COMPLETION_SIZE_PATCH)) {
    scheduler = new CompletionScheduler<Waiting>();
    arrivalOrder = patched(ARRIVAL_ORDER_PATCH);
    // The server never delivers the workflow's own nudge; one sent by anyone else only costs a workflow task.
    setHandler(completionNudgeSignal, () => undefined);
  }
  return scheduler !== null;
}

/** Bytes an item takes in a completion: its JSON and the framing around it. */
export function completionBytes(value: unknown): number {
  return jsonBytes(value) + COMPLETION_ITEM_OVERHEAD_BYTES;
}

/** An accepted Update's request: the SDK echoes it in this task's completion, whatever else is decided. */
export function countAcceptedRequest(args: unknown): void {
  scheduler?.force(activation(), completionBytes(args));
}

/**
 * Room for a command payload of `bytes`: undefined when it goes into this completion (the caller
 * issues the command now, with no promise step, so command order is as without the limit), or a
 * promise that resolves in the later activation whose completion takes it.
 */
export function roomFor(bytes: number): Promise<void> | undefined {
  if (scheduler === null) return undefined;
  let admit!: () => void;
  const admitted = new Promise<void>((resolve) => (admit = resolve));
  if (scheduler.offer(activation(), bytes, { measure: () => bytes, admit })) return undefined;
  drainLater();
  return admitted;
}

/**
 * An Update result: returned as it is when it goes into this completion, or else a promise of the
 * result sent from a later one. `reproduce`, for reads, produces the result again as of the task
 * that sends it, so a deferred read is never older than its own completion.
 */
export function deliverResult<T>(result: T, reproduce?: () => T): T | Promise<T> {
  if (scheduler === null) return result;
  const { waiting, sent } = waitingResult(result, reproduce);
  if (scheduler.offer(activation(), completionBytes(result), waiting)) return result;
  drainLater();
  return sent;
}

/** Where an accepted Update's result goes in runs that send results in arrival order (resultsInArrivalOrder). */
export interface ResultSlot<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * True for runs that send results in arrival order (ARRIVAL_ORDER_PATCH). Their Update handlers
 * return a promise that only this module settles, always with a plain value or error, never with
 * another promise: then every result takes the same promise steps from here to the SDK, which
 * sends it in the order it was settled. Before it, a result that waited took two promise steps
 * more than one that did not (a promise resolved with a promise), so of two results sent from the
 * same task, the one accepted later could leave first.
 */
export function resultsInArrivalOrder(): boolean {
  return arrivalOrder;
}

/**
 * A result ready now (resultsInArrivalOrder runs): settled at once when nothing waits before it and
 * it fits this completion; otherwise it waits, and the later task that admits it settles it.
 * `reproduce`, for reads, produces it again as of that task.
 */
export function settleWithRoom<T>(slot: ResultSlot<T>, result: T, reproduce?: () => T): void {
  const outcome = remeasured(result, reproduce);
  if (scheduler!.offer(activation(), completionBytes(result), { measure: outcome.measure, admit: () => outcome.settle(slot) })) slot.resolve(result);
  else drainLater();
}

/**
 * A read accepted now (resultsInArrivalOrder runs). When nothing waits it is produced now and goes
 * or waits by its size. When results wait it waits behind them whatever its size, unproduced: the
 * task that sends it produces it. Producing it now as well would only cost time: 64 whole lists
 * accepted in one activation are 64 board views (about 100 ms each on a board at its size limit), past
 * the SDK's 5 s limit on one activation.
 */
export function settleRead<T>(slot: ResultSlot<T>, produce: () => T): void {
  if (scheduler!.waitingCount > 0) {
    const outcome = remeasured<T | undefined>(undefined, produce);
    scheduler!.wait(activation(), { measure: outcome.measure, admit: () => outcome.settle(slot) });
    drainLater();
    return;
  }
  let result: T;
  try {
    result = produce();
  } catch (error) {
    slot.reject(error);
    return;
  }
  settleWithRoom(slot, result, produce);
}

/** A result that may be produced again: `measure` (re)makes and sizes it, `settle` hands over what was made last. */
function remeasured<T>(result: T, reproduce?: () => T): { measure: () => number; settle: (slot: ResultSlot<T>) => void } {
  let current = result;
  let failure: { error: unknown } | null = null;
  return {
    measure: () => {
      if (!reproduce) return completionBytes(current);
      try {
        current = reproduce();
        failure = null;
        return completionBytes(current);
      } catch (error) {
        // The Update then fails with this (typed) error; a failure is small.
        failure = { error };
        return COMPLETION_ITEM_OVERHEAD_BYTES;
      }
    },
    settle: (slot) => (failure ? slot.reject(failure.error) : slot.resolve(current)),
  };
}

/** A result as a waiting item in runs before ARRIVAL_ORDER_PATCH, with their promise steps: `sent` resolves with it once admitted. */
function waitingResult<T>(result: T, reproduce?: () => T): { waiting: Waiting; sent: Promise<T> } {
  const outcome = remeasured(result, reproduce);
  let admit!: () => void;
  const admitted = new Promise<void>((resolve) => (admit = resolve));
  const sent = admitted.then(() => {
    let settled!: { value: T } | { error: unknown };
    outcome.settle({ resolve: (value) => (settled = { value }), reject: (error) => (settled = { error }) });
    if ('error' in settled) throw settled.error;
    return settled.value;
  });
  return { waiting: { measure: outcome.measure, admit }, sent };
}

/**
 * Sends waiting items from later activations until none waits. Not cancellable: a cancel request on
 * the workflow must not strand an accepted Update's result or a command the workflow still awaits.
 */
function drainLater(): void {
  if (draining) return;
  draining = true;
  void CancellationScope.nonCancellable(async () => {
    while (scheduler !== null && scheduler.waitingCount > 0) {
      if (arrivalOrder) {
        // The activation that applies the nudge's refusal: its event is in history, so a replay steps here too.
        await nudge();
      } else {
        // Runs before ARRIVAL_ORDER_PATCH step at any activation with a new history length. That
        // includes one whose only jobs were Updates the validator rejected, which leave no trace:
        // a replay has no such activation, so under a flood of rejected requests those runs can be
        // non-deterministic (seen on the dev server and the cluster). Kept for their replay.
        const seen = activation();
        void nudge();
        await condition(() => activation() !== seen);
      }
      for (const item of scheduler.admitWaiting(activation(), (waiting) => waiting.measure())) item.admit();
    }
    draining = false;
  });
}

/**
 * Forces a later workflow task: the server answers a signal to oneself at once, by failing it,
 * which is all it is for. Resolves in the activation that applies the refusal.
 */
function nudge(): Promise<void> {
  nudgesInFlight += 1;
  return getExternalWorkflowHandle(workflowInfo().workflowId)
    .signal(completionNudgeSignal)
    .catch(() => undefined)
    .finally(() => void (nudgesInFlight -= 1));
}

/**
 * Waits until every nudge has come back. A run that closes (continues as new, completes) must not
 * have one in flight: its refusal would arrive during the closing task, and the server fails a task
 * that closes the run while it has unseen events (UNHANDLED_COMMAND), and with it the Updates it carries.
 */
function nudgesSettled(): Promise<void> | undefined {
  return nudgesInFlight === 0 ? undefined : condition(() => nudgesInFlight === 0);
}

/** Room for the payload that closes the run (its result or continue-as-new input), with no nudge still in flight. */
export function roomToClose(bytes: number): Promise<void> | undefined {
  const room = roomFor(bytes);
  if (room) return room.then(() => nudgesSettled());
  return nudgesSettled();
}

/** Passes `next(input)` through once the payload has room: at once (no promise step) when it fits. */
function afterRoom<I, R>(bytes: number, input: I, next: (input: I) => Promise<R>): Promise<R> {
  const wait = roomFor(bytes);
  return wait ? wait.then(() => next(input)) : next(input);
}

/**
 * Every command that carries a payload, by construction: activity inputs, child starts, signals
 * and the continue-as-new input wait for room in a completion like Update results do.
 */
export const completionSizeOutbound: WorkflowOutboundCallsInterceptor = {
  scheduleActivity: (input, next) => afterRoom(completionBytes(input.args), input, next),
  startChildWorkflowExecution: (input, next) => afterRoom(completionBytes(input.options.args ?? []), input, next),
  // The nudge itself never waits: it is what ends the wait.
  signalWorkflow: (input, next) => (input.signalName === completionNudgeSignal.name ? next(input) : afterRoom(completionBytes(input.args), input, next)),
  continueAsNew: (input, next) => {
    const wait = roomToClose(completionBytes(input.args));
    return wait ? wait.then(() => next(input)) : next(input);
  },
};
