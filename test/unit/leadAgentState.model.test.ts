/**
 * Model-based tests of the Lead agent's state: random sequences of its commands (status, turn
 * bookkeeping, nudges, the working directory, subagents) run through the decide functions and
 * `applyLeadAgent` (shared/lead/agentDecide.ts, agentApply.ts), and through a model much simpler
 * than the code: plain fields, and the subagents as a list of (id, closed, answer turns).
 *
 * After every step: the outcome the model predicts (events or no events, which rejection), the
 * model's projection of the state, and invariants that need no model (purity of apply and of
 * rejected commands, the carried wire shape, the conversation changed only by its events, the
 * bounds on subagents and their answers).
 */
import assert from 'node:assert';
import fc from 'fast-check';
import type { AgentStatus, ConversationEntry, SubagentAnswer, InboxMessage } from '../../shared/contract';
import type { CarriedLeadAgent } from '../../shared/lead/carried';
import type { LeadAgentEvent, LeadAgentRejectionType } from '../../shared/lead';
import {
  applyLeadAgentAll,
  decideAnswer,
  decideAppend,
  decideBeginTurn,
  decideCloseSubagent,
  decideCwd,
  decideNudge,
  decideOpenSubagent,
  decideResume,
  decideStartTurn,
  decideStatus,
  decideSubagentAnswer,
  decideTake,
  decideTurnFailed,
  decideYield,
  findOpenSubagent,
} from '../../shared/lead';
import { MAX_SUBAGENTS, SUBAGENT_ANSWERS_KEPT as ANSWERS_KEPT, SUBAGENT_ANSWER_MAX_BYTES as ANSWER_MAX_BYTES } from '../../shared/contract/limits';
import { TEAM_ID, assertModelRuns, deepFreeze } from './support/arbitraries';
import { LEAD } from '../../shared/contract';

const STATUSES: AgentStatus[] = ['running', 'waiting', 'idle', 'answered', 'failed'];
const CARRIED_KEYS = new Set([
  'subagents',
  'nextSubagent',
  'conversation',
  'turns',
  'cwd',
  'status',
  'finalAnswer',
  'openTasksAtAnswer',
  'nudges',
  'lastError',
  'resumeTurn',
]);
const MISSING_IDS = [`${TEAM_ID}/subagent/999`, '__proto__', 'constructor', ''];

// ---- the model ---------------------------------------------------------------------------------

interface ModelSubagent {
  id: string;
  closed: boolean;
  /** Answers kept, oldest first: the turn and the text as given (null for a long one: checked by its bounds). */
  answers: { turn: number; text: string | null; long: boolean }[];
}

interface Model {
  status: AgentStatus;
  turns: number;
  nudges: number;
  lastError: string | null;
  resume: { turn: number; step: number } | null;
  finalAnswer: string | null;
  openTasks: number[];
  cwd: string;
  next: number;
  subagents: ModelSubagent[];
  /** Every id ever opened, forgotten ones included, so commands can name them. */
  everOpened: string[];
  /** What the conversation's tail says: the last assistant reply, or null. */
  lastReply: string | null;
  /** The conversation as the model appends it. */
  conversation: ConversationEntry[];
}

interface Real {
  state: CarriedLeadAgent;
}

type Target = { pick: number } | { missing: number };
type Sender = 'lead' | 'operator' | 'alice';

type Spec =
  | { kind: 'status'; status: AgentStatus }
  | { kind: 'beginTurn'; senders: Sender[] }
  | { kind: 'take'; senders: Sender[] }
  | { kind: 'startTurn' }
  | { kind: 'yield'; turn: number; step: number }
  | { kind: 'resume' }
  | { kind: 'fail'; message: string }
  | { kind: 'nudge'; counts: boolean }
  | { kind: 'answer'; openTasks: number[] }
  | { kind: 'loopAppends'; reply: string | null }
  | { kind: 'cwd'; cwd: string }
  | { kind: 'open' }
  | { kind: 'subagentAnswer'; target: Target; turn: number; answer: 'short' | 'long' | 'null' }
  | { kind: 'close'; target: Target }
  | { kind: 'find'; target: Target };

const seen = new Map<string, number>();
const bump = (key: string): void => void seen.set(key, (seen.get(key) ?? 0) + 1);

function targetId(m: Model, target: Target): string {
  if ('missing' in target) return MISSING_IDS[target.missing % MISSING_IDS.length] as string;
  return m.everOpened.length === 0 ? (MISSING_IDS[0] as string) : (m.everOpened[target.pick % m.everOpened.length] as string);
}

function messages(senders: readonly Sender[], turn: number): InboxMessage[] {
  return senders.map((from, i) => ({
    messageId: `m-${turn}-${i}`,
    from: from === 'lead' ? LEAD : from === 'operator' ? 'user' : from,
    content: 'hi',
    sentAt: 'T',
  }));
}

function longAnswer(): string {
  return 'é'.repeat(ANSWER_MAX_BYTES); // 2 bytes each: twice the limit
}

// ---- the step ----------------------------------------------------------------------------------

type Outcome = { events: LeadAgentEvent[] } | { rejected: LeadAgentRejectionType } | { ignored: 'unknownKey' };

class Step implements fc.Command<Model, Real> {
  constructor(readonly spec: Spec) {}
  check(): boolean {
    return true;
  }

  run(m: Model, r: Real): void {
    const before = r.state;
    const snapshot = JSON.stringify(before);
    const spec = this.spec;
    const outcome = this.decide(m, before);
    assert.strictEqual(JSON.stringify(before), snapshot, 'a decide function changed the state');
    bump(
      'events' in outcome
        ? `${spec.kind}:${outcome.events.map((e) => e.type).join('+') || 'none'}`
        : 'rejected' in outcome
          ? outcome.rejected
          : outcome.ignored,
    );

    if ('events' in outcome) {
      const after = applyLeadAgentAll(before, outcome.events);
      assert.strictEqual(JSON.stringify(before), snapshot, 'apply changed the state it was given');
      if (outcome.events.length === 0) assert.strictEqual(after, before, 'no events, yet a new value');
      r.state = deepFreeze(after);
    }
    this.model(m, r, outcome);
    assertInvariants(r);
    assertMatchesModel(m, r.state);
  }

  /** The command through its decide function (and, for the loop's own appends, the conversation). */
  private decide(m: Model, s: CarriedLeadAgent): Outcome {
    const spec = this.spec;
    switch (spec.kind) {
      case 'status':
        return { events: decideStatus(s, spec.status) };
      case 'beginTurn': {
        // The workflow's beginTurn: the turn, then its opening messages as user entries (agentState.ts).
        const events = decideBeginTurn(s, messages(spec.senders, s.turns + 1));
        const begun = applyLeadAgentAll(s, events);
        return { events: [...events, ...decideAppend(begun, ...messages(spec.senders, begun.turns).map((msg) => userEntry(msg, begun.turns)))] };
      }
      case 'take':
        return { events: decideTake(s, messages(spec.senders, s.turns)) };
      case 'startTurn':
        return { events: decideStartTurn(s) };
      case 'yield':
        return { events: decideYield(s, spec.turn, spec.step) };
      case 'resume':
        return { events: decideResume(s) };
      case 'fail':
        return { events: decideTurnFailed(s, spec.message) };
      case 'nudge':
        return { events: decideNudge(s, spec.counts) };
      case 'answer':
        return { events: decideAnswer(s, spec.openTasks) };
      case 'loopAppends':
        return { events: decideAppend(s, loopEntry(spec.reply, s.turns)) };
      case 'cwd':
        return { events: decideCwd(s, spec.cwd) };
      case 'open': {
        const d = decideOpenSubagent(s, TEAM_ID);
        return d.ok ? { events: d.events } : { rejected: d.rejection.type };
      }
      case 'subagentAnswer': {
        const agentId = targetId(m, spec.target);
        const text = spec.answer === 'null' ? null : spec.answer === 'long' ? longAnswer() : `answer ${spec.turn}`;
        const answer: SubagentAnswer = { agentId, turn: spec.turn, answer: text };
        const d = decideSubagentAnswer(s, answer);
        return d.ok ? { events: d.events } : { ignored: d.ignored };
      }
      case 'close': {
        const d = decideCloseSubagent(s, targetId(m, spec.target));
        return d.ok ? { events: d.events } : { rejected: d.rejection.type };
      }
      case 'find': {
        const d = findOpenSubagent(s, targetId(m, spec.target));
        if (d.ok) assert.strictEqual(d.record, s.subagents[targetId(m, spec.target)]);
        return d.ok ? { events: [] } : { rejected: d.rejection.type };
      }
    }
  }

  /** The model's step, checking the outcome it predicts. Effects on the conversation happen here, as the workflow does them. */
  private model(m: Model, r: Real, outcome: Outcome): void {
    const spec = this.spec;
    const events = 'events' in outcome ? outcome.events : null;
    const resetsNudges = (senders: Sender[]): boolean => senders.some((s) => s !== 'lead');
    switch (spec.kind) {
      case 'status':
        assert.strictEqual(events?.length, m.status === spec.status ? 0 : 1);
        m.status = spec.status;
        return;
      case 'beginTurn':
        m.turns += 1;
        if (resetsNudges(spec.senders)) m.nudges = 0;
        for (const msg of messages(spec.senders, m.turns))
          m.conversation.push({ role: 'user', messageId: msg.messageId, from: msg.from, content: msg.content, turn: m.turns });
        if (spec.senders.length > 0) m.lastReply = null;
        return;
      case 'take':
        if (resetsNudges(spec.senders)) m.nudges = 0;
        return;
      case 'startTurn':
        m.lastError = null;
        return;
      case 'yield':
        m.resume = { turn: spec.turn, step: spec.step };
        return;
      case 'resume':
        m.resume = null;
        return;
      case 'fail':
        m.lastError = spec.message;
        return;
      case 'nudge':
        if (spec.counts) m.nudges += 1;
        return;
      case 'answer':
        m.finalAnswer = m.lastReply;
        m.openTasks = [...spec.openTasks];
        return;
      case 'loopAppends':
        assert.strictEqual(events?.length, 1);
        m.conversation.push(
          spec.reply === null
            ? { role: 'tool', toolCallId: 'c', toolName: 'bash', ok: true, content: 'ok', turn: m.turns }
            : { role: 'assistant', content: spec.reply, turn: m.turns },
        );
        m.lastReply = spec.reply;
        return;
      case 'cwd':
        m.cwd = spec.cwd;
        return;
      case 'open': {
        if (m.subagents.length >= MAX_SUBAGENTS) {
          const closed = m.subagents.filter((s) => s.closed);
          if (closed.length === 0) {
            assert.deepStrictEqual(outcome, { rejected: 'TooManySubagents' });
            return;
          }
          const forget = new Set(closed.slice(0, m.subagents.length - MAX_SUBAGENTS + 1).map((s) => s.id));
          m.subagents = m.subagents.filter((s) => !forget.has(s.id));
          bump('pruned');
        }
        assert.ok(events, `expected an open, got ${JSON.stringify(outcome)}`);
        m.next += 1;
        const id = `${TEAM_ID}/subagent/${m.next}`;
        m.subagents.push({ id, closed: false, answers: [] });
        m.everOpened.push(id);
        return;
      }
      case 'subagentAnswer': {
        const sub = m.subagents.find((s) => s.id === targetId(m, spec.target));
        if (!sub) {
          assert.deepStrictEqual(outcome, { ignored: 'unknownKey' });
          return;
        }
        assert.ok(events);
        if (sub.answers.some((a) => a.turn === spec.turn)) {
          assert.strictEqual(events.length, 0, 'a turn answered twice');
          return;
        }
        const text = spec.answer === 'null' ? null : spec.answer === 'long' ? null : `answer ${spec.turn}`;
        sub.answers = [...sub.answers, { turn: spec.turn, text, long: spec.answer === 'long' }].slice(-ANSWERS_KEPT);
        return;
      }
      case 'close': {
        const sub = m.subagents.find((s) => s.id === targetId(m, spec.target));
        if (!sub || sub.closed) {
          assert.deepStrictEqual(outcome, { rejected: 'UnknownAgent' });
          return;
        }
        assert.ok(events);
        sub.closed = true;
        return;
      }
      case 'find': {
        const sub = m.subagents.find((s) => s.id === targetId(m, spec.target));
        assert.deepStrictEqual(outcome, sub && !sub.closed ? { events: [] } : { rejected: 'UnknownAgent' });
        return;
      }
    }
  }

  toString(): string {
    return JSON.stringify(this.spec);
  }
}

function userEntry(msg: InboxMessage, turn: number): ConversationEntry {
  return { role: 'user', messageId: msg.messageId, from: msg.from, content: msg.content, turn };
}

/** What the agent loop appends: a tool result, or an assistant reply. */
function loopEntry(reply: string | null, turn: number): ConversationEntry {
  return reply === null ? { role: 'tool', toolCallId: 'c', toolName: 'bash', ok: true, content: 'ok', turn } : { role: 'assistant', content: reply, turn };
}

function assertInvariants(r: Real): void {
  const s = r.state;
  // The carried wire shape: only the carried keys, none of them undefined, and JSON as it is.
  for (const [key, value] of Object.entries(s)) {
    assert.ok(CARRIED_KEYS.has(key), `unexpected key ${key}`);
    assert.notStrictEqual(value, undefined, `${key} is undefined`);
  }
  assert.deepStrictEqual(JSON.parse(JSON.stringify(s)), s);
  const ids = Object.keys(s.subagents);
  assert.ok(ids.length <= MAX_SUBAGENTS, `${ids.length} subagents`);
  const numbers = ids.map((id) => Number(id.slice(`${TEAM_ID}/subagent/`.length)));
  assert.ok(numbers.every((n) => Number.isInteger(n) && n >= 1 && n <= s.nextSubagent));
  assert.deepStrictEqual(
    numbers,
    [...numbers].sort((a, b) => a - b),
    'subagents out of opening order',
  );
  for (const [id, record] of Object.entries(s.subagents)) {
    assert.strictEqual(record.workflowId, id);
    assert.ok(record.answers.length <= ANSWERS_KEPT);
    assert.strictEqual(new Set(record.answers.map((a) => a.turn)).size, record.answers.length, 'a turn kept twice');
    for (const a of record.answers) {
      assert.strictEqual(a.agentId, id);
      if (a.answer !== null) assert.ok(Buffer.byteLength(a.answer, 'utf8') <= ANSWER_MAX_BYTES, 'an answer over its limit');
    }
  }
}

function assertMatchesModel(m: Model, s: CarriedLeadAgent): void {
  assert.strictEqual(s.status, m.status);
  assert.strictEqual(s.turns, m.turns);
  assert.deepStrictEqual(s.conversation, m.conversation, 'the conversation changed other than by its events');
  assert.strictEqual(s.nudges, m.nudges);
  if (m.lastError === null) assert.strictEqual(s.lastError ?? null, null);
  else assert.ok(s.lastError?.startsWith(`${m.lastError}; `), `lastError ${s.lastError} for ${m.lastError}`);
  assert.deepStrictEqual(s.resumeTurn ?? null, m.resume);
  assert.strictEqual(s.finalAnswer, m.finalAnswer);
  assert.deepStrictEqual(s.openTasksAtAnswer, m.openTasks);
  assert.strictEqual(s.cwd, m.cwd);
  assert.strictEqual(s.nextSubagent, m.next);
  assert.deepStrictEqual(
    Object.values(s.subagents).map((r) => ({ id: r.workflowId, closed: r.closed, turns: r.answers.map((a) => a.turn) })),
    m.subagents.map((sub) => ({ id: sub.id, closed: sub.closed, turns: sub.answers.map((a) => a.turn) })),
  );
  for (const sub of m.subagents) {
    const kept = s.subagents[sub.id]?.answers ?? [];
    sub.answers.forEach((a, i) => {
      const real = kept[i]?.answer;
      if (a.long) assert.ok(typeof real === 'string' && real.startsWith('é') && real.includes('[cut '), 'a long answer not cut with a note');
      else assert.strictEqual(real, a.text);
    });
  }
}

// ---- generators --------------------------------------------------------------------------------

const targetArb: fc.Arbitrary<Target> = fc.oneof(
  { weight: 8, arbitrary: fc.nat(40).map<Target>((pick) => ({ pick })) },
  { weight: 1, arbitrary: fc.nat(3).map<Target>((missing) => ({ missing })) },
);
const sendersArb = fc.array(fc.constantFrom<Sender>('lead', 'lead', 'operator', 'alice'), { maxLength: 3 });

const specArb: fc.Arbitrary<Spec> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...STATUSES).map<Spec>((status) => ({ kind: 'status', status })) },
  { weight: 2, arbitrary: sendersArb.map<Spec>((senders) => ({ kind: 'beginTurn', senders })) },
  { weight: 1, arbitrary: sendersArb.map<Spec>((senders) => ({ kind: 'take', senders })) },
  { weight: 1, arbitrary: fc.constant<Spec>({ kind: 'startTurn' }) },
  { weight: 1, arbitrary: fc.record({ turn: fc.nat(20), step: fc.nat(40) }).map<Spec>((y) => ({ kind: 'yield', ...y })) },
  { weight: 1, arbitrary: fc.constant<Spec>({ kind: 'resume' }) },
  { weight: 1, arbitrary: fc.constantFrom('model down', 'quota', '').map<Spec>((message) => ({ kind: 'fail', message })) },
  { weight: 2, arbitrary: fc.boolean().map<Spec>((counts) => ({ kind: 'nudge', counts })) },
  { weight: 1, arbitrary: fc.array(fc.nat(9), { maxLength: 3 }).map<Spec>((openTasks) => ({ kind: 'answer', openTasks })) },
  { weight: 2, arbitrary: fc.option(fc.constantFrom('done', 'all tasks finished'), { nil: null }).map<Spec>((reply) => ({ kind: 'loopAppends', reply })) },
  { weight: 1, arbitrary: fc.constantFrom('.', 'src', 'src/api', '..').map<Spec>((cwd) => ({ kind: 'cwd', cwd })) },
  { weight: 8, arbitrary: fc.constant<Spec>({ kind: 'open' }) },
  {
    weight: 4,
    arbitrary: fc
      .record({ target: targetArb, turn: fc.nat(4), answer: fc.constantFrom<'short' | 'long' | 'null'>('short', 'short', 'long', 'null') })
      .map<Spec>((a) => ({ kind: 'subagentAnswer', ...a })),
  },
  { weight: 3, arbitrary: targetArb.map<Spec>((target) => ({ kind: 'close', target })) },
  { weight: 1, arbitrary: targetArb.map<Spec>((target) => ({ kind: 'find', target })) },
);

const commandsArb = fc.commands<Model, Real>([specArb.map<fc.Command<Model, Real>>((spec) => new Step(spec))], { maxCommands: 120, size: 'max' });

/** A new Lead's state, or one a run of an earlier version carried (no lastError, a turn to resume). */
function setup(legacy: boolean): () => { model: Model; real: Real } {
  return () => {
    const conversation: ConversationEntry[] = [];
    const fresh: CarriedLeadAgent = {
      conversation,
      turns: 0,
      cwd: '.',
      status: 'idle',
      finalAnswer: null,
      openTasksAtAnswer: [],
      nudges: 0,
      lastError: null,
      subagents: {},
      nextSubagent: 0,
    };
    const { lastError: _dropped, ...old } = { ...fresh, turns: 3, status: 'running' as const, nudges: 1, resumeTurn: { turn: 3, step: 2 } };
    const state = legacy ? old : fresh;
    return {
      model: {
        status: state.status,
        turns: state.turns,
        nudges: state.nudges,
        lastError: null,
        resume: state.resumeTurn ?? null,
        finalAnswer: null,
        openTasks: [],
        cwd: '.',
        next: 0,
        subagents: [],
        everOpened: [],
        lastReply: null,
        conversation: [],
      },
      real: { state: deepFreeze(state) },
    };
  };
}

describe('Lead agent state against a model', () => {
  it('random command sequences keep every rule, from a new state and from an old carried one', () => {
    assertModelRuns(commandsArb, setup, 300, seen, [
      'TooManySubagents',
      'UnknownAgent',
      'unknownKey',
      'pruned',
      'open:subagentsPruned+subagentOpened',
      'open:subagentOpened',
      'subagentAnswer:subagentAnswered',
      'subagentAnswer:none',
      'close:subagentClosed',
      'status:none',
      'status:statusChanged',
      'beginTurn:turnBegan+nudgesReset+conversationAppended',
      'beginTurn:turnBegan+conversationAppended',
      'beginTurn:turnBegan',
      'loopAppends:conversationAppended',
      'take:nudgesReset',
      'resume:turnResumed',
      'resume:none',
      'nudge:nudgeCounted',
      'cwd:cwdChanged',
      'cwd:none',
    ]);
  });

  it('events are plain data: each survives JSON as it is', () => {
    const state = setup(false)().real.state;
    const events: LeadAgentEvent[] = [
      ...decideStatus(state, 'running'),
      ...decideBeginTurn(state, messages(['alice'], 1)),
      ...decideStartTurn(state),
      ...decideYield(state, 1, 2),
      ...decideTurnFailed(state, 'x'),
      ...decideNudge(state, true),
      ...decideAnswer(state, [1]),
      ...decideCwd(state, 'src'),
      ...decideAppend(state, loopEntry('done', 1)),
    ];
    const opened = decideOpenSubagent(state, TEAM_ID);
    assert.ok(opened.ok);
    for (const event of [...events, ...opened.events]) expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  });
});
