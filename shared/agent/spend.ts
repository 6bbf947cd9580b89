/**
 * The budget check: whether a member may make another model call or begin another turn, from its
 * recorded usage and its limits. Pure: the workflows call it from recorded state, so a replay
 * decides the same.
 */
import { BUDGET_EXHAUSTED, BUDGET_UNPRICED, type BudgetExhaustion, type BudgetLimits, type MemberBudget } from '../contract/budgets';
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

/** `its tokens budget is used up (1234 of 1000)`. */
export function exhaustionText(who: string, e: BudgetExhaustion): string {
  const shown = (n: number): string => (e.budget === 'costUsd' ? `$${n.toFixed(4)}` : String(n));
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

/** A session input's `budget` field, absent when there is none (older inputs had none). */
export function withBudget(budget: MemberBudget | undefined): { budget?: MemberBudget } {
  return budget ? { budget } : {};
}
