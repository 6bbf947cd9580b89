/**
 * The session workflows' wire contract (teammates and ordinary subagents): the Signals and Query
 * they handle, their input, their view, and the descriptor a teammate keeps in its memo.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { IgnoredSignals } from './signals';
import type { InboxMessage } from './team';
import type { ConversationEntry } from './agent';
import type { LiveStatus, MemberContext } from './vocabulary';
import type { MemberUsage } from './usage';
import type { BudgetExhaustion, MemberBudget } from './budgets';
import type { ModelCallAnswer, edgeNotificationSchema, interruptTurnSchema } from './signals';
import type { z } from 'zod';

/** Lead → teammate: the edge a watch was waiting for; parsed with edgeNotificationSchema (signals.ts). */
export type EdgeNotification = z.output<typeof edgeNotificationSchema>;
/** Lead → teammate: the edge a watch was waiting for. */
export const edgeNotificationSignal = defineSignal<[EdgeNotification], 'edgeNotification'>('edgeNotification');

/** Into a teammate's inbox. Recorded once per message id. */
export const deliverMessageSignal = defineSignal<[InboxMessage]>('deliverMessage');
/** Lead → teammate: the budget it runs under from now on (setBudget); it goes on with waiting mail once the budget allows. */
export const budgetChangedSignal = defineSignal<[MemberBudget], 'budgetChanged'>('budgetChanged');
/** Lead → teammate or subagent, under a Team budget: the answer to its modelCallRequest (go on, or the Team's budget is used up). */
export const modelCallAnswerSignal = defineSignal<[ModelCallAnswer], 'modelCallAnswer'>('modelCallAnswer');
/** Lead → teammate: cancel the current turn (if any); parsed with interruptTurnSchema (signals.ts). */
export type InterruptTurn = z.output<typeof interruptTurnSchema>;
/** Lead → teammate: cancel the current turn (if any). */
export const interruptTurnSignal = defineSignal<[InterruptTurn], 'interruptTurn'>('interruptTurn');
export const getTeammateStateQuery = defineQuery<TeammateStateView>('getTeammateState');

/** Stored in the child's memo so recovery can recognise a genuine teammate of this Team. */
export interface TeammateDescriptor {
  teamId: string;
  name: string;
  context: MemberContext;
  initialMessageId: string;
}

/**
 * A new teammate's or subagent's input: public fields only. A continued run also receives its
 * carried state (TeammateRunInput in shared/session/carried.ts, which extends this).
 */
export interface TeammateInput {
  descriptor: TeammateDescriptor;
  model: string | null;
  /** Fork children: the Lead's completed-turn prefix, captured once at spawn. Fresh: empty. */
  seed: ConversationEntry[];
  initialMessage: InboxMessage;
  /** The member's starting directory: the Lead's current directory at spawn. Default `.`. */
  cwd?: string;
  /** Where work tools run (the checkout's task queue). Default: this workflow's task queue. */
  checkoutTaskQueue?: string;
  /** Turns per run before continuing as new (bounds history growth); default 500. */
  maxTurnsPerRun?: number;
  /** The budget it runs under (the Team's member budget, with its model's price); absent: none. */
  budget?: MemberBudget;
  /** The Team has a Team budget: it asks the Lead (modelCallRequest) before every model call. Absent: it does not. */
  teamBudget?: true;
}

export interface TeammateStateView {
  descriptor: TeammateDescriptor;
  status: LiveStatus;
  turns: number;
  interruptedTurns: number;
  pending: InboxMessage[];
  received: number;
  consumed: number;
  seenMessageIds: string[];
  conversation: ConversationEntry[];
  continuedRuns: number;
  cwd: string;
  /** Relayed messages settled (taken into a turn or dropped), as reported to the Lead. */
  settled: number;
  /** What its recorded model calls used, in all and in its current or last turn (docs/agent-runtime.md). */
  usage: MemberUsage;
  /** The budget it runs under now (its input's, or the latest setBudget's); absent: none. */
  budget?: MemberBudget;
  /** Present while a used-up budget keeps it from its next turn (its mail waits): which, used and limit. */
  budgetStop?: BudgetExhaustion;
  /** Signals this run ignored, by reason. */
  ignoredSignals: IgnoredSignals;
  /** Events in the current run's history, and whether the server suggests continuing as new. */
  historyLength?: number;
  continueAsNewSuggested?: boolean;
}
