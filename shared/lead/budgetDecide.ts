/**
 * setBudget: who may change a budget, and to what. The operator may set any; the Lead (its agent's
 * tools, or a caller acting as the Lead) may only lower one, its own included, so a Lead that a
 * prompt injection took over cannot buy itself or its teammates more; teammates may not at all.
 */
import { BUDGET_DIMENSIONS, TEAM_BUDGET, TEAM_BUDGET_DIMENSIONS, type BudgetLimits, type TeamBudgets } from '../contract/budgets';
import { LEAD, OPERATOR, hasLeadAuthority } from '../contract/callers';
import type { TeamModels } from '../contract/modelNames';
import { reject, type TeamRejectionType } from '../contract/rejections';
import { isLivePhase } from '../team';
import { own } from '../util/own';
import { unpricedBudget, unpricedTeamBudget } from '../agent/spend';
import type { LeadDecision } from './decide';
import type { LeadState } from './state';

export interface BudgetContext {
  budgets: TeamBudgets | undefined;
  models: TeamModels | undefined;
  /** The model the Lead agent runs; undefined when the Lead runs no agent. */
  leadModel: string | null | undefined;
}

/** The limits `name` (a teammate, "lead", or TEAM_BUDGET) runs under now: the last setBudget's, else the Team's for its role; null: none. */
export function currentLimits(state: LeadState, name: string, budgets: TeamBudgets | undefined): BudgetLimits | null {
  return own(state.budgetOverrides, name) ?? (name === LEAD ? budgets?.lead : name === TEAM_BUDGET ? budgets?.team : budgets?.member) ?? null;
}

/** The first cap that `next` raises or removes, as a sentence; null when every cap stays or goes down. */
export function raisedCap(next: BudgetLimits, current: BudgetLimits | null): string | null {
  for (const dimension of BUDGET_DIMENSIONS) {
    const before = current?.[dimension];
    const after = next[dimension];
    if (before === undefined) continue;
    if (after === undefined) return `it would remove the ${dimension} cap of ${before}`;
    if (after > before) return `it would raise the ${dimension} cap from ${before} to ${after}`;
  }
  return null;
}

const refuse = (type: TeamRejectionType, message: string): LeadDecision => ({ ok: false, rejection: reject(type, message) });

export function decideSetBudget(state: LeadState, request: { caller: string; name: string; budget: BudgetLimits }, ctx: BudgetContext): LeadDecision {
  const { caller, name, budget } = request;
  if (!hasLeadAuthority(caller)) return refuse('LeadOnly', 'only the operator (or the Lead, to lower one) sets budgets');
  const refusal = name === TEAM_BUDGET ? teamBudgetRefusal(state, budget, ctx) : memberBudgetRefusal(state, name, budget, ctx);
  if (refusal) return refusal;
  const whose = name === TEAM_BUDGET ? "the Team's" : `${name}'s`;
  const raised = caller === OPERATOR ? null : raisedCap(budget, currentLimits(state, name, ctx.budgets));
  if (raised) return refuse('OperatorOnly', `only the operator raises a budget, and this would raise ${whose}: ${raised}; the Lead may only lower budgets`);
  return { ok: true, events: [{ type: 'budgetSet', name, limits: budget }] };
}

/** A teammate's or the Lead's budget: the member exists, and a cost cap has a price to check. */
function memberBudgetRefusal(state: LeadState, name: string, budget: BudgetLimits, ctx: BudgetContext): LeadDecision | null {
  let model: string | null;
  if (name === LEAD) {
    if (ctx.leadModel === undefined) return refuse('AgentNotEnabled', `Team ${state.team.teamId}'s Lead runs no agent, so it has no budget to set`);
    model = ctx.leadModel;
  } else {
    const member = own(state.team.members, name);
    if (!member || !isLivePhase(member.phase)) return refuse('UnknownMember', `there is no live teammate "${name}"; read the roster for the names`);
    model = member.model;
  }
  const unpriced = unpricedBudget(budget, model, ctx.models?.prices);
  return unpriced ? refuse('BudgetUnpriced', `${name}'s ${unpriced}`) : null;
}

/** The Team budget: only on a Team started with one (its members ask the Lead before each call), only its dimensions, and priced. */
function teamBudgetRefusal(state: LeadState, budget: BudgetLimits, ctx: BudgetContext): LeadDecision | null {
  if (!ctx.budgets?.team) {
    return refuse(
      'NoTeamBudget',
      `Team ${state.team.teamId} was started without a Team budget, so there is none to change; start a Team with one (--team-budget)`,
    );
  }
  const other = BUDGET_DIMENSIONS.find((d) => budget[d] !== undefined && !(TEAM_BUDGET_DIMENSIONS as readonly string[]).includes(d));
  if (other) return refuse('InvalidTeamCommand', `a Team budget caps ${TEAM_BUDGET_DIMENSIONS.join(', ')}, not ${other}; budget ${other} per member instead`);
  const unpriced = unpricedTeamBudget(budget, ctx.models);
  return unpriced ? refuse('BudgetUnpriced', unpriced) : null;
}
