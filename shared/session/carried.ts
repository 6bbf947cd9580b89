/**
 * A teammate's or subagent's continue-as-new state: internal to the session workflow, not part of
 * the wire contract (shared/contract/session.ts).
 */
import type { ConversationEntry, TeammateInput } from '../contract';
import type { InboxState } from '../team/inbox';
import type { MemberUsage } from '../contract/usage';
import type { BudgetExhaustion, MemberBudget } from '../contract/budgets';

export interface CarriedTeammateState {
  inbox: InboxState;
  conversation: ConversationEntry[];
  turns: number;
  interruptedTurns: number;
  continuedRuns: number;
  /** The member's own working directory (a `cd` in bash stays with this member). */
  cwd?: string;
  /** Relayed messages settled so far (see MemberStatusReport.settled). */
  settled?: number;
  /** What its recorded model calls used (absent in runs carried before usage was kept: none). */
  usage?: MemberUsage;
  /** Whether the Lead was told that a budget stopped it. */
  exhaustionReported?: boolean;
  /** The budget the Lead's latest setBudget gave it (over its input's). */
  budget?: MemberBudget;
  /** The Team budget's refusal that stops it until the Lead grants a call again. */
  teamStop?: BudgetExhaustion;
}

/**
 * What a session run receives. Starters (the Lead) pass the contract's TeammateInput; the session
 * continues as new with the same input plus `carried`. Kept apart from TeammateInput so that the
 * contract holds only what a starter may pass, and the carried shape can change with the workflow.
 */
export interface TeammateRunInput extends TeammateInput {
  /** Present only on a continued run. */
  carried?: CarriedTeammateState;
}
