/**
 * The Team budget (docs/agent-runtime.md, "Budgets"): a cap on the whole Team's recorded calls,
 * tokens and cost. The Lead holds every member's totals, so it decides each member's next model
 * call: a member asks (modelCallRequest, with its own totals), the Lead records them and answers
 * from the Team's totals then. A member waits for the answer before it calls, so past the cap the
 * Team overshoots by at most the calls already granted and not yet reported: one per member.
 */
import type { BudgetExhaustion, TeamLimits } from '../contract/budgets';
import type { PriceTable } from '../contract/usage';
import type { ModelCallAnswer, ModelCallRequest } from '../contract/signals';
import { own } from '../util/own';
import { applyLeadAll } from './apply';
import { applyLeadAgentAll } from './agentApply';
import type { CarriedLeadAgent } from './carried';
import type { LeadAgentEvent } from './agentEvents';
import type { LeadEvent } from './events';
import type { LeadState } from './state';
import { teamUsageView } from './usageView';

export interface TeamSpendContext {
  state: LeadState;
  agent: Readonly<CarriedLeadAgent>;
  limits: TeamLimits | undefined;
  leadModel: string | null;
  prices: PriceTable | undefined;
}

/** The Team budget used up by the Team's totals now, or null (none set, or room left). */
export function teamBudgetStop({ state, agent, limits, leadModel, prices }: TeamSpendContext): BudgetExhaustion | null {
  if (!limits) return null;
  return teamUsageView({ state, agent, leadModel, prices, teamLimits: limits }).teamBudget?.exhausted ?? null;
}

export type ModelCallDecision =
  { ok: false; ignored: 'nonMember' } | { ok: true; teamEvents: LeadEvent[]; agentEvents: LeadAgentEvent[]; workflowId: string; answer: ModelCallAnswer };

/**
 * A member's modelCallRequest (a signal: never refused, ignored from a workflow that is neither a
 * teammate on the roster nor one of the Lead's subagents). Its totals are recorded, and the answer
 * is decided from the Team's totals with them.
 */
export function decideModelCallRequest(ctx: TeamSpendContext, request: ModelCallRequest): ModelCallDecision {
  const { state, agent } = ctx;
  const teammate = Object.values(state.team.members).find((m) => m.workflowId === request.member);
  const subagent = teammate ? undefined : own(agent.subagents, request.member);
  if (!teammate && !subagent) return { ok: false, ignored: 'nonMember' };
  const teamEvents: LeadEvent[] = teammate ? [{ type: 'memberUsageReported', name: teammate.name, usage: request.usage }] : [];
  const agentEvents: LeadAgentEvent[] = subagent ? [{ type: 'subagentUsageReported', agentId: request.member, usage: request.usage }] : [];
  const after: TeamSpendContext = { ...ctx, state: applyLeadAll(state, teamEvents, ''), agent: applyLeadAgentAll(agent, agentEvents) };
  return { ok: true, teamEvents, agentEvents, workflowId: request.member, answer: { calls: request.calls, exhaustion: teamBudgetStop(after) } };
}
