/**
 * A session's in-run logic (a teammate's, or an ordinary subagent's): its inbox (each message id
 * recorded once), its conversation, and the bookkeeping of turns and interrupts. No Temporal calls
 * here; session.ts wires it.
 */
import type { ConversationEntry, LiveStatus, TeammateStateView, InboxMessage, TeamEdge } from '../../shared/contract';
import type { CarriedTeammateState, TeammateRunInput } from '../../shared/session/carried';
import type { InboxState } from '../../shared/team/inbox';
import { emptyInbox, receive, takePending } from '../../shared/team/inbox';
import { inboxEntry, takeAtStepBoundary, withdrawUnanswered } from '../../shared/agent/steer';
import { deliveryProblem, relaySeqOf } from '../../shared/session/delivery';
import { carriedWithinPayloadLimit, compactConversationOrDrop } from '../../shared/agent/conversationSize';
import { MAX_ID_LENGTH, MEMBER_INBOX_MAX_BYTES, jsonBytes } from '../../shared/contract/limits';
import { noIgnoredSignals, type IgnoredSignals } from '../../shared/contract/signals';
import type { ModelUsage } from '../../shared/contract/model';
import type { BudgetExhaustion, MemberBudget } from '../../shared/contract/budgets';
import { MemberSpend } from './memberSpend';

/** Signals handled per run before continuing as new; the server allows 10,000 per run. */
export const MAX_SIGNALS_PER_RUN = 5_000;
/** Turns per run before continuing as new, unless the input says otherwise. */
export const DEFAULT_MAX_TURNS_PER_RUN = 500;

/** Who a session is: a teammate's inbox messages are Team records, an ordinary subagent's are not. */
export type SessionRole = 'teammate' | 'subagent';

export class SessionRun {
  inbox: InboxState;
  conversation: ConversationEntry[];
  turns: number;
  interruptedTurns: number;
  readonly continuedRuns: number;
  /** This member's working directory; starts as the Lead's, a `cd` in bash changes only this member's. */
  cwd: string;
  status: LiveStatus = 'idle';
  signalsThisRun = 0;
  turnsThisRun = 0;
  /** Set by interrupt(); the workflow cancels the running turn's scope. */
  interruptRequested = false;
  rejectedDeliveries: { messageId: string; reason: string }[] = [];
  /** The wait_agent in progress (its watch id) and the edge the Lead notified for it. */
  currentWaitId: string | null = null;
  notifiedEdge: TeamEdge | null = null;
  /** Relayed messages settled (taken into a turn or dropped), and how many of those the Lead has been told. */
  settled: number;
  reportedSettled = 0;
  readonly ignored: IgnoredSignals = noIgnoredSignals();
  /** What its recorded model calls used (in all, and in its current or last turn) and the budget it runs under. */
  readonly spend: MemberSpend;
  /** Bytes of the messages waiting in the inbox. */
  private pendingBytes: number;
  /** The messages the running turn took at its latest step boundary (Steer); an interrupt before its model call returns them. */
  private lastTake: InboxMessage[] = [];

  constructor(
    readonly input: TeammateRunInput,
    readonly role: SessionRole,
  ) {
    const carried = input.carried;
    this.conversation = carried?.conversation ?? [...input.seed];
    this.turns = carried?.turns ?? 0;
    this.interruptedTurns = carried?.interruptedTurns ?? 0;
    this.continuedRuns = carried?.continuedRuns ?? 0;
    this.cwd = carried?.cwd ?? input.cwd ?? '.';
    // The initial message is the first item of a fresh teammate's inbox.
    this.inbox = carried?.inbox ?? receive(emptyInbox(), input.initialMessage).inbox;
    this.settled = carried?.settled ?? 0;
    this.spend = new MemberSpend(input.budget, carried);
    this.pendingBytes = jsonBytes(this.inbox.pending);
  }

  get name(): string {
    return this.input.descriptor.name;
  }

  /**
   * Records a delivered message once. Malformed deliveries, and deliveries past the inbox's size limit,
   * are refused without touching the inbox; a relayed one is settled either way, so the Lead
   * never waits for a message this member will not take.
   */
  deliver(message: unknown): void {
    this.signalsThisRun += 1;
    const relaySeq = relaySeqOf(message);
    const problem =
      deliveryProblem(message) ??
      (this.pendingBytes + jsonBytes(message) > MEMBER_INBOX_MAX_BYTES
        ? `the inbox holds ${this.pendingBytes} bytes of unread messages, its budget is ${MEMBER_INBOX_MAX_BYTES}`
        : null);
    if (problem) {
      const messageId =
        typeof message === 'object' && message !== null ? String(Object.getOwnPropertyDescriptor(message, 'messageId')?.value).slice(0, MAX_ID_LENGTH) : 'none';
      this.rejectedDeliveries = [...this.rejectedDeliveries.slice(-31), { messageId, reason: problem }];
      this.ignored.malformed += 1;
      if (relaySeq !== undefined) this.settled += 1;
      return;
    }
    const { inbox, duplicate } = receive(this.inbox, message as InboxMessage);
    this.inbox = inbox;
    if (duplicate) {
      if (relaySeq !== undefined) this.settled += 1;
    } else {
      this.pendingBytes += jsonBytes(message);
    }
  }

  /** True while the Lead has not been told about relayed messages this member settled. */
  hasUnreportedSettlements(): boolean {
    return this.settled > this.reportedSettled;
  }

  /** The Lead's edgeNotification: kept only for the wait in progress (a late one is dropped). */
  notify(waitId: string, edge: TeamEdge): 'applied' | 'unknownKey' {
    if (waitId !== this.currentWaitId) return 'unknownKey';
    this.notifiedEdge = edge;
    return 'applied';
  }

  hasPending(): boolean {
    return this.inbox.pending.length > 0;
  }

  mustRollOver(continueAsNewSuggested: boolean): boolean {
    const maxTurns = this.input.maxTurnsPerRun ?? DEFAULT_MAX_TURNS_PER_RUN;
    return continueAsNewSuggested || this.signalsThisRun >= MAX_SIGNALS_PER_RUN || this.turnsThisRun >= maxTurns;
  }

  /** Moves every pending message into the conversation as user entries of the next turn. */
  beginTurn(): { turn: number; messages: InboxMessage[] } {
    const { inbox, messages } = takePending(this.inbox);
    this.turns += 1;
    this.turnsThisRun += 1;
    this.interruptRequested = false;
    this.status = 'running';
    this.lastTake = [];
    this.spend.turnBegan(Date.now());
    this.record(inbox, messages);
    return { turn: this.turns, messages };
  }

  /** Steer: the running turn takes every message that arrived meanwhile, at a step boundary before its next model call. */
  takeAtStepBoundary(): void {
    const { inbox, messages } = takeAtStepBoundary(this.inbox, this.turns, () => undefined);
    this.lastTake = messages;
    this.record(inbox, messages);
  }

  /** The inbox after a take, and the taken messages as user entries of the current turn (each settles its relay). */
  private record(inbox: InboxState, messages: InboxMessage[]): void {
    this.inbox = inbox;
    this.pendingBytes = 0;
    this.settled += messages.filter((m) => m.relaySeq !== undefined).length;
    // Messages from the Team are Team records: a fork of a root drops them with the ancestor's Team.
    const teamId = this.role === 'teammate' ? this.input.descriptor.teamId : undefined;
    for (const m of messages) this.conversation.push(inboxEntry(m, this.turns, teamId));
  }

  /** The budget that keeps this member from beginning another turn, or null: it then leaves its mail waiting. */
  budgetStop(): BudgetExhaustion | null {
    return this.spend.stopBeforeTurn(this.turns);
  }

  /** A model call's result was recorded in this run's history: its usage counts once, in the current turn. */
  recordModelCall(usage: ModelUsage | undefined): void {
    this.spend.recordCall(this.turns, usage);
  }

  /** The Lead's setBudget (the budgetChanged signal). */
  setBudget(budget: MemberBudget): 'applied' {
    return this.spend.setBudget(budget);
  }

  /**
   * Ends the current turn. A completed turn's assistant and tool entries were appended by the agent
   * loop; an interrupted or failed one gets a system note here.
   */
  endTurn(outcome: { completed: true } | { interrupted: true } | { failed: string }): void {
    if ('interrupted' in outcome) {
      this.returnUnansweredTake();
      this.interruptedTurns += 1;
      this.conversation.push({ role: 'system', content: { event: 'turn interrupted by the Lead' }, turn: this.turns });
    } else if ('failed' in outcome) {
      this.conversation.push({ role: 'system', content: { event: 'turn failed', error: outcome.failed }, turn: this.turns });
    }
    this.interruptRequested = false;
    this.status = 'idle';
    this.lastTake = [];
    this.spend.turnEnded(Date.now());
  }

  /**
   * An interrupt between a step-boundary take and the model call that would have seen it: those
   * messages go back to the front of the inbox (unsettled again; the Lead has not been told of them
   * yet, reports happen between turns), so the next turn opens with them instead of losing them.
   */
  private returnUnansweredTake(): void {
    const { conversation, inbox, returned } = withdrawUnanswered(this.conversation, this.inbox, this.lastTake);
    if (returned.length === 0) return;
    this.conversation = conversation;
    this.inbox = inbox;
    this.pendingBytes = jsonBytes(inbox.pending);
    this.settled -= returned.filter((m) => m.relaySeq !== undefined).length;
  }

  carry(conversationMaxBytes?: number): CarriedTeammateState {
    return {
      inbox: this.inbox,
      conversation: compactConversationOrDrop(this.conversation, conversationMaxBytes),
      turns: this.turns,
      interruptedTurns: this.interruptedTurns,
      continuedRuns: this.continuedRuns + 1,
      cwd: this.cwd,
      settled: this.settled,
      ...this.spend.carry(),
    };
  }

  view(): TeammateStateView {
    return {
      descriptor: this.input.descriptor,
      status: this.status,
      turns: this.turns,
      interruptedTurns: this.interruptedTurns,
      pending: this.inbox.pending,
      received: this.inbox.received,
      consumed: this.inbox.consumed,
      seenMessageIds: this.inbox.seen,
      // A query result is a payload too: long old contents are elided to stay within its limit.
      conversation: compactConversationOrDrop(this.conversation), // the carried limit: the view also holds the inbox and seen ids
      continuedRuns: this.continuedRuns,
      cwd: this.cwd,
      settled: this.settled,
      usage: this.spend.usage,
      ...(this.spend.budget ? { budget: this.spend.budget } : {}),
      ...withStop(this.budgetStop()),
      ignoredSignals: this.ignored,
    };
  }
}

/**
 * The next run's input: the carried state, without the first run's seed and initial message (they
 * are in the carried conversation and inbox by now), measured, with the conversation compacted to
 * the room the rest leaves if it were ever over the payload limit.
 */
export function nextSessionInput(input: TeammateRunInput, mate: SessionRun): TeammateRunInput {
  return carriedWithinPayloadLimit((conversationMaxBytes?: number): TeammateRunInput => ({
    ...input,
    seed: [],
    initialMessage: { ...input.initialMessage, content: null },
    carried: mate.carry(conversationMaxBytes),
  }));
}

function withStop(stop: BudgetExhaustion | null): { budgetStop?: BudgetExhaustion } {
  return stop ? { budgetStop: stop } : {};
}
