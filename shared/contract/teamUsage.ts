/** The Team's usage view: every member's totals, the Team's, and the Team budget beside them. */
import type { BudgetExhaustion, TeamLimits } from './budgets';
import type { MemberUsageRow, UsageTotals } from './usage';

/**
 * What a Team's model calls used, as the Lead knows it: its own calls as they come back, each
 * teammate's as its latest status report said (members report after every turn), each subagent's as
 * its latest answer said. The getTeamUsage query answers it.
 */
export interface TeamUsageView {
  /** The Lead first, then teammates in roster order, then subagents. */
  members: MemberUsageRow[];
  total: UsageTotals;
  /** The sum of the priced rows' costs; null when no row is priced. */
  costUsd: number | null;
  /** Rows that used tokens on a model without a price: their spend is not in `costUsd`. */
  unpriced: string[];
  /** The Team budget, when the Team has one: its caps now, and the cap the Team's total has reached (null: room left). */
  teamBudget?: { limits: TeamLimits; exhausted: BudgetExhaustion | null };
}
