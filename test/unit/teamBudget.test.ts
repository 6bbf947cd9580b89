/**
 * The Team budget's pure parts: the Lead's answer to a member's modelCallRequest (shared/lead/
 * teamBudgetDecide.ts), the Team check and its refusals, and a property over every interleaving of
 * members asking, the Lead answering and members calling: the Team never goes past its cap by
 * more than one call per member, and a member is refused only once the Team has reached it.
 */
import fc from 'fast-check';
import { teamExhaustion, unpricedTeamBudget } from '../../shared/agent/spend';
import { NO_USAGE } from '../../shared/agent/usage';
import { TEAM_BUDGET } from '../../shared/contract/budgets';
import { LEAD, OPERATOR } from '../../shared/contract/callers';
import type { UsageTotals } from '../../shared/contract/usage';
import {
  applyLeadAgentAll,
  applyLeadAll,
  decideModelCallRequest,
  decideSetBudget,
  decideSettle,
  decideSpawnTeammate,
  emptyLeadState,
  parseSpawn,
  type LeadState,
  type TeamSpendContext,
} from '../../shared/lead';
import type { CarriedLeadAgent } from '../../shared/lead/carried';

const NOW = '2026-12-05T00:00:00.000Z';
const calls = (n: number): UsageTotals => ({ ...NO_USAGE, calls: n, inputTokens: 10 * n, outputTokens: n });
const AGENT: CarriedLeadAgent = {
  subagents: { 't/subagent/1': { workflowId: 't/subagent/1', answers: [], closed: false } },
  nextSubagent: 2,
  conversation: [],
  turns: 0,
  cwd: '.',
  status: 'waiting',
  finalAnswer: null,
  openTasksAtAnswer: [],
  nudges: 0,
};

function withMembers(names: readonly string[]): LeadState {
  let state = emptyLeadState('t', 64);
  for (const name of names) {
    const spawn = decideSpawnTeammate(state, parseSpawn({ caller: LEAD, name, message: 'go' }), NOW);
    if (!spawn.ok) throw new Error(spawn.rejection.message);
    state = applyLeadAll(state, spawn.events, NOW);
    const settle = decideSettle(state, name, { phase: 'active' }, NOW, 10);
    if (!settle.ok) throw new Error('settle refused');
    state = applyLeadAll(state, settle.events, NOW);
  }
  return state;
}

const context = (state: LeadState, limit: number, agent = AGENT): TeamSpendContext => ({
  state,
  agent,
  limits: { calls: limit },
  leadModel: null,
  prices: undefined,
});

describe("the Lead's answer to a modelCallRequest", () => {
  const state = withMembers(['ping', 'pong']);
  const ping = 't/teammate/ping';

  test('a teammate under the cap is granted, and its totals are recorded', () => {
    const decision = decideModelCallRequest(context(state, 5), { member: ping, calls: 3, usage: calls(3) });
    expect(decision).toEqual({
      ok: true,
      teamEvents: [{ type: 'memberUsageReported', name: 'ping', usage: calls(3) }],
      agentEvents: [],
      workflowId: ping,
      answer: { calls: 3, exhaustion: null },
    });
  });

  test("a request that brings the Team to its cap is refused with the Team's exhaustion, counting every member and the Lead", () => {
    const known = decideModelCallRequest(context(state, 5), { member: 't/teammate/pong', calls: 2, usage: calls(2) });
    if (!known.ok) throw new Error('ignored');
    const after = applyLeadAll(state, known.teamEvents, NOW);
    const lead: CarriedLeadAgent = { ...AGENT, usage: { total: calls(1), lastTurn: null } };
    expect(decideModelCallRequest(context(after, 5, lead), { member: ping, calls: 2, usage: calls(2) })).toMatchObject({
      ok: true,
      answer: { calls: 2, exhaustion: { type: 'BudgetExhausted', budget: 'calls', used: 5, limit: 5, scope: 'team' } },
    });
  });

  test("a subagent's totals go to its record; an older report never lowers them", () => {
    const decision = decideModelCallRequest(context(state, 5), { member: 't/subagent/1', calls: 4, usage: calls(4) });
    if (!decision.ok) throw new Error('ignored');
    expect(decision.agentEvents).toEqual([{ type: 'subagentUsageReported', agentId: 't/subagent/1', usage: calls(4) }]);
    const recorded = applyLeadAgentAll(AGENT, decision.agentEvents);
    expect(applyLeadAgentAll(recorded, [{ type: 'subagentUsageReported', agentId: 't/subagent/1', usage: calls(1) }]).subagents['t/subagent/1']?.usage).toEqual(
      calls(4),
    );
    const teammate = applyLeadAll(state, [{ type: 'memberUsageReported', name: 'ping', usage: calls(4) }], NOW);
    expect(applyLeadAll(teammate, [{ type: 'memberUsageReported', name: 'ping', usage: calls(2) }], NOW).memberUsage.ping).toEqual(calls(4));
  });

  test('a workflow that is neither a teammate nor a subagent is ignored, inherited property names included', () => {
    for (const member of ['t/teammate/ghost', 'ping', '__proto__', 'constructor', 'toString', 't/subagent/9']) {
      expect(decideModelCallRequest(context(state, 5), { member, calls: 0, usage: calls(0) })).toEqual({ ok: false, ignored: 'nonMember' });
    }
  });
});

describe('the Team check and its refusals', () => {
  test('each Team cap stops at its limit; cost counts the priced rows', () => {
    expect(teamExhaustion({ calls: 3 }, calls(2), null)).toBeNull();
    expect(teamExhaustion({ calls: 3 }, calls(3), null)).toEqual({ type: 'BudgetExhausted', budget: 'calls', used: 3, limit: 3, scope: 'team' });
    expect(teamExhaustion({ tokens: 33 }, calls(3), null)).toMatchObject({ budget: 'tokens', used: 33 });
    expect(teamExhaustion({ costUsd: 0.5 }, calls(3), 0.75)).toMatchObject({ budget: 'costUsd', used: 0.75 });
    expect(teamExhaustion(undefined, calls(1000), 1000)).toBeNull();
  });

  test('a Team cost budget needs every model the Team may use priced', () => {
    const models = { allowed: ['a:one', 'a:two'], default: 'a:one', prices: { 'a:one': { input: 1, output: 1 } } };
    expect(unpricedTeamBudget({ costUsd: 1 }, models)).toMatch(/^BudgetUnpriced: .*"a:two".*price every listed model/);
    expect(unpricedTeamBudget({ costUsd: 1 }, undefined)).toMatch(/the Team lists no models/);
    expect(unpricedTeamBudget({ costUsd: 1 }, { ...models, prices: { ...models.prices, 'a:two': { input: 1, output: 1 } } })).toBeNull();
    expect(unpricedTeamBudget({ calls: 1 }, undefined)).toBeNull();
  });

  test("setBudget of the Team's: the operator raises, the Lead only lowers, never turns, never on a Team without one", () => {
    const state = withMembers(['ping']);
    const ctx = { budgets: { team: { calls: 10 } }, models: undefined, leadModel: null };
    expect(decideSetBudget(state, { caller: OPERATOR, name: TEAM_BUDGET, budget: { calls: 50 } }, ctx)).toEqual({
      ok: true,
      events: [{ type: 'budgetSet', name: TEAM_BUDGET, limits: { calls: 50 } }],
    });
    expect(decideSetBudget(state, { caller: LEAD, name: TEAM_BUDGET, budget: { calls: 5 } }, ctx).ok).toBe(true);
    const refused = (caller: string, budget: object, c = ctx) =>
      (decideSetBudget(state, { caller, name: TEAM_BUDGET, budget }, c) as { rejection?: { type: string } }).rejection?.type;
    expect(refused(LEAD, { calls: 50 })).toBe('OperatorOnly');
    expect(refused(LEAD, {})).toBe('OperatorOnly');
    expect(refused('ping', { calls: 5 })).toBe('LeadOnly');
    expect(refused(OPERATOR, { turns: 5 })).toBe('InvalidTeamCommand');
    expect(refused(OPERATOR, { calls: 5 }, { ...ctx, budgets: {} as typeof ctx.budgets })).toBe('NoTeamBudget');
  });
});

/**
 * The protocol's model: each member's calls so far, what it last told the Lead, and whether it
 * waits for an answer or holds a grant. The Lead answers with the real decide, from the state the
 * real apply builds.
 */
describe('the overshoot bound, over every interleaving (property)', () => {
  type Step = { kind: 'ask' | 'answer' | 'call'; member: number };
  test('the Team ends at most one call per member over its cap; no member is refused below it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.record({ kind: fc.constantFrom<Step['kind']>('ask', 'answer', 'call'), member: fc.nat(3) }), { maxLength: 200 }),
        (members, cap, steps) => {
          const names = ['m-a', 'm-b', 'm-c', 'm-d'].slice(0, members);
          let state = withMembers(names);
          const made = names.map(() => 0);
          const phase: ('idle' | 'asked' | 'granted' | 'refused')[] = names.map(() => 'idle');
          const asked = names.map(() => 0);
          for (const step of steps) {
            const i = step.member % members;
            if (step.kind === 'ask' && phase[i] === 'idle') {
              phase[i] = 'asked';
              asked[i] = made[i]!;
            } else if (step.kind === 'answer' && phase[i] === 'asked') {
              const decision = decideModelCallRequest(context(state, cap), { member: `t/teammate/${names[i]}`, calls: asked[i]!, usage: calls(asked[i]!) });
              if (!decision.ok) throw new Error('ignored');
              state = applyLeadAll(state, decision.teamEvents, NOW);
              const known = Object.values(state.memberUsage).reduce((sum, u) => sum + u.calls, 0);
              if (decision.answer.exhaustion !== null) expect(known).toBeGreaterThanOrEqual(cap); // refused only at the cap, as the Lead knows it
              phase[i] = decision.answer.exhaustion === null ? 'granted' : 'refused';
            } else if (step.kind === 'call' && phase[i] === 'granted') {
              made[i]! += 1;
              phase[i] = 'idle';
            }
            expect(made.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(cap - 1 + members);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
