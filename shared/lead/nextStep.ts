/**
 * What the Lead agent does after a turn ends with a reply: its "required work before answering".
 * Pure, so every branch is tested without a server; leadAgent.ts only carries the steps out.
 */
import type { JsonValue } from '../contract/json';
import { busyMembers, openTaskIds } from './queries';
import type { LeadState } from './state';

/** How many times a Lead that answers with open tasks is told so before its answer is accepted. */
export const MAX_COMPLETION_NUDGES = 2;
/** How long the Lead waits for busy teammates before it is given a turn to decide what to do (LeadAgentOptions.requiredWorkWaitMs overrides it). */
export const REQUIRED_WORK_WAIT_MS = 30 * 60 * 1000;

export type NextStep =
  /** New messages are waiting: another turn. */
  | { kind: 'turn' }
  /** Teammates are busy: wait (at most the required-work wait) for them, new mail or the run's end. */
  | { kind: 'wait'; busy: string[] }
  /** Tell the Lead something through its own inbox, which starts another turn. */
  | { kind: 'nudge'; content: { [key: string]: JsonValue }; countsAgainstNudgeLimit: boolean }
  /** Accept the last reply as the final answer. */
  | { kind: 'answer'; openTasks: number[] };

/**
 * @param nudges how many open-task nudges this answer has had (reset when a member writes)
 * @param waitedOut the previous step was a wait that ran out with teammates still busy
 * @param waitMs how long that wait was (the Lead's required-work wait)
 */
export function nextStepAfterReply(state: LeadState, nudges: number, waitedOut: boolean, waitMs: number = REQUIRED_WORK_WAIT_MS): NextStep {
  if (state.leadInbox.pending.length > 0) return { kind: 'turn' };
  const busy = busyMembers(state);
  if (busy.length > 0) {
    if (!waitedOut) return { kind: 'wait', busy };
    return { kind: 'nudge', content: { event: 'teammates are still busy', busy, waitedMs: waitMs }, countsAgainstNudgeLimit: false };
  }
  const open = openTaskIds(state);
  if (open.length > 0 && nudges < MAX_COMPLETION_NUDGES) {
    return {
      kind: 'nudge',
      content: {
        event: 'work remains before your final answer',
        openTasks: open,
        hint: 'check the board (list_tasks) and your messages; finish, reassign or cancel these tasks, or answer again to finish anyway',
      },
      countsAgainstNudgeLimit: true,
    };
  }
  return { kind: 'answer', openTasks: open };
}
