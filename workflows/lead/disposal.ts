/**
 * Disposing of the Team, in the seed's order: close admission, abort and await the admitted
 * creation and send operations, stop every live child the roster records (and the Lead's own
 * subagents), then complete.
 *
 * What "abort" means for each operation in flight when disposal begins (docs/semantics.md#disposal):
 *  - a spawn: its provisioning record is committed and its child start is issued in the activation
 *    that admits it, so an admitted spawn always has a start in flight. A start cannot be taken
 *    back, so it settles (active or failed, reconciliation included) and its caller gets its
 *    ordinary SpawnTeammateResult; the record is the roster's, and disposal stops its child like
 *    any other;
 *  - a send: its signal is issued in the activation that admits it and cannot be unsent, so it
 *    finishes and its caller gets its ordinary InboxAcceptance (or MemberUnavailable);
 *  - a wait (waitForEdge) in progress: aborted. It wakes at once with `{ woke: 'rollover' }`, the
 *    result a wait already gets when the run it waits on stops serving (continue-as-new); it says
 *    "re-read the roster", which then shows admission closed. Waits that arrive during disposal
 *    return the same at once;
 *  - the Lead's own turn: cancelled (its tools' calls end with the cancellation), and the Lead agent
 *    starts no further turn;
 *  - any new spawn or send (an Update, a teammate's tool, the Lead's own tool): refused with
 *    TeamAdmissionClosed from the activation that accepts disposeTeam on.
 * A child that cannot be stopped fails disposal with DisposalFailed; admission stays closed and a
 * retry of disposeTeam stops what is left.
 */
import { condition, patched } from '@temporalio/workflow';
import { errorMessage, innermostMessage } from '../../shared/util/errors';
import { DISPOSAL_FAILED, answerFailure } from '../../shared/contract/failures';
import { childrenToStop, decideCloseTeam, decideStop } from '../../shared/lead';
import { teamView } from '../../shared/team';
import { control } from './children';
import type { LeadContext } from './context';
import { keepSearchAttribute } from '../common/searchAttributes';
import { AGENT_TEAM_PHASE } from '../../shared/contract/searchAttributes';
import { DISPOSE_CLOSES_ADMISSION_FIRST_PATCH } from '../../shared/contract/patches';
import type { TeamView } from '../../shared/contract/team';

export interface DisposalHooks {
  /** Cancels the Lead agent's turn in progress, if any. */
  cancelTurn(): void;
  /** Stops the Lead's open subagents, each until it has exited. */
  stopSubagents(): Promise<void>;
}

export function createDisposal(ctx: LeadContext, hooks: DisposalHooks) {
  const { run } = ctx;

  /** After admission closed: admitted spawns and sends settle, then every recorded child is stopped. */
  const stopEverything = async (): Promise<TeamView> => {
    // A try/finally adds no promise step: the commands stay in the order recorded before the counter existed.
    try {
      await condition(() => run.operationsInFlight === 0);
      const failures: string[] = [];
      try {
        await hooks.stopSubagents();
      } catch (error) {
        failures.push(`the Lead's subagents: ${innermostMessage(error)}`);
      }
      // Includes the children of spawns that settled after admission closed, and failed records (cleanup-owned).
      await stopRecordedChildren(ctx, failures, innermostMessage);
      throwIfDisposalFailed(failures);
      run.disposalCompleted();
      keepSearchAttribute(AGENT_TEAM_PHASE, 'stopped');
      return teamView(run.state.team, ctx.leadStatus());
    } finally {
      run.endDisposal();
    }
  };

  /**
   * Not async on purpose: everything before `stopEverything`'s first await runs in the activation
   * that accepts disposeTeam, so no spawn or send is admitted after it. A retry finds admission
   * closed already (no new event) and stops what is left.
   */
  const closeAdmissionFirst = (): Promise<TeamView> => {
    run.commit(decideCloseTeam(run.state, ctx.now()));
    run.beginDisposal();
    hooks.cancelTurn();
    return stopEverything();
  };

  /** The old order's last part: close admission, await admitted spawns and sends, then stop every recorded child. */
  const closeThenStopChildren = async (): Promise<TeamView> => {
    run.commit(decideCloseTeam(run.state, ctx.now()));
    await condition(() => run.operationsInFlight === 0);
    const failures: string[] = [];
    await stopRecordedChildren(ctx, failures, errorMessage);
    throwIfDisposalFailed(failures);
    run.disposalCompleted();
    return teamView(run.state.team, ctx.leadStatus());
  };

  /** The order of runs recorded before DISPOSE_CLOSES_ADMISSION_FIRST_PATCH. */
  const inTheOldOrder = async (): Promise<TeamView> => {
    hooks.cancelTurn();
    await hooks.stopSubagents();
    return closeThenStopChildren();
  };

  /** Disposes of the Team in the order the run recorded: called in the activation that accepts disposeTeam. */
  const dispose = (): Promise<TeamView> => (patched(DISPOSE_CLOSES_ADMISSION_FIRST_PATCH) ? closeAdmissionFirst() : inTheOldOrder());

  return { dispose };
}

/** Stops every child the roster records (failed ones too), one at a time, marking each stopped; what cannot be stopped is added to `failures`. */
async function stopRecordedChildren(ctx: LeadContext, failures: string[], reason: (error: unknown) => string): Promise<void> {
  for (const record of childrenToStop(ctx.run.state)) {
    try {
      await control.stopTeammate({ workflowId: record.workflowId });
      ctx.run.commit(decideStop(ctx.run.state, record.name, ctx.now()));
    } catch (error) {
      failures.push(`${record.name}: ${reason(error)}`);
    }
  }
}

/** DisposalFailed naming everything that could not be stopped: admission stays closed and a retry completes. */
function throwIfDisposalFailed(failures: readonly string[]): void {
  if (failures.length === 0) return;
  throw answerFailure({
    type: DISPOSAL_FAILED,
    message: `could not stop ${failures.join('; ')}; admission stays closed, retry disposeTeam`,
    nonRetryable: true,
  });
}
