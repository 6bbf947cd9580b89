/**
 * What model calls used: token counts of each kind and the number of calls, summed over a turn, a
 * member, or a Team; and the Team's price table, which turns them into a cost.
 *
 * The kinds follow the providers' normalised usage (the AI SDK's): `inputTokens` is every prompt
 * token, of which `cacheReadTokens` were read from the provider's prompt cache and
 * `cacheWriteTokens` written to it; `outputTokens` is every generated token, of which
 * `reasoningTokens` were reasoning. A provider that does not report a kind reports 0 of it.
 */
import { z } from 'zod';
import { modelNameSchema } from './vocabulary';

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** The token kinds, in the order views show them. */
export const TOKEN_KINDS = ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens', 'reasoningTokens'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

export const usageTotalsSchema = z.object({
  /** Model calls whose answer was recorded (a call lost to a worker crash is billed but not here: docs/agent-runtime.md). */
  calls: count,
  inputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  outputTokens: count,
  reasoningTokens: count,
});
export type UsageTotals = z.output<typeof usageTotalsSchema>;

/** One member's usage: every recorded call, and the turn it is in or last ran. */
export const memberUsageSchema = z.object({
  total: usageTotalsSchema,
  /** null until the member's first call. */
  lastTurn: z.object({ turn: count, usage: usageTotalsSchema }).nullable(),
  /** Time spent in turns, in milliseconds of workflow time (idle time between turns is not counted; absent: none yet). */
  activeMs: count.optional(),
});
export type MemberUsage = z.output<typeof memberUsageSchema>;

/** The most a price may be, in US dollars per million tokens (a typo's guard, far above any real price). */
export const MAX_PRICE_PER_MILLION = 10_000;
const price = z.number().min(0).max(MAX_PRICE_PER_MILLION);

/**
 * One model's prices in US dollars per million tokens. Input tokens not read from or written to the
 * cache are priced `input`; cache reads `cacheRead` and cache writes `cacheWrite`, each `input` when
 * not given; output tokens (reasoning among them) `output`.
 */
export const modelPriceSchema = z.strictObject({ input: price, output: price, cacheRead: price.optional(), cacheWrite: price.optional() });
export type ModelPrice = z.output<typeof modelPriceSchema>;

/** The Team's price table: per model name. A model that is not in it shows tokens only. */
export const priceTableSchema = z.record(modelNameSchema, modelPriceSchema);
export type PriceTable = z.output<typeof priceTableSchema>;

/** A member's usage as views show it: the totals and, when its model is priced, their cost in US dollars. */
export interface UsageView {
  model: string | null;
  total: UsageTotals;
  /** null: the model has no price in the Team's table. */
  costUsd: number | null;
}

/** One row of a Team's usage: the Lead, a teammate or an ordinary subagent of the Lead. */
export interface MemberUsageRow extends UsageView {
  name: string;
  role: 'lead' | 'teammate' | 'subagent';
}
