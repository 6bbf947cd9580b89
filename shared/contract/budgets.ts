/**
 * Spend budgets: caps on what a member's model calls may use, checked before every model call and
 * before every turn (docs/agent-runtime.md, "Budgets"). A Team records them in its start input: one
 * for the Lead agent, and one every teammate and subagent gets.
 */
import { z } from 'zod';
import { modelPriceSchema } from './usage';

/** What a budget caps: recorded model calls, tokens (input plus output), cost in US dollars, turns begun, seconds spent in turns. */
export const BUDGET_DIMENSIONS = ['calls', 'tokens', 'costUsd', 'turns', 'activeSeconds'] as const;
export type BudgetDimension = (typeof BUDGET_DIMENSIONS)[number];

const whole = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/** Each cap is optional; a budget without any caps nothing. */
export const budgetLimitsSchema = z.strictObject({
  calls: whole.optional(),
  tokens: whole.optional(),
  costUsd: z.number().gt(0).max(1_000_000).optional(),
  turns: whole.optional(),
  activeSeconds: whole.optional(),
});
export type BudgetLimits = z.output<typeof budgetLimitsSchema>;

/**
 * What a Team budget caps: the whole Team's recorded calls, tokens and cost (turns and active time
 * are a member's own). The Lead holds the totals and grants each member's next model call.
 */
export const TEAM_BUDGET_DIMENSIONS = ['calls', 'tokens', 'costUsd'] as const satisfies readonly BudgetDimension[];
export const teamLimitsSchema = budgetLimitsSchema.pick({ calls: true, tokens: true, costUsd: true });
export type TeamLimits = z.output<typeof teamLimitsSchema>;

/** The name setBudget takes for the Team budget (no member is named so: names are kebab-case). */
export const TEAM_BUDGET = '@team';

/** A Team's budgets: the Lead agent's own, the one each teammate and subagent runs under, and the whole Team's. */
export const teamBudgetsSchema = z.strictObject({
  lead: budgetLimitsSchema.optional(),
  member: budgetLimitsSchema.optional(),
  team: teamLimitsSchema.optional(),
});
export type TeamBudgets = z.output<typeof teamBudgetsSchema>;

/** A member's budget as its workflow receives it: the limits, and its model's price when a cost is capped. */
export const memberBudgetSchema = z.strictObject({
  limits: budgetLimitsSchema,
  price: modelPriceSchema.optional(),
});
export type MemberBudget = z.output<typeof memberBudgetSchema>;

/** The stable type of a member stopped by its budget (its conversation's note, the Lead's message, the Lead's answer). */
export const BUDGET_EXHAUSTED = 'BudgetExhausted';
/** A cost budget for a model the Team's price table does not price: refused at start or spawn, since it could never be checked. */
export const BUDGET_UNPRICED = 'BudgetUnpriced';

/** Which budget ran out, what was used and the limit; `scope: 'team'` when it is the whole Team's (the Team's use, the Team's limit). */
export interface BudgetExhaustion {
  type: typeof BUDGET_EXHAUSTED;
  budget: BudgetDimension;
  used: number;
  limit: number;
  scope?: 'team';
}
export const budgetExhaustionSchema = z.strictObject({
  type: z.literal(BUDGET_EXHAUSTED),
  budget: z.enum(BUDGET_DIMENSIONS),
  used: z.number().min(0),
  limit: z.number().min(0),
  scope: z.literal('team').optional(),
});

/** The words of a budget as people write it (`calls=40,tokens=200000,cost=2.5,turns=10`). */
const BUDGET_WORDS: Readonly<Record<string, BudgetDimension>> = {
  calls: 'calls',
  tokens: 'tokens',
  cost: 'costUsd',
  turns: 'turns',
  active: 'activeSeconds',
};

/** A budget as people write it; throws a message naming what to write when it is malformed. */
export function parseBudgetText(text: string): BudgetLimits {
  const limits: Record<string, number> = {};
  for (const entry of text.split(/[\s,]+/).filter((e) => e !== '')) {
    const [word, value, extra] = entry.split('=');
    const dimension = word !== undefined && Object.prototype.hasOwnProperty.call(BUDGET_WORDS, word) ? BUDGET_WORDS[word] : undefined;
    if (!dimension || value === undefined || value.trim() === '' || extra !== undefined) throw new Error(budgetSyntax(entry));
    limits[dimension] = Number(value);
  }
  const parsed = budgetLimitsSchema.safeParse(limits);
  if (!parsed.success) throw new Error(budgetSyntax(text));
  return parsed.data;
}

function budgetSyntax(shown: string): string {
  return (
    `${JSON.stringify(shown.slice(0, 80))} is not a budget; write calls=N,tokens=N,cost=USD,turns=N,active=SECONDS (any of them; ` +
    'calls, tokens, turns and seconds whole numbers from 1, cost above 0)'
  );
}
