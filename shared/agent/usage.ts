/**
 * Usage arithmetic: a call's usage as totals, sums, a member's usage after one more recorded call,
 * and cost from a price table. Pure: the workflows apply these to model-call results recorded in
 * their histories, so a replay computes the same figures.
 */
import type { ModelUsage } from '../contract/model';
import { TOKEN_KINDS, type MemberUsage, type ModelPrice, type PriceTable, type UsageTotals, type UsageView } from '../contract/usage';
import { own } from '../util/own';

export const NO_USAGE: UsageTotals = { calls: 0, inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 };
export const NO_MEMBER_USAGE: MemberUsage = { total: NO_USAGE, lastTurn: null };

/** One recorded call: counted even when the provider reported no usage (its tokens are then 0). */
export function callUsage(usage: ModelUsage | undefined): UsageTotals {
  return {
    calls: 1,
    inputTokens: usage?.promptTokens ?? 0,
    cacheReadTokens: usage?.cacheReadTokens ?? 0,
    cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
    outputTokens: usage?.completionTokens ?? 0,
    reasoningTokens: usage?.reasoningTokens ?? 0,
  };
}

/** Saturating, so a forged or absurd figure can never make a total unsafe. */
export function addUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  const sum = (x: number, y: number): number => Math.min(Number.MAX_SAFE_INTEGER, x + y);
  return {
    calls: sum(a.calls, b.calls),
    inputTokens: sum(a.inputTokens, b.inputTokens),
    cacheReadTokens: sum(a.cacheReadTokens, b.cacheReadTokens),
    cacheWriteTokens: sum(a.cacheWriteTokens, b.cacheWriteTokens),
    outputTokens: sum(a.outputTokens, b.outputTokens),
    reasoningTokens: sum(a.reasoningTokens, b.reasoningTokens),
  };
}

export function sumUsage(all: readonly UsageTotals[]): UsageTotals {
  return all.reduce(addUsage, NO_USAGE);
}

/** A member's usage after one more recorded call in `turn`: its total, and the turn's (a new turn starts from zero). */
export function recordCall(usage: MemberUsage, turn: number, call: UsageTotals): MemberUsage {
  const turnSoFar = usage.lastTurn?.turn === turn ? usage.lastTurn.usage : NO_USAGE;
  return { ...usage, total: addUsage(usage.total, call), lastTurn: { turn, usage: addUsage(turnSoFar, call) } };
}

/** A member's usage with `ms` more time spent in turns (a clock that went back adds nothing). */
export function addActiveTime(usage: MemberUsage, ms: number): MemberUsage {
  return { ...usage, activeMs: Math.min(Number.MAX_SAFE_INTEGER, (usage.activeMs ?? 0) + Math.max(0, Math.round(ms))) };
}

/** The cost of these tokens in US dollars at this price (cache reads and writes at the input price when the table gives none). */
export function costUsd(totals: UsageTotals, price: ModelPrice): number {
  const uncachedInput = Math.max(0, totals.inputTokens - totals.cacheReadTokens - totals.cacheWriteTokens);
  const micro =
    uncachedInput * price.input +
    totals.cacheReadTokens * (price.cacheRead ?? price.input) +
    totals.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    totals.outputTokens * price.output;
  return micro / 1_000_000;
}

/** A member's totals as views show them: with their cost when its model has a price. */
export function usageView(model: string | null, total: UsageTotals, prices: PriceTable | undefined): UsageView {
  const price = model !== null && prices ? own(prices, model) : undefined;
  return { model, total, costUsd: price ? costUsd(total, price) : null };
}

/** Whether any token was counted (a Team whose provider reports no usage shows calls only). */
export function hasTokens(totals: UsageTotals): boolean {
  return TOKEN_KINDS.some((kind) => totals[kind] > 0);
}
