/**
 * Budgets: the check before a model call and before a turn, the budget syntax, and who may set
 * what (the operator any budget, the Lead only a lower one, its own included, teammates none).
 */
import fc from 'fast-check';
import { exhaustionText, memberBudget, spendExhaustion, unpricedBudget } from '../../shared/agent/spend';
import { NO_USAGE } from '../../shared/agent/usage';
import { BUDGET_DIMENSIONS, parseBudgetText, type BudgetLimits } from '../../shared/contract/budgets';
import { LEAD, OPERATOR } from '../../shared/contract/callers';
import type { UsageTotals } from '../../shared/contract/usage';
import {
  applyLeadAll,
  currentLimits,
  decideSettle,
  decideSpawnTeammate,
  decideSetBudget,
  decideStatusReport,
  emptyLeadState,
  parseSpawn,
  raisedCap,
  type BudgetContext,
  type LeadState,
} from '../../shared/lead';

const NOW = '2026-12-05T00:00:00.000Z';
const used = (calls: number, input: number, output: number): UsageTotals => ({ ...NO_USAGE, calls, inputTokens: input, outputTokens: output });
const PRICES = { 'a:priced': { input: 2, output: 10 } };

function withMember(name: string, model: string): LeadState {
  const state = emptyLeadState('t', 8);
  const spawn = decideSpawnTeammate(state, parseSpawn({ caller: LEAD, name, message: 'go', model }), NOW);
  if (!spawn.ok) throw new Error(spawn.rejection.message);
  const spawned = applyLeadAll(state, spawn.events, NOW);
  const settle = decideSettle(spawned, name, { phase: 'active' }, NOW, 10);
  if (!settle.ok) throw new Error('settle refused');
  return applyLeadAll(spawned, settle.events, NOW);
}

describe('the budget check', () => {
  test('each cap stops at its limit: calls, tokens (input plus output), cost at the price, turns begun', () => {
    const budget = { limits: { calls: 3, tokens: 1_000, costUsd: 0.01, turns: 2 }, price: PRICES['a:priced'] };
    expect(spendExhaustion(budget, used(2, 100, 100), 1)).toBeNull();
    expect(spendExhaustion(budget, used(3, 100, 100), 1)).toEqual({ type: 'BudgetExhausted', budget: 'calls', used: 3, limit: 3 });
    expect(spendExhaustion(budget, used(1, 900, 100), 1)).toMatchObject({ budget: 'tokens', used: 1_000, limit: 1_000 });
    // 2,000 input at $2 and 600 output at $10 per million: $0.004 + $0.006.
    expect(spendExhaustion({ ...budget, limits: { costUsd: 0.01 } }, used(1, 2_000, 600), 0)).toMatchObject({ budget: 'costUsd', limit: 0.01 });
    expect(spendExhaustion(budget, used(1, 10, 10), 2)).toMatchObject({ budget: 'turns', used: 2, limit: 2 });
    // Within a turn the turns cap is not checked: the turn that began may run on.
    expect(spendExhaustion(budget, used(1, 10, 10), null)).toBeNull();
    expect(spendExhaustion(undefined, used(1e9, 1e9, 1e9), 1e9)).toBeNull();
    // Active time: whole seconds spent in turns, the running turn's included.
    expect(spendExhaustion({ limits: { activeSeconds: 60 } }, NO_USAGE, null, 59_999)).toBeNull();
    expect(spendExhaustion({ limits: { activeSeconds: 60 } }, NO_USAGE, null, 60_000)).toEqual({
      type: 'BudgetExhausted',
      budget: 'activeSeconds',
      used: 60,
      limit: 60,
    });
  });

  test('against a simpler model: stopped exactly when some capped figure has reached its cap', () => {
    const cap = fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined });
    fc.assert(
      fc.property(cap, cap, cap, fc.nat(60), fc.nat(60), fc.nat(60), (calls, tokens, turns, c, t, n) => {
        const limits: BudgetLimits = { ...(calls ? { calls } : {}), ...(tokens ? { tokens } : {}), ...(turns ? { turns } : {}) };
        const stopped = spendExhaustion({ limits }, used(c, t, 0), n) !== null;
        const model = (calls !== undefined && c >= calls) || (tokens !== undefined && t >= tokens) || (turns !== undefined && n >= turns);
        expect(stopped).toBe(model);
      }),
    );
  });

  test('a cost cap needs a price: refused with what to do, and no price means no check', () => {
    expect(unpricedBudget({ costUsd: 1 }, 'a:priced', PRICES)).toBeNull();
    expect(unpricedBudget({ costUsd: 1 }, 'b:free', PRICES)).toMatch(
      /^BudgetUnpriced: .*model "b:free".*price it \(AGENT_TEAMS_PRICES\) or budget tokens instead$/,
    );
    expect(unpricedBudget({ costUsd: 1 }, null, PRICES)).toMatch(/the worker's default model/);
    expect(unpricedBudget({ tokens: 5 }, 'b:free', undefined)).toBeNull();
    expect(memberBudget({ tokens: 5 }, 'a:priced', PRICES)).toEqual({ limits: { tokens: 5 }, price: PRICES['a:priced'] });
    expect(memberBudget({}, 'a:priced', PRICES)).toBeUndefined();
    expect(exhaustionText('mate', { type: 'BudgetExhausted', budget: 'costUsd', used: 0.0123456, limit: 0.01 })).toBe(
      "mate's costUsd budget is used up ($0.0123 of $0.0100)",
    );
  });

  test('the budget syntax: any of calls, tokens, cost, turns; anything else refused with what to write', () => {
    expect(parseBudgetText('calls=40,tokens=200000 cost=2.5,turns=10,active=600')).toEqual({
      calls: 40,
      tokens: 200_000,
      costUsd: 2.5,
      turns: 10,
      activeSeconds: 600,
    });
    expect(parseBudgetText('cost=0.5')).toEqual({ costUsd: 0.5 });
    for (const bad of ['calls=0', 'calls=1.5', 'cost=0', 'time=5', 'calls', 'calls=', 'calls=1=2', '__proto__=1', 'constructor=1', 'tokens=-3']) {
      expect(() => parseBudgetText(bad)).toThrow(/is not a budget; write calls=N,tokens=N,cost=USD,turns=N/);
    }
  });
});

describe('who may set a budget', () => {
  const ctx: BudgetContext = { budgets: { lead: { calls: 10 }, member: { calls: 5, tokens: 1_000 } }, models: undefined, leadModel: 'a:lead' };
  const state = withMember('mate', 'b:mate');
  const set = (caller: string, name: string, budget: BudgetLimits) => decideSetBudget(state, { caller, name, budget }, ctx);

  test('the operator may raise, lower or remove any cap, of a teammate or the Lead', () => {
    expect(set(OPERATOR, 'mate', { calls: 500 })).toEqual({ ok: true, events: [{ type: 'budgetSet', name: 'mate', limits: { calls: 500 } }] });
    expect(set(OPERATOR, LEAD, {})).toMatchObject({ ok: true });
  });

  test('the Lead may only lower, its own budget included; a raise or a removed cap is OperatorOnly', () => {
    expect(set(LEAD, 'mate', { calls: 2, tokens: 1_000 })).toMatchObject({ ok: true });
    expect(set(LEAD, 'mate', { calls: 6, tokens: 1_000 })).toMatchObject({ ok: false, rejection: { type: 'OperatorOnly' } });
    expect(set(LEAD, 'mate', { calls: 5 })).toMatchObject({
      ok: false,
      rejection: { type: 'OperatorOnly', message: expect.stringContaining('remove the tokens cap of 1000') },
    });
    expect(set(LEAD, LEAD, { calls: 10, turns: 3 })).toMatchObject({ ok: true });
    expect(set(LEAD, LEAD, { calls: 11 })).toMatchObject({ ok: false, rejection: { type: 'OperatorOnly', message: expect.stringContaining('from 10 to 11') } });
  });

  test('a teammate may not set any budget, not even lower its own', () => {
    expect(set('mate', 'mate', { calls: 1 })).toMatchObject({ ok: false, rejection: { type: 'LeadOnly' } });
  });

  test('the name must be a live teammate, or the Lead of a Team whose Lead is an agent; a cost cap needs a price', () => {
    expect(set(OPERATOR, 'ghost', { calls: 1 })).toMatchObject({ ok: false, rejection: { type: 'UnknownMember' } });
    expect(set(OPERATOR, '__proto__', { calls: 1 })).toMatchObject({ ok: false, rejection: { type: 'UnknownMember' } });
    expect(decideSetBudget(state, { caller: OPERATOR, name: LEAD, budget: { calls: 1 } }, { ...ctx, leadModel: undefined })).toMatchObject({
      ok: false,
      rejection: { type: 'AgentNotEnabled' },
    });
    expect(set(OPERATOR, 'mate', { costUsd: 1 })).toMatchObject({ ok: false, rejection: { type: 'BudgetUnpriced' } });
  });

  test('what a budget is now: the last setBudget, else the Team default for the role', () => {
    expect(currentLimits(state, 'mate', ctx.budgets)).toEqual({ calls: 5, tokens: 1_000 });
    expect(currentLimits(state, LEAD, ctx.budgets)).toEqual({ calls: 10 });
    const decision = set(OPERATOR, 'mate', { turns: 1 });
    const after = decision.ok ? applyLeadAll(state, decision.events, NOW) : state;
    expect(currentLimits(after, 'mate', ctx.budgets)).toEqual({ turns: 1 });
    expect(currentLimits(after, 'other', undefined)).toBeNull();
  });

  test('raisedCap against a simpler model: a raise is any capped dimension that grows or disappears', () => {
    const limits = fc.record({ calls: fc.integer({ min: 1, max: 9 }), tokens: fc.integer({ min: 1, max: 9 }) }, { requiredKeys: [] });
    fc.assert(
      fc.property(limits, limits, (next, current) => {
        const raises = BUDGET_DIMENSIONS.some((d) => current[d as 'calls'] !== undefined && (next[d as 'calls'] ?? Infinity) > current[d as 'calls']!);
        expect(raisedCap(next, current) !== null).toBe(raises);
      }),
    );
  });
});

describe('the Lead is told once a budget stopped a teammate', () => {
  test('a report carrying the stop puts a runtime note in the Lead inbox, naming the budget, the figures and what to do', () => {
    const state = withMember('mate', 'b:mate');
    const exhausted = { type: 'BudgetExhausted' as const, budget: 'calls' as const, used: 5, limit: 5 };
    const decision = decideStatusReport(state, { name: 'mate', status: 'idle', turn: 3, usage: used(5, 50, 5), exhausted }, NOW);
    if (!decision.ok) throw new Error('refused');
    const after = applyLeadAll(state, decision.events, NOW);
    expect(after.leadInbox.pending).toEqual([
      {
        messageId: 't/lead/budget-mate-3-calls',
        from: LEAD,
        content: expect.objectContaining({
          event: 'teammate stopped by its budget',
          teammate: 'mate',
          type: 'BudgetExhausted',
          budget: 'calls',
          used: 5,
          limit: 5,
        }),
        sentAt: NOW,
      },
    ]);
    // The same report again (a retried signal) is one message.
    const again = decideStatusReport(after, { name: 'mate', status: 'idle', turn: 3, exhausted }, NOW);
    expect(again.ok && applyLeadAll(after, again.events, NOW).leadInbox.pending).toHaveLength(1);
  });
});
