import { ApplicationFailure, type ApplicationFailureOptions } from '@temporalio/common';
import type { z } from 'zod';
import type { TeamRejection } from './rejections';

/**
 * Failure types that are not core rejections. Both are stable public API.
 *  - TeamRollingOver: the Lead is about to continue-as-new; retry the same call (same update id).
 *    The project's client retries it for you.
 *  - TeamClosed: the Lead finished (disposed); nothing more is accepted.
 * The others are documented in docs/wire-contract.md (Failure types).
 */
export const TEAM_ROLLING_OVER = 'TeamRollingOver';
export const TEAM_CLOSED = 'TeamClosed';
/** A send's target workflow could not take the signal (it has exited). */
export const MEMBER_UNAVAILABLE = 'MemberUnavailable';
/** Creation and recovery settled a provisioning record differently; the child was drained. */
export const PROVISIONING_CONFLICT = 'ProvisioningConflict';
/** Disposal could not stop every child; admission stays closed and disposeTeam can be retried. */
export const DISPOSAL_FAILED = 'DisposalFailed';

/**
 * A typed failure that answers a caller: its `type` and message say what happened and what to do,
 * so its stack is that one line, without frames. Frames say nothing to a caller, and formatting
 * them is most of what a failure costs (bench/failures.ts), paid for each of the 63 refused claims
 * of a race of 64. Failures that report a bug (TeamInternalError) keep their frames.
 */
export function answerFailure(options: ApplicationFailureOptions): ApplicationFailure {
  const failure = ApplicationFailure.create(options);
  // Before anything reads `stack`: V8 formats the captured frames on the first read.
  failure.stack = `${failure.name}: ${failure.message}`;
  return failure;
}

/** A core rejection as the ApplicationFailure callers see: stable `type`, actionable message, rejection in details. */
export function rejectionFailure(rejection: TeamRejection): ApplicationFailure {
  return answerFailure({ type: rejection.type, message: rejection.message, details: [rejection], nonRetryable: true });
}

export function invalidInputFailure(updateName: string, error: z.ZodError): ApplicationFailure {
  const issues = error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
  return answerFailure({
    type: 'InvalidTeamCommand',
    message: `${updateName} input is invalid: ${issues}. See the wire contract in docs/wire-contract.md.`,
    details: [{ type: 'InvalidTeamCommand', issues: error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) }],
    nonRetryable: true,
  });
}

export function rollingOverFailure(): ApplicationFailure {
  return answerFailure({
    type: TEAM_ROLLING_OVER,
    message: 'the Lead is continuing as new; retry the same call with the same update id in a moment',
    nonRetryable: false,
  });
}
