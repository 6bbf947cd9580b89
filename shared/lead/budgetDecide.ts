/**
 * setBudget: who may change a budget, and to what. The operator may set any; the Lead (its agent's
 * tools, or a caller acting as the Lead) may only lower one, its own included, so a Lead that a
 * prompt injection took over cannot buy itself or its teammates more; teammates may not at all.
 */
import { BUDGET_DIMENSIONS, type BudgetLimits, type TeamBudgets } from '../contract/budgets';
import { LEAD, OPERATOR, hasLeadAuthority } from '../contract/callers';
import type { TeamModels } from '../contract/modelNames';
import { reject, type TeamRejectionType } from '../contract/rejections';
import { isLivePhase } from '../team';
import { own } from '../util/own';
import { unpricedBudget } from '../agent/spend';
import type { LeadDecision } from './decide';
import type { LeadState } from './state';

export interface BudgetContext {
  budgets: TeamBudgets | undefined;
  models: TeamModels | undefined;
  /** The model the Lead agent runs; undefined when the Lead runs no agent. */
  leadModel: string | null | undefined;
}

/** The limits `name` runs under now: the last setBudget's, else the Team's for its role; null: none. */
export function currentLimits(state: LeadState, name: string, budgets: TeamBudgets | undefined): BudgetLimits | null {
  return own(state.budgetOverrides, name) ?? (name === LEAD ? budgets?.lead : budgets?.member) ?? null;
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
  if (unpriced) return refuse('BudgetUnpriced', `${name}'s ${unpriced}`);
  const raised = caller === OPERATOR ? null : raisedCap(budget, currentLimits(state, name, ctx.budgets));
  if (raised) return refuse('OperatorOnly', `only the operator raises a budget, and this would raise ${name}'s: ${raised}; the Lead may only lower budgets`);
  return { ok: true, events: [{ type: 'budgetSet', name, limits: budget }] };
}
