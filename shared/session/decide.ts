/**
 * One small decide function per session command: from the session's state and the command, the
 * events to apply (events.ts), or what the current code does instead: a signal ignored as
 * `unknownKey`, a delivery refused. Pure: bundled into workflow code, with times passed in. The
 * workflow (workflows/session/) runs the effects and applies the events through SessionRun.apply only.
 */
import type { ConversationEntry, InboxMessage, TeamEdge } from '../contract';
import type { IgnoredSignals, ModelCallAnswer } from '../contract/signals';
import type { BudgetExhaustion, MemberBudget } from '../contract/budgets';
import type { ModelUsage } from '../contract/model';
import { MAX_ID_LENGTH, MEMBER_INBOX_MAX_BYTES, jsonBytes } from '../contract/limits';
import { callUsage } from '../agent/usage';
import { inboxEntry, unansweredTake } from '../agent/steer';
import { hasSeen } from '../team/inbox';
import { deliveryProblem, relaySeqOf } from './delivery';
import type { SessionEvent } from './events';
import type { SessionState } from './state';
import { answerForNextCall, stopBeforeTurn } from './queries';

/** What a signal handler did: its events, or the reason it was ignored (counted by the signal guard). */
export type SessionSignalDecision = { ok: true; events: SessionEvent[] } | { ok: false; ignored: 'unknownKey' };

const accept = (...events: SessionEvent[]): SessionSignalDecision => ({ ok: true, events });
const UNKNOWN_KEY: SessionSignalDecision = { ok: false, ignored: 'unknownKey' };

// ---- signals -------------------------------------------------------------------------------------

/** Any signal, handled or not: it counts towards the run's rollover. */
export function decideSignal(_state: SessionState): SessionEvent[] {
  return [{ type: 'signalReceived' }];
}

export function decideIgnored(_state: SessionState, reason: keyof IgnoredSignals): SessionEvent[] {
  return [{ type: 'signalIgnored', reason }];
}

export type DeliveryDecision = { outcome: 'recorded' | 'duplicate'; events: SessionEvent[] } | { outcome: 'rejected'; reason: string; events: SessionEvent[] };

/**
 * A delivered message, recorded once. Malformed deliveries, and deliveries past the inbox's size
 * limit, are refused without touching the inbox; a relayed one is settled either way, so the Lead
 * never waits for a message this member will not take.
 */
export function decideDelivery(state: SessionState, message: unknown): DeliveryDecision {
  const relayed = relaySeqOf(message) !== undefined;
  const problem =
    deliveryProblem(message) ??
    (state.pendingBytes + jsonBytes(message) > MEMBER_INBOX_MAX_BYTES
      ? `the inbox holds ${state.pendingBytes} bytes of unread messages, its budget is ${MEMBER_INBOX_MAX_BYTES}`
      : null);
  if (problem) {
    const messageId =
      typeof message === 'object' && message !== null ? String(Object.getOwnPropertyDescriptor(message, 'messageId')?.value).slice(0, MAX_ID_LENGTH) : 'none';
    return { outcome: 'rejected', reason: problem, events: [{ type: 'deliveryRejected', messageId, reason: problem, relayed }] };
  }
  const checked = message as InboxMessage;
  if (hasSeen(state.inbox, checked.messageId)) return { outcome: 'duplicate', events: relayed ? [{ type: 'duplicateSettled' }] : [] };
  return { outcome: 'recorded', events: [{ type: 'messageReceived', message: checked, bytes: jsonBytes(message) }] };
}

/** The Lead's interruptTurn: only a running turn (with its scope) can be interrupted. */
export function decideInterrupt(state: SessionState, turnInProgress: boolean): SessionSignalDecision {
  return turnInProgress && state.status === 'running' ? accept({ type: 'interruptRequested' }) : UNKNOWN_KEY;
}

/** The Lead's edgeNotification: kept only for the wait in progress (a late one is dropped). */
export function decideEdgeNotification(state: SessionState, waitId: string, edge: TeamEdge): SessionSignalDecision {
  return waitId === state.currentWaitId ? accept({ type: 'edgeNotified', edge }) : UNKNOWN_KEY;
}

/** The Lead's setBudget (the budgetChanged signal). */
export function decideSetBudget(_state: SessionState, budget: MemberBudget): SessionSignalDecision {
  return accept({ type: 'budgetSet', budget });
}

/**
 * The Lead's answer to a modelCallRequest (the modelCallAnswer signal). Only a member that asks
 * (its Team has a Team budget) takes answers; answers to an earlier request (fewer calls) are stale.
 */
export function decideModelCallAnswer(state: SessionState, answer: ModelCallAnswer, asks: boolean): SessionSignalDecision {
  if (!asks || answer.calls < state.spend.usage.total.calls) return UNKNOWN_KEY;
  return accept({ type: 'modelCallAnswered', answer });
}

// ---- turns -------------------------------------------------------------------------------------

/** A new turn at `at` (workflow time, ms) over every pending message, taken as its user entries. */
export function decideBeginTurn(state: SessionState, at: number): SessionEvent[] {
  return [{ type: 'turnBegan', at }, taken(state, state.turns + 1, false)];
}

/** Steer: the running turn takes every message that arrived meanwhile, at a step boundary before its next model call. */
export function decideStepTake(state: SessionState): SessionEvent[] {
  return [taken(state, state.turns, true)];
}

function taken(state: SessionState, turn: number, atStepBoundary: boolean): SessionEvent {
  const messages = state.inbox.pending;
  return { type: 'messagesTaken', messages, entries: messages.map((m) => inboxEntry(m, turn, state.fixed.entryTeamId)), atStepBoundary };
}

/** Entries the agent loop (or a note) appends to the conversation. */
export function decideAppend(_state: SessionState, ...entries: ConversationEntry[]): SessionEvent[] {
  return entries.length === 0 ? [] : [{ type: 'conversationAppended', entries }];
}

export type TurnOutcome = { completed: true } | { interrupted: true } | { failed: string };

/**
 * Ends the current turn at `at`. A completed turn's assistant and tool entries were appended by
 * the agent loop; an interrupted or failed one gets a system note. An interrupt between a
 * step-boundary take and the model call that would have seen it returns those messages to the
 * front of the inbox (unsettled again; the Lead has not been told of them yet, reports happen
 * between turns), so the next turn opens with them instead of losing them.
 */
export function decideEndTurn(state: SessionState, outcome: TurnOutcome, at: number): SessionEvent[] {
  const events: SessionEvent[] = [];
  if ('interrupted' in outcome) {
    const returned = unansweredTake(state.conversation, state.lastTake);
    if (returned.length > 0) events.push({ type: 'takeReturned', messages: returned });
    events.push({ type: 'turnInterrupted' }, ...decideAppend(state, { role: 'system', content: { event: 'turn interrupted by the Lead' }, turn: state.turns }));
  } else if ('failed' in outcome) {
    events.push(...decideAppend(state, { role: 'system', content: { event: 'turn failed', error: outcome.failed }, turn: state.turns }));
  }
  events.push({ type: 'turnEnded', at });
  return events;
}

/** A work tool reported the session's directory after it ran (bash's `cd`). */
export function decideCwd(state: SessionState, cwd: string): SessionEvent[] {
  return state.cwd === cwd ? [] : [{ type: 'cwdChanged', cwd }];
}

/** Cancelled: the session ends (disposal, close_agent, a conflict's drain). */
export function decideExit(state: SessionState): SessionEvent[] {
  return state.status === 'exited' ? [] : [{ type: 'statusChanged', status: 'exited' }];
}

// ---- reports and waits -------------------------------------------------------------------------

/** A status report to the Lead: it tells everything settled so far, and a budget stop once (the report that carries it marks it told). */
export function decideReport(state: SessionState): { events: SessionEvent[]; stop: BudgetExhaustion | undefined } {
  const events: SessionEvent[] = [{ type: 'settlementsReported', settled: state.settled }];
  const stop = state.spend.exhaustionReported ? null : stopBeforeTurn(state);
  if (stop) events.push({ type: 'stopReported' });
  return { events, stop: stop ?? undefined };
}

export function decideWaitBegan(_state: SessionState, waitId: string): SessionEvent[] {
  return [{ type: 'waitBegan', waitId }];
}

export function decideWaitEnded(_state: SessionState): SessionEvent[] {
  return [{ type: 'waitEnded' }];
}

// ---- spend ---------------------------------------------------------------------------------------

/** A model call's result was recorded in this run's history: its usage counts once, in the current turn. */
export function decideModelCall(state: SessionState, usage: ModelUsage | undefined): SessionEvent[] {
  return [{ type: 'modelCallRecorded', turn: state.turns, usage: callUsage(usage) }];
}

/** Takes the Lead's answer for the next call (each answer lets one call through): null, granted; else the Team's exhaustion. */
export function decideTakeAnswer(state: SessionState): { events: SessionEvent[]; exhaustion: BudgetExhaustion | null } {
  return { events: state.spend.teamAnswer === null ? [] : [{ type: 'answerTaken' }], exhaustion: answerForNextCall(state)?.exhaustion ?? null };
}
