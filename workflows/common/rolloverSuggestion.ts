/**
 * Whether the server suggests continue-as-new, as a replay of the run sees it.
 *
 * `workflowInfo().continueAsNewSuggested` is read from the current workflow task's started event.
 * A task whose only jobs are Updates that the validators reject leaves no event in history (the
 * server drops a speculative task; a replay has no activation for it), yet its started event can
 * carry the first suggestion: the history crossed the server's size or count limit in the
 * previous completion, or a flood of Updates filled the registry. A run that began rolling over
 * there would, on replay, begin one task later or never, and fail with a non-determinism error.
 *
 * Runs that begin with TRACED_SUGGESTION_PATCH read the suggestion of the latest activation that
 * a replay sees too: one with a job that comes from an event (the start, a signal, a timer, a
 * resolution, a cancel request), or an Update its validator accepted. The live run and its replay
 * take the value from the same started event at the same point. Runs recorded before the patch
 * read `workflowInfo()` as they did.
 */
import { patched, workflowInfo, type ActivateInput, type WorkflowInboundCallsInterceptor } from '@temporalio/workflow';
import { TRACED_SUGGESTION_PATCH } from '../../shared/contract/patches';

type Activation = ActivateInput['activation'];
type ActivationJob = NonNullable<Activation['jobs']>[number];

/**
 * Jobs that stand for an event in history. Not here: `doUpdate` (a rejected one leaves no event;
 * an accepted one is seen in `handleUpdate`), `queryWorkflow`, and the jobs a replay adds on its
 * own (`notifyHasPatch`, `updateRandomSeed`, `removeFromCache`).
 */
const EVENT_JOBS = [
  'initializeWorkflow',
  'fireTimer',
  'cancelWorkflow',
  'signalWorkflow',
  'resolveActivity',
  'resolveChildWorkflowExecutionStart',
  'resolveChildWorkflowExecution',
  'resolveSignalExternalWorkflow',
  'resolveRequestCancelExternalWorkflow',
  'resolveNexusOperationStart',
  'resolveNexusOperation',
] as const satisfies readonly (keyof ActivationJob)[];

let traced = false;
let latched = false;

/** Turns the traced reading on for this run, at its start (in its first activation). */
export function useTracedSuggestion(): void {
  traced = patched(TRACED_SUGGESTION_PATCH);
}

/** Whether the server suggests continue-as-new: the value every replay of this run sees here too. */
export function continueAsNewSuggested(): boolean {
  return traced ? latched : workflowInfo().continueAsNewSuggested;
}

/** Called by the internals interceptor before an activation's jobs run (workflows/interceptors.ts). */
export function observeActivation(activation: Activation): void {
  if (activation.jobs?.some((job) => EVENT_JOBS.some((kind) => job[kind] != null))) latched = workflowInfo().continueAsNewSuggested;
}

/** Notes the suggestion when an Update is accepted: its handler starts in the same job, live and in replay. */
export const rolloverSuggestionInbound: WorkflowInboundCallsInterceptor = {
  handleUpdate(input, next) {
    latched = workflowInfo().continueAsNewSuggested;
    return next(input);
  },
};
