/**
 * Recovery never fails the Lead: a reconciliation that exhausted its retries becomes a `failed`
 * outcome naming reconciliation and the activity's innermost message, cut to the status text
 * limit; cancellation is not giving up and propagates. (The real-server drill is
 * test/integration/recoveryGivesUp.test.ts.)
 */
import { ActivityFailure, ApplicationFailure, CancelledFailure, RetryState } from '@temporalio/common';
import { MAX_STATUS_TEXT_LENGTH } from '../../shared/contract/limits';
import { reconciliationGaveUp } from '../../workflows/lead/roster';

const activityFailure = (cause: Error): ActivityFailure =>
  new ActivityFailure('Activity task failed', 'reconcileTeammate', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', cause);

describe('reconciliation that gives up', () => {
  it("settles failed with the activity failure's innermost message, nothing drained", () => {
    const error = activityFailure(ApplicationFailure.create({ message: 'store unreachable', cause: new Error('ECONNREFUSED 10.0.0.1:7233') }));
    expect(reconciliationGaveUp(error)).toEqual({
      phase: 'failed',
      reason: 'reconciliation gave up after its retries: ECONNREFUSED 10.0.0.1:7233',
      drained: false,
    });
    expect(reconciliationGaveUp(activityFailure(ApplicationFailure.create({ message: 'store unreachable' })))).toMatchObject({
      reason: 'reconciliation gave up after its retries: store unreachable',
    });
  });

  it('cuts the reason to the status text limit', () => {
    const outcome = reconciliationGaveUp(activityFailure(ApplicationFailure.create({ message: 'x'.repeat(3 * MAX_STATUS_TEXT_LENGTH) })));
    expect(outcome.phase).toBe('failed');
    if (outcome.phase !== 'failed') return;
    expect(outcome.reason).toHaveLength(MAX_STATUS_TEXT_LENGTH);
    expect(outcome.reason.startsWith('reconciliation gave up after its retries: xxx')).toBe(true);
  });

  it('lets cancellation propagate', () => {
    const cancelledActivity = activityFailure(new CancelledFailure('Activity cancelled'));
    expect(() => reconciliationGaveUp(cancelledActivity)).toThrow(cancelledActivity);
    const cancelled = new CancelledFailure('Workflow cancelled');
    expect(() => reconciliationGaveUp(cancelled)).toThrow(cancelled);
  });
});
