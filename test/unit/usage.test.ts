/**
 * Usage and cost: the arithmetic, the price table as people write it, what the Lead keeps from its
 * own calls and from its members' reports, and the Team's usage view with its costs.
 */
import fc from 'fast-check';
import { NO_MEMBER_USAGE, NO_USAGE, addActiveTime, addUsage, callUsage, costUsd, recordCall, sumUsage } from '../../shared/agent/usage';
import { parseDeploymentModels, parsePriceTable, teamModelsSchema } from '../../shared/contract/modelNames';
import { TOKEN_KINDS, type UsageTotals } from '../../shared/contract/usage';
import {
  applyLeadAgentAll,
  applyLeadAll,
  decideModelCall,
  decideOpenSubagent,
  decideSettle,
  decideSpawnTeammate,
  decideStatusReport,
  decideSubagentAnswer,
  emptyLeadState,
  parseSpawn,
  type LeadState,
} from '../../shared/lead';
import type { CarriedLeadAgent } from '../../shared/lead/carried';
import { FORGOTTEN_SUBAGENTS, teamUsageView } from '../../shared/lead/usageView';
import { MAX_SUBAGENTS } from '../../shared/contract/limits';
import { LEAD } from '../../shared/contract/callers';

const NOW = '2026-12-05T00:00:00.000Z';
const tokens = fc.nat({ max: 1_000_000 });
const modelUsage = fc.record(
  { promptTokens: tokens, completionTokens: tokens, cacheReadTokens: tokens, cacheWriteTokens: tokens, reasoningTokens: tokens },
  { requiredKeys: ['promptTokens', 'completionTokens'] },
);

const usage = (input: number, output: number, extra: Partial<UsageTotals> = {}): UsageTotals => ({
  ...NO_USAGE,
  calls: 1,
  inputTokens: input,
  outputTokens: output,
  ...extra,
});

function withMember(name: string, model: string | null): LeadState {
  const state = emptyLeadState('t', 8);
  const spawn = decideSpawnTeammate(state, parseSpawn({ caller: LEAD, name, message: 'start', ...(model ? { model } : {}) }), NOW);
  if (!spawn.ok) throw new Error(spawn.rejection.message);
  const spawned = applyLeadAll(state, spawn.events, NOW);
  const settle = decideSettle(spawned, name, { phase: 'active' }, NOW, 100);
  if (!settle.ok) throw new Error('settle refused');
  return applyLeadAll(spawned, settle.events, NOW);
}

const agent = (over: Partial<CarriedLeadAgent> = {}): CarriedLeadAgent => ({
  subagents: {},
  nextSubagent: 0,
  conversation: [],
  turns: 1,
  cwd: '.',
  status: 'running',
  finalAnswer: null,
  openTasksAtAnswer: [],
  nudges: 0,
  ...over,
});

describe('usage arithmetic', () => {
  test('a member total is the sum of its calls, whatever the order; the last turn holds only that turn', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), modelUsage), { maxLength: 30 }), (calls) => {
        const turns = [...calls].sort(([a], [b]) => a - b);
        const member = turns.reduce((u, [turn, call]) => recordCall(u, turn, callUsage(call)), NO_MEMBER_USAGE);
        const expected = sumUsage(turns.map(([, call]) => callUsage(call)));
        expect(member.total).toEqual(expected);
        expect(member.total.calls).toBe(calls.length);
        const lastTurn = turns[turns.length - 1]?.[0];
        if (lastTurn === undefined) return expect(member.lastTurn).toBeNull();
        expect(member.lastTurn).toEqual({ turn: lastTurn, usage: sumUsage(turns.filter(([t]) => t === lastTurn).map(([, c]) => callUsage(c))) });
      }),
    );
  });

  test('active time adds up whole milliseconds, never goes back, and survives recorded calls', () => {
    let member = addActiveTime(NO_MEMBER_USAGE, 1_500.4);
    member = addActiveTime(member, -300);
    member = recordCall(member, 1, callUsage({ promptTokens: 1, completionTokens: 1 }));
    expect(member.activeMs).toBe(1_500);
  });

  test('a call without reported usage still counts as a call, with no tokens', () => {
    expect(callUsage(undefined)).toEqual({ ...NO_USAGE, calls: 1 });
  });

  test('sums saturate at the largest safe integer instead of becoming unsafe', () => {
    const huge = { ...usage(Number.MAX_SAFE_INTEGER, 1), calls: Number.MAX_SAFE_INTEGER };
    const sum = addUsage(huge, huge);
    for (const kind of [...TOKEN_KINDS, 'calls'] as const) expect(Number.isSafeInteger(sum[kind])).toBe(true);
    expect(sum.inputTokens).toBe(Number.MAX_SAFE_INTEGER);
  });

  test('cost: uncached input, cache reads, cache writes and output each at their price per million; the cache at the input price when unpriced', () => {
    const totals = usage(1_000_000, 200_000, { cacheReadTokens: 600_000, cacheWriteTokens: 100_000, reasoningTokens: 50_000 });
    // 300k uncached input at $3, 600k reads at $0.30, 100k writes at $3.75, 200k output (reasoning among them) at $15.
    expect(costUsd(totals, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 })).toBeCloseTo(0.9 + 0.18 + 0.375 + 3, 10);
    expect(costUsd(totals, { input: 3, output: 15 })).toBeCloseTo(3 + 3, 10);
    expect(costUsd(NO_USAGE, { input: 3, output: 15 })).toBe(0);
  });
});

describe('the price table as a deployment writes it', () => {
  test('name=input/output[/cacheRead[/cacheWrite]], model names with colons, commas or spaces between entries', () => {
    expect(parsePriceTable('anthropic:claude-sonnet-4-5=3/15/0.3/3.75, ollama:qwen3:8b=0/0 openai:gpt-5.1=1.25/10/0.125')).toEqual({
      'anthropic:claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      'ollama:qwen3:8b': { input: 0, output: 0 },
      'openai:gpt-5.1': { input: 1.25, output: 10, cacheRead: 0.125 },
    });
    expect(parsePriceTable('')).toBeUndefined();
    expect(parsePriceTable(undefined)).toBeUndefined();
  });

  test.each(['gpt=3', 'gpt=3/x', 'gpt=-1/2', 'gpt=1/2/3/4/5', '=1/2', 'gpt=1//2', 'gpt=99999/1', 'gpt'])('%j is refused with what to write', (text) => {
    expect(() => parsePriceTable(text)).toThrow(/name=input\/output\[\/cacheRead\[\/cacheWrite\]\]/);
  });

  test('a hostile model name is data: __proto__ becomes an own entry, and the list check refuses it', () => {
    const table = parsePriceTable('__proto__=1/2');
    expect(Object.getOwnPropertyNames(table)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(table)).toBe(Object.prototype);
    expect(() => parseDeploymentModels('openai:gpt-5.1', '__proto__=1/2')).toThrow(/not on AGENT_TEAMS_MODELS/);
  });

  test('prices go with the model list: only listed models, and never without a list', () => {
    expect(parseDeploymentModels('a:x, b:y', 'b:y=1/2')).toEqual({ allowed: ['a:x', 'b:y'], default: 'a:x', prices: { 'b:y': { input: 1, output: 2 } } });
    expect(() => parseDeploymentModels('', 'b:y=1/2')).toThrow(/set that list too/);
    expect(() => parseDeploymentModels('a:x', 'b:y=1/2')).toThrow(/"b:y", not on AGENT_TEAMS_MODELS/);
    expect(teamModelsSchema.safeParse({ allowed: ['a:x'], default: 'a:x', prices: { 'b:y': { input: 1, output: 2 } } }).success).toBe(false);
  });
});

describe('what the Lead keeps', () => {
  test("each of the Lead's calls counts once, in the turn it ran in", () => {
    let state = agent({ turns: 3 });
    state = applyLeadAgentAll(state, decideModelCall(state, { promptTokens: 10, completionTokens: 2 }));
    state = applyLeadAgentAll(state, decideModelCall(state, undefined));
    expect(state.usage?.total).toEqual({ ...usage(10, 2), calls: 2 });
    expect(state.usage?.lastTurn).toEqual({ turn: 3, usage: { ...usage(10, 2), calls: 2 } });
  });

  test("a member's report replaces its figures when it counts at least as many calls; an older or a non-member's report does not", () => {
    let state = withMember('mate', null);
    const report = (calls: number, input: number) => decideStatusReport(state, { name: 'mate', status: 'idle', usage: { ...usage(input, 1), calls } });
    for (const [calls, input] of [
      [2, 100],
      [1, 5],
      [3, 300],
    ] as const) {
      const decision = report(calls, input);
      if (decision.ok) state = applyLeadAll(state, decision.events, NOW);
    }
    expect(state.memberUsage).toEqual({ mate: { ...usage(300, 1), calls: 3 } });
    expect(decideStatusReport(state, { name: 'stranger', status: 'idle', usage: usage(1, 1) })).toEqual({ ok: false, ignored: 'nonMember' });
  });

  test("a subagent's usage comes with its answers, the newest replacing older ones, and stays counted when the subagent is forgotten", () => {
    let state = agent();
    const open = decideOpenSubagent(state, 't', { models: undefined, requested: 'a:small', inherited: 'a:big' });
    if (!open.ok) throw new Error(open.rejection.message);
    state = applyLeadAgentAll(state, open.events);
    const [agentId] = Object.keys(state.subagents);
    const answer = (turn: number, calls: number) =>
      decideSubagentAnswer(state, { agentId: agentId ?? '', turn, answer: 'ok', usage: { ...usage(calls * 10, 1), calls } });
    for (const [turn, calls] of [
      [1, 2],
      [1, 2],
      [2, 5],
    ] as const) {
      const decision = answer(turn, calls);
      if (decision.ok) state = applyLeadAgentAll(state, decision.events);
    }
    const record = state.subagents[agentId ?? ''];
    expect(record).toMatchObject({ model: 'a:small', usage: { calls: 5, inputTokens: 50 } });
    expect(record?.answers.map((a) => a.turn)).toEqual([1, 2]);
    expect(record?.answers[0]).not.toHaveProperty('usage');
    // Close it and open MAX_SUBAGENTS more: the first is forgotten, its usage is not.
    state = { ...state, subagents: { ...state.subagents, [agentId ?? '']: { ...record!, closed: true } } };
    for (let i = 0; i < MAX_SUBAGENTS; i++) {
      const next = decideOpenSubagent(state, 't');
      if (!next.ok) throw new Error(next.rejection.message);
      state = applyLeadAgentAll(state, next.events);
    }
    expect(state.subagents).not.toHaveProperty(agentId ?? '');
    expect(state.forgottenSubagents).toEqual({ usage: { ...usage(50, 1), calls: 5 } });
  });
});

describe("the Team's usage view", () => {
  test('rows for the Lead, each teammate and each subagent, a total, and the cost of the priced ones; unpriced spend is named', () => {
    let state = withMember('mate', 'b:cheap');
    const decision = decideStatusReport(state, { name: 'mate', status: 'idle', usage: usage(2_000_000, 100_000) });
    if (decision.ok) state = applyLeadAll(state, decision.events, NOW);
    const lead = agent({
      usage: { total: usage(1_000_000, 0), lastTurn: null },
      subagents: { 't/subagent/1': { workflowId: 't/subagent/1', answers: [], closed: true, model: 'c:unpriced', usage: usage(10, 10) } },
      forgottenSubagents: { usage: usage(0, 0) },
    });
    const view = teamUsageView({ state, agent: lead, leadModel: 'a:big', prices: { 'a:big': { input: 3, output: 15 }, 'b:cheap': { input: 0.5, output: 1 } } });
    expect(view.members.map((m) => [m.name, m.role, m.model, m.total.inputTokens, m.costUsd])).toEqual([
      [LEAD, 'lead', 'a:big', 1_000_000, 3],
      ['mate', 'teammate', 'b:cheap', 2_000_000, 1.1],
      ['t/subagent/1', 'subagent', 'c:unpriced', 10, null],
      [FORGOTTEN_SUBAGENTS, 'subagent', null, 0, null],
    ]);
    expect(view.total).toEqual({ ...usage(3_000_010, 100_010), calls: 4 });
    expect(view.costUsd).toBeCloseTo(4.1, 10);
    expect(view.unpriced).toEqual(['t/subagent/1']);
  });

  test('without a price table: tokens only, no cost', () => {
    const view = teamUsageView({ state: emptyLeadState('t', 8), agent: agent(), leadModel: null, prices: undefined });
    expect(view).toEqual({
      members: [{ name: LEAD, role: 'lead', model: null, total: NO_USAGE, costUsd: null }],
      total: NO_USAGE,
      costUsd: null,
      unpriced: [],
    });
  });
});
