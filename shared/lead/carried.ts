/**
 * The Lead's continue-as-new state: internal to the Lead workflow, not part of the wire contract
 * (shared/contract/lead.ts).
 */
import type { AgentStatus, ConversationEntry, MemberUsage, SubagentAnswer, TeamLeadInput, UsageTotals } from '../contract';
import type { CarriedLeadStateV1, CarriedLeadStateV2 } from './state';

/**
 * What a Lead run carries into the next: its state value as it is, and the Lead agent's state.
 * A run of an earlier version may have carried the older shape (upgraded by the next run).
 */
export type CarriedLeadState = (CarriedLeadStateV2 | CarriedLeadStateV1) & { agent?: CarriedLeadAgent };

export interface SubagentRecord {
  workflowId: string;
  answers: SubagentAnswer[];
  closed: boolean;
  /** The model it runs (absent in records carried before it was kept). */
  model?: string | null;
  /** What the subagent's model calls used, as its latest answer reported (absent until then). */
  usage?: UsageTotals;
}

export interface CarriedLeadAgent {
  subagents: Record<string, SubagentRecord>;
  nextSubagent: number;
  conversation: ConversationEntry[];
  turns: number;
  cwd: string;
  status: AgentStatus;
  finalAnswer: string | null;
  openTasksAtAnswer: number[];
  nudges: number;
  lastError?: string | null;
  /** A Lead turn that stopped at a step boundary for the rollover: the next run goes on from there. */
  resumeTurn?: { turn: number; step: number };
  /** What the subagents forgotten to make room for new ones had used (absent until one with usage is). */
  forgottenSubagents?: { usage: UsageTotals };
  /** What the Lead's own model calls used (absent in runs carried before usage was kept: none). */
  usage?: MemberUsage;
}

/**
 * What a Lead run receives. Starters pass the contract's TeamLeadInput; the Lead continues as new
 * with its input plus `carried`. Kept apart from TeamLeadInput so that the contract holds only what
 * a starter may pass, and the carried shape can change with the workflow (parseLeadInput still
 * checks a forged `carried`: anyone who can start a workflow can pass one).
 */
export interface LeadRunInput extends TeamLeadInput {
  /** Present only on a continued run: everything the previous run owned. */
  carried?: CarriedLeadState;
}
