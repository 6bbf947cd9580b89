/**
 * The Team's usage view (getTeamUsage): the Lead's own calls, its teammates' and subagents' reported
 * totals, each with its cost from the Team's price table. Pure: a query computes it from the state.
 */
import type { MemberUsageRow, PriceTable, UsageTotals } from '../contract/usage';
import type { TeamUsageView } from '../contract/teamUsage';
import type { TeamLimits } from '../contract/budgets';
import { teamExhaustion } from '../agent/spend';
import { NO_USAGE, hasTokens, sumUsage, usageView } from '../agent/usage';
import { LEAD } from '../contract/callers';
import type { CarriedLeadAgent } from './carried';
import type { LeadState } from './state';
import { own } from '../util/own';

/** The row of subagents the Lead forgot to make room for new ones (their usage stays counted; their model is not kept). */
export const FORGOTTEN_SUBAGENTS = 'forgotten subagents';

export interface TeamUsageInput {
  state: LeadState;
  agent: Readonly<CarriedLeadAgent>;
  /** The model the Lead runs (null: the worker's default). */
  leadModel: string | null;
  prices: PriceTable | undefined;
  /** The Team budget's caps now, shown beside the totals; absent: the Team has none. */
  teamLimits?: TeamLimits | undefined;
}

export function teamUsageView({ state, agent, leadModel, prices, teamLimits }: TeamUsageInput): TeamUsageView {
  const row = (name: string, role: MemberUsageRow['role'], model: string | null, total: UsageTotals): MemberUsageRow => ({
    name,
    role,
    ...usageView(model, total, prices),
  });
  const members: MemberUsageRow[] = [
    row(LEAD, 'lead', leadModel, agent.usage?.total ?? NO_USAGE),
    ...Object.values(state.team.members).map((m) => row(m.name, 'teammate', m.model, own(state.memberUsage, m.name) ?? NO_USAGE)),
    ...Object.entries(agent.subagents).map(([id, r]) => row(id, 'subagent', r.model ?? leadModel, r.usage ?? NO_USAGE)),
    ...(agent.forgottenSubagents ? [row(FORGOTTEN_SUBAGENTS, 'subagent', null, agent.forgottenSubagents.usage)] : []),
  ];
  const priced = members.filter((m) => m.costUsd !== null);
  const total = sumUsage(members.map((m) => m.total));
  const costUsd = priced.length > 0 ? priced.reduce((sum, m) => sum + (m.costUsd ?? 0), 0) : null;
  return {
    members,
    total,
    costUsd,
    unpriced: members.filter((m) => m.costUsd === null && hasTokens(m.total)).map((m) => m.name),
    ...(teamLimits ? { teamBudget: { limits: teamLimits, exhausted: teamExhaustion(teamLimits, total, costUsd) } } : {}),
  };
}
