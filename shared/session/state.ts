/**
 * A session's state (a teammate's, or an ordinary subagent's) as one value: what it carries across
 * continue-as-new (CarriedTeammateState, carried.ts), its spend, and what belongs to its current
 * run (status, signal counts, the wait in progress). It changes only through `applySession`
 * (apply.ts) over the events in events.ts, which the decide functions (decide.ts) make. Pure: no
 * clock (times come in as arguments), bundled into workflow code.
 */
import type { InboxMessage, TeamEdge, TeammateStateView } from '../contract';
import type { IgnoredSignals, ModelCallAnswer } from '../contract/signals';
import type { BudgetExhaustion } from '../contract/budgets';
import { jsonBytes } from '../contract/limits';
import { noIgnoredSignals } from '../contract/signals';
import { NO_MEMBER_USAGE } from '../agent/usage';
import { emptyInbox, receive } from '../team/inbox';
import type { CarriedTeammateState, TeammateRunInput } from './carried';

/** Turns per run before continuing as new, unless the input says otherwise. */
export const DEFAULT_MAX_TURNS_PER_RUN = 500;
/** Refused deliveries kept for a look in a debugger or a test (this run's newest). */
export const REJECTED_DELIVERIES_KEPT = 32;

/** Who a session is: a teammate's inbox messages are Team records, an ordinary subagent's are not. */
export type SessionRole = 'teammate' | 'subagent';

/** What its recorded model calls used, the budget it runs under and what the Lead said about the Team budget. */
export interface SessionSpend {
  usage: NonNullable<CarriedTeammateState['usage']>;
  /** Whether the Lead was told that a budget stopped this member (once per stop). */
  exhaustionReported: boolean;
  /** The budget the Lead's latest setBudget gave it; null: its input's. */
  override: NonNullable<CarriedTeammateState['budget']> | null;
  /** The Team budget's refusal that stopped it (its mail waits), until the Lead grants a call again. */
  teamStop: BudgetExhaustion | null;
  /** When the running turn began (workflow time, ms); null between turns. A turn never spans runs. */
  turnStartedAt: number | null;
  /** The Lead's latest answer to a modelCallRequest, keyed by the calls it had recorded when it asked. */
  teamAnswer: ModelCallAnswer | null;
}

export interface SessionState extends Required<Pick<CarriedTeammateState, 'inbox' | 'conversation' | 'turns' | 'interruptedTurns' | 'continuedRuns' | 'cwd'>> {
  /** Relayed messages settled (taken into a turn or dropped), and how many of those the Lead has been told. */
  settled: number;
  reportedSettled: number;
  spend: SessionSpend;
  status: TeammateStateView['status'];
  /** Bytes of the messages waiting in the inbox. */
  pendingBytes: number;
  /** The messages the running turn took at its latest step boundary (Steer); an interrupt before its model call returns them. */
  lastTake: InboxMessage[];
  /** The Lead asked to interrupt the running turn; the workflow cancels its scope. */
  interruptRequested: boolean;
  /** The newest refused deliveries of this run (at most REJECTED_DELIVERIES_KEPT). */
  rejectedDeliveries: { messageId: string; reason: string }[];
  /** The wait_agent in progress (its watch id) and the edge the Lead notified for it. */
  currentWaitId: string | null;
  notifiedEdge: TeamEdge | null;
  /** Signals of this run: how many were handled, and which were ignored, by reason. */
  signalsThisRun: number;
  ignored: IgnoredSignals;
  turnsThisRun: number;
  /** Fixed for the run, from its input. */
  readonly fixed: {
    /** Inbox entries of a teammate are records of its Team (a fork of a root drops them); a subagent's are not. */
    entryTeamId: string | undefined;
    budget: TeammateRunInput['budget'];
    maxTurnsPerRun: number;
  };
}

/** The state a run starts with: the carried one, or a fresh session's (its seed, and its initial message first in its inbox). */
export function initialSessionState(input: TeammateRunInput, role: SessionRole): SessionState {
  const carried = input.carried;
  const inbox = carried?.inbox ?? receive(emptyInbox(), input.initialMessage).inbox;
  return {
    inbox,
    conversation: carried?.conversation ?? [...input.seed],
    turns: carried?.turns ?? 0,
    interruptedTurns: carried?.interruptedTurns ?? 0,
    continuedRuns: carried?.continuedRuns ?? 0,
    cwd: carried?.cwd ?? input.cwd ?? '.',
    settled: carried?.settled ?? 0,
    reportedSettled: 0,
    spend: {
      usage: carried?.usage ?? NO_MEMBER_USAGE,
      exhaustionReported: carried?.exhaustionReported ?? false,
      override: carried?.budget ?? null,
      teamStop: carried?.teamStop ?? null,
      turnStartedAt: null,
      teamAnswer: null,
    },
    status: 'idle',
    pendingBytes: jsonBytes(inbox.pending),
    lastTake: [],
    interruptRequested: false,
    rejectedDeliveries: [],
    currentWaitId: null,
    notifiedEdge: null,
    signalsThisRun: 0,
    ignored: noIgnoredSignals(),
    turnsThisRun: 0,
    fixed: {
      entryTeamId: role === 'teammate' ? input.descriptor.teamId : undefined,
      budget: input.budget,
      maxTurnsPerRun: input.maxTurnsPerRun ?? DEFAULT_MAX_TURNS_PER_RUN,
    },
  };
}
