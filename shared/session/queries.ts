/**
 * What the session workflow reads from its state: whether it may begin a turn, what stops it, the
 * Lead's answer for the next model call, and the carried state and query view it returns. Pure.
 */
import type { TeammateDescriptor, TeammateStateView } from '../contract';
import type { ModelCallAnswer } from '../contract/signals';
import type { BudgetExhaustion, MemberBudget } from '../contract/budgets';
import { spendExhaustion } from '../agent/spend';
import { compactConversationOrDrop } from '../agent/conversationSize';
import type { CarriedTeammateState } from './carried';
import type { SessionState } from './state';

/** Signals handled per run before continuing as new; the server allows 10,000 per run. */
export const MAX_SIGNALS_PER_RUN = 5_000;

export function hasPending(state: SessionState): boolean {
  return state.inbox.pending.length > 0;
}

/** True while the Lead has not been told about relayed messages this member settled. */
export function hasUnreportedSettlements(state: SessionState): boolean {
  return state.settled > state.reportedSettled;
}

export function mustRollOver(state: SessionState, continueAsNewSuggested: boolean): boolean {
  return continueAsNewSuggested || state.signalsThisRun >= MAX_SIGNALS_PER_RUN || state.turnsThisRun >= state.fixed.maxTurnsPerRun;
}

/** The budget it runs under now: the latest setBudget's, else its input's. */
export function sessionBudget(state: SessionState): MemberBudget | undefined {
  return state.spend.override ?? state.fixed.budget;
}

/** The budget that keeps the member from beginning another turn, or null: it then leaves its mail waiting. */
export function stopBeforeTurn(state: SessionState): BudgetExhaustion | null {
  const { usage, teamStop } = state.spend;
  return spendExhaustion(sessionBudget(state), usage.total, state.turns, usage.activeMs ?? 0) ?? teamStop;
}

/** Checked before each model call of a running turn (at `now`): the turn itself may run on, its calls may not. */
export function checkInTurn(state: SessionState, now: number): BudgetExhaustion | null {
  const { usage, turnStartedAt } = state.spend;
  const running = turnStartedAt === null ? 0 : Math.max(0, now - turnStartedAt);
  return spendExhaustion(sessionBudget(state), usage.total, null, (usage.activeMs ?? 0) + running);
}

export function hasUnreportedStop(state: SessionState): boolean {
  return !state.spend.exhaustionReported && stopBeforeTurn(state) !== null;
}

/** The Lead's answer for the next call (made at the calls recorded now), or undefined while it has not come. */
export function answerForNextCall(state: SessionState): ModelCallAnswer | undefined {
  const { teamAnswer, usage } = state.spend;
  return teamAnswer !== null && teamAnswer.calls === usage.total.calls ? teamAnswer : undefined;
}

export function hasAnswerForNextCall(state: SessionState): boolean {
  return answerForNextCall(state) !== undefined;
}

/** What the next run carries (continue-as-new), the conversation compacted to `conversationMaxBytes`. */
export function carrySession(state: SessionState, conversationMaxBytes?: number): CarriedTeammateState {
  const { spend } = state;
  return {
    inbox: state.inbox,
    conversation: compactConversationOrDrop(state.conversation, conversationMaxBytes),
    turns: state.turns,
    interruptedTurns: state.interruptedTurns,
    continuedRuns: state.continuedRuns + 1,
    cwd: state.cwd,
    settled: state.settled,
    usage: spend.usage,
    exhaustionReported: spend.exhaustionReported,
    ...(spend.override ? { budget: spend.override } : {}),
    ...(spend.teamStop ? { teamStop: spend.teamStop } : {}),
  };
}

/** getTeammateState's view (without the workflow's history figures). */
export function sessionView(state: SessionState, descriptor: TeammateDescriptor): TeammateStateView {
  const budget = sessionBudget(state);
  const stop = stopBeforeTurn(state);
  return {
    descriptor,
    status: state.status,
    turns: state.turns,
    interruptedTurns: state.interruptedTurns,
    pending: state.inbox.pending,
    received: state.inbox.received,
    consumed: state.inbox.consumed,
    seenMessageIds: state.inbox.seen,
    // A query result is a payload too: long old contents are elided to stay within its limit.
    conversation: compactConversationOrDrop(state.conversation), // the carried limit: the view also holds the inbox and seen ids
    continuedRuns: state.continuedRuns,
    cwd: state.cwd,
    settled: state.settled,
    usage: state.spend.usage,
    ...(budget ? { budget } : {}),
    ...(stop ? { budgetStop: stop } : {}),
    ignoredSignals: state.ignored,
  };
}
