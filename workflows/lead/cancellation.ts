/**
 * A cancel request on the Lead (`handle.cancel()`, `temporal workflow cancel`, the Web UI's
 * "Request Cancellation") is an orderly disposal, not a cut: the Lead's body and every Update
 * handler run in non-cancellable scopes, so the request rejects nothing the Lead holds (a spawn's
 * start, a send's signal, a wait, a recovery). The request only sets a flag; the main loop then
 * disposes of the Team exactly as disposeTeam does (docs/semantics.md#cancellation) and ends the
 * run as cancelled.
 */
import { ApplicationFailure, CancellationScope, condition, log } from '@temporalio/workflow';
import { innermostMessage } from '../../shared/util/errors';
import type { LeadRun } from './leadRun';
import type { LeadOperations } from './operations';
import { LEAD } from '../../shared/contract/callers';

/** The cancelled run's failure message: what `temporal workflow describe` and the client show after the disposal. */
export const CANCELLED_AFTER_DISPOSAL = 'the Team was disposed on a cancel request: every member was stopped';

/** The id the cancel path's disposal runs under (disposeTeam is not idempotent, so it is never remembered). */
const CANCEL_DISPOSAL_ID = 'cancel-request';

/** Runs `fn` in a non-cancellable scope when the patch is on; as it is (synchronously) otherwise. */
export function shieldFromCancel(on: boolean): <T>(fn: () => T | Promise<T>) => T | Promise<T> {
  return on ? (fn) => CancellationScope.nonCancellable(async () => fn()) : (fn) => fn();
}

/** Calls `onRequest` once the workflow's root scope receives a cancel request (in the activation that delivers it). */
export function whenCancelRequested(onRequest: () => void): void {
  CancellationScope.current().cancelRequested.catch(onRequest);
}

/**
 * The disposal a cancel request starts: disposeTeam's own steps (close admission, settle admitted
 * operations, stop every child). A disposeTeam already under way is awaited rather than doubled.
 * A child that cannot be stopped does not keep the Lead open: the run still ends cancelled, the
 * failure is logged, and the reaper (docs/deployment.md#orphans-and-the-reaper) stops what is left.
 */
export async function disposeOnCancel(run: LeadRun, operations: LeadOperations): Promise<void> {
  await condition(() => run.disposalsInFlight === 0);
  if (run.disposeRequested) return;
  try {
    await operations.execute(operations.table.disposeTeam, { caller: LEAD }, CANCEL_DISPOSAL_ID);
  } catch (error) {
    log.warn('the disposal on a cancel request could not stop every member; the reaper stops what is left', {
      error: error instanceof ApplicationFailure ? `${error.type}: ${error.message}` : innermostMessage(error),
    });
  }
}
