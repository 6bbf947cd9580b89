/**
 * The budget check: whether a member may make another model call or begin another turn, from its
 * recorded usage and its limits. Pure: the workflows call it from recorded state, so a replay
 * decides the same.
 */
import {
  BUDGET_EXHAUSTED,
  BUDGET_UNPRICED,
  type BudgetExhaustion,
  type BudgetLimits,
  type MemberBudget,
  type TeamBudgets,
  type TeamLimits,
} from '../contract/budgets';
import type { TeamModels } from '../contract/modelNames';
import type { PriceTable, UsageTotals } from '../contract/usage';
import { own } from '../util/own';
import { costUsd } from './usage';

/**
 * The first budget that is used up, or null. `turnsBegun` counts turns already begun: before a new
 * turn pass the member's turns, within a turn pass null (its own turn is allowed to run on).
 * `activeMs`: time spent in turns so far, the running turn's included.
 */
export function spendExhaustion(budget: MemberBudget | undefined, usage: UsageTotals, turnsBegun: number | null, activeMs = 0): BudgetExhaustion | null {
  if (!budget) return null;
  const { limits, price } = budget;
  const used: [keyof BudgetLimits, number | null][] = [
    ['calls', usage.calls],
    ['tokens', usage.inputTokens + usage.outputTokens],
    ['costUsd', price ? costUsd(usage, price) : null],
    ['turns', turnsBegun],
    ['activeSeconds', Math.floor(activeMs / 1000)],
  ];
  for (const [dimension, amount] of used) {
    const limit = limits[dimension];
    if (limit !== undefined && amount !== null && amount >= limit) return { type: BUDGET_EXHAUSTED, budget: dimension, used: amount, limit };
  }
  return null;
}

/** `its tokens budget is used up (1234 of 1000)`; a Team budget: `the Team's tokens budget is used up (...), so <who> stopped`. */
export function exhaustionText(who: string, e: BudgetExhaustion): string {
  const shown = (n: number): string => (e.budget === 'costUsd' ? `$${n.toFixed(4)}` : String(n));
  if (e.scope === 'team') return `the Team's ${e.budget} budget is used up (${shown(e.used)} of ${shown(e.limit)}), which stops ${who}`;
  return `${who}'s ${e.budget} budget is used up (${shown(e.used)} of ${shown(e.limit)})`;
}

/** The budget a member runs under: the limits, with its model's price when a cost is capped. Null when it has none. */
export function memberBudget(limits: BudgetLimits | undefined, model: string | null, prices: PriceTable | undefined): MemberBudget | undefined {
  if (!limits || Object.keys(limits).length === 0) return undefined;
  const price = model !== null && prices ? own(prices, model) : undefined;
  return price ? { limits, price } : { limits };
}

/** Why a cost budget cannot apply to this model (it has no price), or null. */
export function unpricedBudget(limits: BudgetLimits | undefined, model: string | null, prices: PriceTable | undefined): string | null {
  if (limits?.costUsd === undefined) return null;
  if (model !== null && prices && own(prices, model)) return null;
  const name = model === null ? "the worker's default model" : `model ${JSON.stringify(model.slice(0, 80))}`;
  return (
    `${BUDGET_UNPRICED}: a cost budget of $${limits.costUsd} cannot be checked for ${name}, which the Team's price table does not price; ` +
    'price it (AGENT_TEAMS_PRICES) or budget tokens instead'
  );
}

/** A session input's `budget` and `teamBudget` fields, absent when there is none (older inputs had neither). */
export function withBudget(budget: MemberBudget | undefined, budgets: TeamBudgets | undefined): { budget?: MemberBudget; teamBudget?: true } {
  return { ...(budget ? { budget } : {}), ...(budgets?.team ? { teamBudget: true as const } : {}) };
}

/** The Team budget that is used up by the Team's totals (`costUsd`: the priced rows' sum), or null. */
export function teamExhaustion(limits: TeamLimits | undefined, total: UsageTotals, teamCostUsd: number | null): BudgetExhaustion | null {
  if (!limits) return null;
  const used: [keyof TeamLimits, number][] = [
    ['calls', total.calls],
    ['tokens', total.inputTokens + total.outputTokens],
    ['costUsd', teamCostUsd ?? 0],
  ];
  for (const [dimension, amount] of used) {
    const limit = limits[dimension];
    if (limit !== undefined && amount >= limit) return { type: BUDGET_EXHAUSTED, budget: dimension, used: amount, limit, scope: 'team' };
  }
  return null;
}

/** Why a Team cost budget cannot be checked (a model the Team may use has no price), or null. */
export function unpricedTeamBudget(limits: TeamLimits | undefined, models: TeamModels | undefined): string | null {
  if (limits?.costUsd === undefined) return null;
  const unpriced = models ? models.allowed.filter((m) => !models.prices || !own(models.prices, m)) : null;
  if (unpriced !== null && unpriced.length === 0) return null;
  const which = unpriced === null ? "the worker's default model (the Team lists no models)" : unpriced.map((m) => JSON.stringify(m.slice(0, 80))).join(', ');
  return (
    `${BUDGET_UNPRICED}: a Team cost budget of $${limits.costUsd} cannot be checked while the Team may call unpriced models (${which}); ` +
    'price every listed model (AGENT_TEAMS_PRICES) or budget the Team in tokens or calls instead'
  );
}
