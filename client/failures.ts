/**
 * Client-side failure types (stable, like the Lead's in shared/contract/failures.ts; see cli/index.ts for
 * what to do next). The client throws them as an ApplicationFailure of this `type`.
 */

/** waitForAnswer gave up: the Lead agent had not answered within its timeout (it keeps working). */
export const LEAD_ANSWER_TIMEOUT = 'LeadAnswerTimeout';
/** The Lead agent's last turn failed for good (its model call gave up); prompt it again after fixing the cause. */
export const LEAD_TURN_FAILED = 'LeadTurnFailed';
/** The Lead is not an agent (started without a prompt, or by a version without the agent runtime). */
export const NO_LEAD_AGENT = 'NoLeadAgent';
/** A Lead with this team id is already running. */
export const TEAM_ALREADY_STARTED = 'TeamAlreadyStarted';
/** A fork's input (the forked conversation) would exceed the server's payload limit. */
export const FORK_TOO_LARGE = 'ForkTooLarge';
/** No Team (Lead workflow) with this id in the client's namespace. */
export const TEAM_NOT_FOUND = 'TeamNotFound';
