import { ApplicationFailure } from '@temporalio/common';
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

/** A core rejection as the ApplicationFailure callers see: stable `type`, actionable message, rejection in details. */
export function rejectionFailure(rejection: TeamRejection): ApplicationFailure {
  return ApplicationFailure.create({ type: rejection.type, message: rejection.message, details: [rejection], nonRetryable: true });
}

export function invalidInputFailure(updateName: string, error: z.ZodError): ApplicationFailure {
  const issues = error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
  return ApplicationFailure.create({
    type: 'InvalidTeamCommand',
    message: `${updateName} input is invalid: ${issues}. See the wire contract in docs/wire-contract.md.`,
    details: [{ type: 'InvalidTeamCommand', issues: error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) }],
    nonRetryable: true,
  });
}

export function rollingOverFailure(): ApplicationFailure {
  return ApplicationFailure.create({
    type: TEAM_ROLLING_OVER,
    message: 'the Lead is continuing as new; retry the same call with the same update id in a moment',
    nonRetryable: false,
  });
}
