/** What the Lead's operations share: this run, the run's input and clock, and the Lead agent's parts a spawn needs. */
import type { AgentStatus, ConversationEntry } from '../../shared/contract';
import type { LeadRunInput } from '../../shared/lead/carried';
import type { LeadRun } from './leadRun';

export interface LeadContext {
  run: LeadRun;
  input: LeadRunInput;
  teamId: string;
  now(): string;
  /** True once this run stopped taking new work (rolling over, or a disposal in progress or done): waits wake. */
  closingNow(): boolean;
  /** The Lead's completed-turn prefix, the durable seed of a fork teammate. */
  forkSeed(): ConversationEntry[];
  /** Where members' work tools run and the directory they start in. */
  memberCheckout(): { cwd: string; checkoutTaskQueue?: string };
  /** The Lead agent's status for the Lead pseudo-row of every view; null without a Lead agent. */
  leadStatus(): AgentStatus | null;
}
