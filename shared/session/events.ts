/**
 * The closed union of everything that changes a session's state (SessionState, state.ts): its
 * inbox, conversation, turns, spend and this run's bookkeeping. Plain data; `applySession`
 * (apply.ts) is the only thing that reads them, and the decide functions (decide.ts) the only
 * things that make them.
 */
import type { ConversationEntry, InboxMessage, TeamEdge } from '../contract';
import type { IgnoredSignals, ModelCallAnswer } from '../contract/signals';
import type { MemberBudget } from '../contract/budgets';
import type { UsageTotals } from '../contract/usage';
import type { SessionState } from './state';

export type SessionEvent =
  /** A signal arrived (handled or not): it counts towards the run's rollover. */
  | { type: 'signalReceived' }
  /** A signal was ignored, by reason (getTeammateState shows the counts). */
  | { type: 'signalIgnored'; reason: keyof IgnoredSignals }
  /** A malformed or over-size delivery was refused; a relayed one is settled all the same. */
  | { type: 'deliveryRejected'; messageId: string; reason: string; relayed: boolean }
  /** A delivery recorded in the inbox (its id not seen before), with its size. */
  | { type: 'messageReceived'; message: InboxMessage; bytes: number }
  /** A relayed delivery dropped as a duplicate: settled on the member's word. */
  | { type: 'duplicateSettled' }
  /** A turn began at `at` (workflow time, ms): the turn counts go up, the status is running. */
  | { type: 'turnBegan'; at: number }
  /** Every pending message taken into the conversation as the current turn's user entries; at a step boundary (Steer) they are the latest take. */
  | { type: 'messagesTaken'; messages: InboxMessage[]; entries: ConversationEntry[]; atStepBoundary: boolean }
  /** Entries appended to the conversation (the agent loop's, or a note). */
  | { type: 'conversationAppended'; entries: ConversationEntry[] }
  /** The latest take no model call saw goes back to the front of the inbox (an interrupt came between). */
  | { type: 'takeReturned'; messages: InboxMessage[] }
  /** The turn was interrupted by the Lead. */
  | { type: 'turnInterrupted' }
  /** The turn ended at `at`: its time counts as active time, the status is idle. */
  | { type: 'turnEnded'; at: number }
  /** The Lead asked to interrupt the running turn. */
  | { type: 'interruptRequested' }
  /** A work tool moved the session's working directory (bash's `cd`). */
  | { type: 'cwdChanged'; cwd: string }
  /** The session's status, outside a turn's beginning and end (it exited). */
  | { type: 'statusChanged'; status: SessionState['status'] }
  /** The Lead was told about everything settled so far (and, when it was told of a budget stop, that too). */
  | { type: 'settlementsReported'; settled: number }
  | { type: 'stopReported' }
  /** A wait_agent began (watch `waitId`), or ended. */
  | { type: 'waitBegan'; waitId: string }
  | { type: 'waitEnded' }
  /** The Lead notified the wait in progress of an edge. */
  | { type: 'edgeNotified'; edge: TeamEdge }
  /** A model call's result was recorded in this run's history: its usage counts once, in `turn`. */
  | { type: 'modelCallRecorded'; turn: number; usage: UsageTotals }
  /** The Lead's setBudget: the new budget applies from the next check; a new stop is reported again. */
  | { type: 'budgetSet'; budget: MemberBudget }
  /** The Lead's answer to a modelCallRequest: a grant lifts a Team stop, a refusal sets one. */
  | { type: 'modelCallAnswered'; answer: ModelCallAnswer }
  /** The answer was used for one model call. */
  | { type: 'answerTaken' };

export type SessionEventType = SessionEvent['type'];
