/**
 * Model-based tests of a session's state (a teammate's or an ordinary subagent's): random
 * sequences of its commands (deliveries, signals, turns begun, steered, interrupted and ended, the
 * agent loop's entries, model calls, the Lead's budget and answers, reports, waits) run through the
 * decide functions and `applySession` (shared/session/decide.ts, apply.ts) the way
 * workflows/session/ wires them, and through a model much simpler than the code: plain counters,
 * the inbox as a list of messages and the conversation as a list of short strings.
 *
 * After every step: the outcome the model predicts (recorded, duplicate, rejected; applied or
 * ignored), the model's projection of the state (inbox counts, settled counts, turns, interrupted
 * turns, spend totals, status), and invariants that need no model (purity of decide and apply,
 * the carried wire shape, each recorded message in exactly one place).
 */
import assert from 'node:assert';
import fc from 'fast-check';
import type { ConversationEntry, InboxMessage } from '../../shared/contract';
import type { BudgetExhaustion, BudgetLimits } from '../../shared/contract/budgets';
import type { IgnoredSignals } from '../../shared/contract/signals';
import type { TeammateRunInput } from '../../shared/session/carried';
import { MEMBER_INBOX_MAX_BYTES, jsonBytes } from '../../shared/contract/limits';
import {
  MAX_SIGNALS_PER_RUN,
  applySessionAll,
  carrySession,
  checkInTurn,
  decideAppend,
  decideBeginTurn,
  decideCwd,
  decideDelivery,
  decideEdgeNotification,
  decideEndTurn,
  decideExit,
  decideIgnored,
  decideInterrupt,
  decideModelCall,
  decideModelCallAnswer,
  decideReport,
  decideSetBudget,
  decideSignal,
  decideStepTake,
  decideTakeAnswer,
  decideWaitBegan,
  decideWaitEnded,
  hasAnswerForNextCall,
  hasPending,
  hasUnreportedSettlements,
  hasUnreportedStop,
  initialSessionState,
  mustRollOver,
  sessionView,
  stopBeforeTurn,
  type SessionEvent,
  type SessionSignalDecision,
  type SessionState,
} from '../../shared/session';
import { TEAM_ID, assertModelRuns, deepFreeze } from './support/arbitraries';

const MAX_TURNS_PER_RUN = 6;
const CARRIED_KEYS = new Set([
  'inbox',
  'conversation',
  'turns',
  'interruptedTurns',
  'continuedRuns',
  'cwd',
  'settled',
  'usage',
  'exhaustionReported',
  'budget',
  'teamStop',
]);
const EDGE = { seq: 1, kind: 'status' as const, subject: 'bob', at: 'T' };
const DESCRIPTOR = { teamId: TEAM_ID, name: 'alice', context: 'fresh' as const, initialMessageId: `${TEAM_ID}/teammate/alice/initial` };
const TEAM_STOP: BudgetExhaustion = { type: 'BudgetExhausted', budget: 'calls', used: 9, limit: 9, scope: 'team' };

// ---- the model ---------------------------------------------------------------------------------

interface Model {
  pending: InboxMessage[];
  seen: Set<string>;
  received: number;
  consumed: number;
  pendingBytes: number;
  settled: number;
  reportedSettled: number;
  turns: number;
  turnsThisRun: number;
  interruptedTurns: number;
  status: 'idle' | 'running' | 'exited';
  interruptRequested: boolean;
  conversation: string[];
  lastTake: InboxMessage[];
  clock: number;
  calls: number;
  inputTokens: number;
  activeMs: number;
  turnStartedAt: number | null;
  limits: BudgetLimits | null;
  exhaustionReported: boolean;
  teamStop: boolean;
  teamAnswer: { calls: number; refused: boolean } | null;
  ignored: IgnoredSignals;
  signals: number;
  rejected: number;
  waitId: string | null;
  edge: boolean;
  cwd: string;
}

interface Real {
  state: SessionState;
}

type Delivery = 'ok' | 'big' | 'malformed' | 'notAnObject';
type Spec =
  | { kind: 'deliver'; id: number; delivery: Delivery; relayed: boolean }
  | { kind: 'unknownSignal' }
  | { kind: 'beginTurn'; dt: number }
  | { kind: 'stepTake' }
  | { kind: 'loopAppends'; reply: boolean }
  | { kind: 'modelCall'; tokens: number | null }
  | { kind: 'interrupt'; scope: boolean }
  | { kind: 'endTurn'; outcome: 'completed' | 'interrupted' | 'failed'; dt: number }
  | { kind: 'report' }
  | { kind: 'setBudget'; limits: BudgetLimits }
  | { kind: 'answer'; delta: number; refused: boolean; asks: boolean }
  | { kind: 'takeAnswer' }
  | { kind: 'waitBegan'; waitId: string }
  | { kind: 'notify'; waitId: string }
  | { kind: 'waitEnded' }
  | { kind: 'cwd'; cwd: string }
  | { kind: 'exit' };

type Outcome = { events: SessionEvent[] } | { ignored: keyof IgnoredSignals };

const seen = new Map<string, number>();
const bump = (key: string): void => void seen.set(key, (seen.get(key) ?? 0) + 1);

function message(id: number, delivery: Delivery, relayed: boolean, seq: number): unknown {
  if (delivery === 'notAnObject') return 'hi';
  const relay = relayed ? { relaySeq: seq } : {};
  if (delivery === 'malformed') return { messageId: `m${id}`, content: 'no sender', sentAt: 'T', ...relay };
  return { messageId: `m${id}`, from: 'lead', content: delivery === 'big' ? 'x'.repeat(120_000) : `hi ${id}`, sentAt: 'T', ...relay };
}

const userEntry = (m: InboxMessage, turn: number): string => `user:${m.messageId}@${turn}`;

function project(entry: ConversationEntry): string {
  if (entry.role === 'user') return `user:${entry.messageId}@${entry.turn}`;
  if (entry.role === 'system') return `system:${(entry.content as { event: string }).event}@${entry.turn}`;
  return `${entry.role}@${entry.turn}`;
}

/** Whether the model's budget stops a new turn (calls and turns limits, or the Team's stop). */
function modelStop(m: Model, turnsBegun: number | null): boolean {
  const l = m.limits;
  const own = l !== null && ((l.calls !== undefined && m.calls >= l.calls) || (l.turns !== undefined && turnsBegun !== null && turnsBegun >= l.turns));
  return own || (turnsBegun !== null && m.teamStop);
}

// ---- the step ----------------------------------------------------------------------------------

class Step implements fc.Command<Model, Real> {
  constructor(readonly spec: Spec) {}
  check(): boolean {
    return true;
  }

  run(m: Model, r: Real): void {
    const before = r.state;
    const snapshot = JSON.stringify(before);
    const outcome = this.decide(m, r);
    assert.strictEqual(JSON.stringify(before), snapshot, 'a decide function changed the state');
    bump(`${this.spec.kind}:${'events' in outcome ? outcome.events.map((e) => e.type).join('+') || 'none' : outcome.ignored}`);
    if ('events' in outcome) {
      const after = applySessionAll(before, outcome.events);
      assert.strictEqual(JSON.stringify(before), snapshot, 'apply changed the state it was given');
      if (outcome.events.length === 0) assert.strictEqual(after, before, 'no events, yet a new value');
      r.state = deepFreeze(after);
    } else {
      // The signal guard counts it, then counts it ignored (workflows/common/handlerGuards.ts).
      r.state = deepFreeze(applySessionAll(before, [...decideSignal(before), ...decideIgnored(before, outcome.ignored)]));
    }
    this.model(m, outcome);
    assertInvariants(r.state);
    assertMatchesModel(m, r.state);
  }

  /** The command through its decide function, as workflows/session/ calls it. */
  private decide(m: Model, r: Real): Outcome {
    const spec = this.spec;
    const s = r.state;
    const signal = (decide: (s: SessionState) => SessionSignalDecision): Outcome => {
      // The signal guard counts every signal first (workflows/common/handlerGuards.ts).
      const counted = applySessionAll(s, decideSignal(s));
      const d = decide(counted);
      return d.ok ? { events: [...decideSignal(s), ...d.events] } : { ignored: d.ignored };
    };
    switch (spec.kind) {
      case 'deliver': {
        const d = decideDelivery(s, message(spec.id, spec.delivery, spec.relayed, m.signals + 2));
        bump(`delivery:${d.outcome}`);
        this.expectDelivery(m, spec, d.outcome);
        return { events: [...decideSignal(s), ...d.events] };
      }
      case 'unknownSignal':
        return { ignored: 'unknownSignal' };
      case 'beginTurn':
        return { events: decideBeginTurn(s, m.clock + spec.dt) };
      case 'stepTake':
        return { events: decideStepTake(s) };
      case 'loopAppends':
        return {
          events: decideAppend(
            s,
            spec.reply
              ? { role: 'assistant', content: 'done', turn: s.turns }
              : { role: 'tool', toolCallId: 'c', toolName: 'bash', ok: true, content: 'ok', turn: s.turns },
          ),
        };
      case 'modelCall':
        return { events: decideModelCall(s, spec.tokens === null ? undefined : { promptTokens: spec.tokens, completionTokens: 1 }) };
      case 'interrupt':
        return signal((c) => decideInterrupt(c, spec.scope));
      case 'endTurn': {
        const outcome =
          spec.outcome === 'completed' ? { completed: true as const } : spec.outcome === 'interrupted' ? { interrupted: true as const } : { failed: 'boom' };
        return { events: decideEndTurn(s, outcome, m.clock + spec.dt) };
      }
      case 'report': {
        const { events, stop } = decideReport(s);
        assert.strictEqual(stop !== undefined, !m.exhaustionReported && modelStop(m, m.turns), 'the report carries a stop iff one is untold');
        return { events };
      }
      case 'setBudget':
        return signal((c) => decideSetBudget(c, { limits: spec.limits }));
      case 'answer': {
        const calls = Math.max(0, m.calls + spec.delta);
        return signal((c) => decideModelCallAnswer(c, { calls, exhaustion: spec.refused ? TEAM_STOP : null }, spec.asks));
      }
      case 'takeAnswer': {
        const { events, exhaustion } = decideTakeAnswer(s);
        const next = m.teamAnswer !== null && m.teamAnswer.calls === m.calls ? m.teamAnswer : null;
        assert.deepStrictEqual(exhaustion, next?.refused ? TEAM_STOP : null);
        return { events };
      }
      case 'waitBegan':
        return { events: decideWaitBegan(s, spec.waitId) };
      case 'notify':
        return signal((c) => decideEdgeNotification(c, spec.waitId, EDGE));
      case 'waitEnded':
        return { events: decideWaitEnded(s) };
      case 'cwd':
        return { events: decideCwd(s, spec.cwd) };
      case 'exit':
        return { events: decideExit(s) };
    }
  }

  private expectDelivery(m: Model, spec: Extract<Spec, { kind: 'deliver' }>, outcome: string): void {
    const msg = message(spec.id, spec.delivery, spec.relayed, 0) as InboxMessage;
    const expected =
      spec.delivery === 'malformed' ||
      spec.delivery === 'notAnObject' ||
      m.pendingBytes + jsonBytes(message(spec.id, spec.delivery, spec.relayed, m.signals + 2)) > MEMBER_INBOX_MAX_BYTES
        ? 'rejected'
        : m.seen.has(msg.messageId)
          ? 'duplicate'
          : 'recorded';
    assert.strictEqual(outcome, expected);
  }

  private expectIgnored(m: Model): keyof IgnoredSignals | null {
    const spec = this.spec;
    switch (spec.kind) {
      case 'unknownSignal':
        return 'unknownSignal';
      case 'interrupt':
        return spec.scope && m.status === 'running' ? null : 'unknownKey';
      case 'notify':
        return spec.waitId === m.waitId ? null : 'unknownKey';
      case 'answer':
        return spec.asks && Math.max(0, m.calls + spec.delta) >= m.calls ? null : 'unknownKey';
      default:
        return null;
    }
  }

  /** The model's step. */
  private model(m: Model, outcome: Outcome): void {
    const spec = this.spec;
    const take = (turn: number): InboxMessage[] => {
      const taken = m.pending;
      m.consumed += taken.length;
      m.settled += taken.filter((x) => x.relaySeq !== undefined).length;
      for (const x of taken) m.conversation.push(userEntry(x, turn));
      m.pending = [];
      m.pendingBytes = 0;
      return taken;
    };
    assert.strictEqual('ignored' in outcome ? outcome.ignored : null, this.expectIgnored(m), 'applied or ignored, not as the model says');
    if ('ignored' in outcome) {
      m.signals += 1;
      m.ignored[outcome.ignored] += 1;
      return;
    }
    switch (spec.kind) {
      case 'deliver': {
        m.signals += 1;
        const raw = message(spec.id, spec.delivery, spec.relayed, m.signals + 1);
        if (spec.delivery === 'malformed' || spec.delivery === 'notAnObject' || m.pendingBytes + jsonBytes(raw) > MEMBER_INBOX_MAX_BYTES) {
          m.rejected += 1;
          m.ignored.malformed += 1;
          if (spec.relayed && spec.delivery !== 'notAnObject') m.settled += 1;
        } else if (m.seen.has(`m${spec.id}`)) {
          if (spec.relayed) m.settled += 1;
        } else {
          m.seen.add(`m${spec.id}`);
          m.pending.push(raw as InboxMessage);
          m.received += 1;
          m.pendingBytes += jsonBytes(raw);
        }
        return;
      }
      case 'unknownSignal':
        return;
      case 'beginTurn':
        m.clock += spec.dt;
        m.turns += 1;
        m.turnsThisRun += 1;
        m.status = 'running';
        m.interruptRequested = false;
        m.lastTake = [];
        m.turnStartedAt = m.clock;
        take(m.turns);
        return;
      case 'stepTake':
        m.lastTake = take(m.turns);
        return;
      case 'loopAppends':
        m.conversation.push(spec.reply ? `assistant@${m.turns}` : `tool@${m.turns}`);
        return;
      case 'modelCall':
        m.calls += 1;
        m.inputTokens += spec.tokens ?? 0;
        return;
      case 'interrupt':
        m.signals += 1;
        m.interruptRequested = true;
        return;
      case 'endTurn': {
        m.clock += spec.dt;
        if (spec.outcome === 'interrupted') {
          const tail = m.conversation.slice(m.conversation.length - m.lastTake.length);
          const unanswered = m.lastTake.length > 0 && tail.join() === m.lastTake.map((x) => userEntry(x, m.turns)).join();
          if (unanswered) {
            bump('takeReturned');
            m.conversation.length -= m.lastTake.length;
            m.pending = [...m.lastTake, ...m.pending];
            m.consumed -= m.lastTake.length;
            m.settled -= m.lastTake.filter((x) => x.relaySeq !== undefined).length;
            m.pendingBytes = jsonBytes(m.pending);
          }
          m.interruptedTurns += 1;
          m.conversation.push(`system:turn interrupted by the Lead@${m.turns}`);
        } else if (spec.outcome === 'failed') m.conversation.push(`system:turn failed@${m.turns}`);
        m.status = 'idle';
        m.interruptRequested = false;
        m.lastTake = [];
        if (m.turnStartedAt !== null) m.activeMs += m.clock - m.turnStartedAt;
        m.turnStartedAt = null;
        return;
      }
      case 'report':
        m.reportedSettled = m.settled;
        if (!m.exhaustionReported && modelStop(m, m.turns)) m.exhaustionReported = true;
        return;
      case 'setBudget':
        m.signals += 1;
        m.limits = spec.limits;
        m.exhaustionReported = false;
        return;
      case 'answer':
        m.signals += 1;
        m.teamAnswer = { calls: Math.max(0, m.calls + spec.delta), refused: spec.refused };
        if (!spec.refused) m.teamStop = false;
        else if (!m.teamStop) {
          m.teamStop = true;
          m.exhaustionReported = false;
        }
        return;
      case 'takeAnswer':
        m.teamAnswer = null;
        return;
      case 'waitBegan':
        m.waitId = spec.waitId;
        m.edge = false;
        return;
      case 'notify':
        m.signals += 1;
        m.edge = true;
        return;
      case 'waitEnded':
        m.waitId = null;
        m.edge = false;
        return;
      case 'cwd':
        m.cwd = spec.cwd;
        return;
      case 'exit':
        m.status = 'exited';
        return;
    }
  }

  toString(): string {
    return JSON.stringify(this.spec);
  }
}

function assertInvariants(s: SessionState): void {
  // The carried wire shape: only the carried keys, none of them undefined, and JSON as it is.
  const carried = carrySession(s);
  for (const [key, value] of Object.entries(carried)) {
    assert.ok(CARRIED_KEYS.has(key), `unexpected carried key ${key}`);
    assert.notStrictEqual(value, undefined, `${key} is undefined`);
  }
  assert.deepStrictEqual(JSON.parse(JSON.stringify(carried)), carried);
  // Each recorded message is in exactly one place: pending, or a user entry of the conversation.
  const places = [...s.inbox.pending.map((x) => x.messageId), ...s.conversation.filter((e) => e.role === 'user').map((e) => e.messageId)];
  assert.strictEqual(new Set(places).size, places.length, `a message in two places: ${places.join()}`);
  assert.ok(s.inbox.consumed >= 0 && s.settled >= 0, 'a count below zero');
}

function assertMatchesModel(m: Model, s: SessionState): void {
  assert.deepStrictEqual(
    s.inbox.pending.map((x) => x.messageId),
    m.pending.map((x) => x.messageId),
  );
  assert.strictEqual(s.inbox.received, m.received);
  assert.strictEqual(s.inbox.consumed, m.consumed);
  assert.strictEqual(s.pendingBytes, m.pendingBytes);
  assert.strictEqual(hasPending(s), m.pending.length > 0);
  assert.strictEqual(s.settled, m.settled);
  assert.strictEqual(hasUnreportedSettlements(s), m.settled > m.reportedSettled);
  assert.strictEqual(s.turns, m.turns);
  assert.strictEqual(s.interruptedTurns, m.interruptedTurns);
  assert.strictEqual(s.status, m.status);
  assert.strictEqual(s.interruptRequested, m.interruptRequested);
  assert.deepStrictEqual(s.conversation.map(project), m.conversation);
  assert.strictEqual(s.spend.usage.total.calls, m.calls);
  assert.strictEqual(s.spend.usage.total.inputTokens, m.inputTokens);
  assert.strictEqual(s.spend.usage.activeMs ?? 0, m.activeMs);
  assert.strictEqual(stopBeforeTurn(s) !== null, modelStop(m, m.turns));
  assert.strictEqual(checkInTurn(s, m.clock) !== null, modelStop(m, null));
  assert.strictEqual(hasUnreportedStop(s), !m.exhaustionReported && modelStop(m, m.turns));
  assert.strictEqual(hasAnswerForNextCall(s), m.teamAnswer !== null && m.teamAnswer.calls === m.calls);
  assert.deepStrictEqual(s.ignored, m.ignored);
  assert.strictEqual(s.signalsThisRun, m.signals);
  assert.strictEqual(s.rejectedDeliveries.length, Math.min(m.rejected, 32));
  assert.strictEqual(mustRollOver(s, false), m.turnsThisRun >= MAX_TURNS_PER_RUN || m.signals >= MAX_SIGNALS_PER_RUN);
  assert.strictEqual(s.currentWaitId, m.waitId);
  assert.strictEqual(s.notifiedEdge !== null, m.edge);
  assert.strictEqual(s.cwd, m.cwd);
  const view = sessionView(s, DESCRIPTOR);
  assert.strictEqual(view.budgetStop !== undefined, modelStop(m, m.turns));
  assert.deepStrictEqual(view.ignoredSignals, m.ignored);
}

// ---- generators --------------------------------------------------------------------------------

const specArb: fc.Arbitrary<Spec> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record({ id: fc.nat(6), delivery: fc.constantFrom<Delivery>('ok', 'ok', 'ok', 'big', 'malformed', 'notAnObject'), relayed: fc.boolean() })
      .map<Spec>((d) => ({ kind: 'deliver', ...d })),
  },
  { weight: 1, arbitrary: fc.constant<Spec>({ kind: 'unknownSignal' }) },
  { weight: 3, arbitrary: fc.nat(50).map<Spec>((dt) => ({ kind: 'beginTurn', dt })) },
  { weight: 3, arbitrary: fc.constant<Spec>({ kind: 'stepTake' }) },
  { weight: 3, arbitrary: fc.boolean().map<Spec>((reply) => ({ kind: 'loopAppends', reply })) },
  { weight: 3, arbitrary: fc.option(fc.nat(1000), { nil: null }).map<Spec>((tokens) => ({ kind: 'modelCall', tokens })) },
  { weight: 2, arbitrary: fc.boolean().map<Spec>((scope) => ({ kind: 'interrupt', scope })) },
  {
    weight: 3,
    arbitrary: fc
      .record({ outcome: fc.constantFrom<'completed' | 'interrupted' | 'failed'>('completed', 'interrupted', 'interrupted', 'failed'), dt: fc.nat(5000) })
      .map<Spec>((e) => ({ kind: 'endTurn', ...e })),
  },
  { weight: 2, arbitrary: fc.constant<Spec>({ kind: 'report' }) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.nat(6).map((calls) => ({ calls })),
        fc.nat(6).map((turns) => ({ turns })),
      )
      .map<Spec>((limits) => ({ kind: 'setBudget', limits })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ delta: fc.constantFrom(-1, 0, 0, 1), refused: fc.boolean(), asks: fc.constantFrom(true, true, false) })
      .map<Spec>((a) => ({ kind: 'answer', ...a })),
  },
  { weight: 1, arbitrary: fc.constant<Spec>({ kind: 'takeAnswer' }) },
  { weight: 1, arbitrary: fc.constantFrom('w1', 'w2').map<Spec>((waitId) => ({ kind: 'waitBegan', waitId })) },
  { weight: 2, arbitrary: fc.constantFrom('w1', 'w2').map<Spec>((waitId) => ({ kind: 'notify', waitId })) },
  { weight: 1, arbitrary: fc.constant<Spec>({ kind: 'waitEnded' }) },
  { weight: 1, arbitrary: fc.constantFrom('.', 'src', 'src/api').map<Spec>((cwd) => ({ kind: 'cwd', cwd })) },
  { weight: 1, arbitrary: fc.constant<Spec>({ kind: 'exit' }) },
);

const commandsArb = fc.commands<Model, Real>([specArb.map<fc.Command<Model, Real>>((spec) => new Step(spec))], { maxCommands: 120, size: 'max' });

/** A new teammate's first run (its initial message pending), or a run an earlier version carried (no settled, usage or cwd). */
function setup(legacy: boolean): () => { model: Model; real: Real } {
  return () => {
    const initial: InboxMessage = { messageId: DESCRIPTOR.initialMessageId, from: 'lead', content: 'start', sentAt: 'T', relaySeq: 1 };
    const input: TeammateRunInput = {
      descriptor: DESCRIPTOR,
      model: null,
      seed: [],
      initialMessage: initial,
      maxTurnsPerRun: MAX_TURNS_PER_RUN,
      ...(legacy
        ? {
            carried: {
              inbox: { pending: [], seen: ['old-1'], received: 1, consumed: 1 },
              conversation: [{ role: 'user', messageId: 'old-1', from: 'lead', content: 'hi', turn: 1 }],
              turns: 1,
              interruptedTurns: 0,
              continuedRuns: 1,
            },
          }
        : {}),
    };
    const state = deepFreeze(initialSessionState(input, 'teammate'));
    const model: Model = {
      pending: legacy ? [] : [initial],
      seen: new Set(legacy ? ['old-1'] : [initial.messageId]),
      received: 1,
      consumed: legacy ? 1 : 0,
      pendingBytes: legacy ? jsonBytes([]) : jsonBytes([initial]),
      settled: 0,
      reportedSettled: 0,
      turns: legacy ? 1 : 0,
      turnsThisRun: 0,
      interruptedTurns: 0,
      status: 'idle',
      interruptRequested: false,
      conversation: legacy ? ['user:old-1@1'] : [],
      lastTake: [],
      clock: 1_000,
      calls: 0,
      inputTokens: 0,
      activeMs: 0,
      turnStartedAt: null,
      limits: null,
      exhaustionReported: false,
      teamStop: false,
      teamAnswer: null,
      ignored: { malformed: 0, nonMember: 0, unknownKey: 0, unknownSignal: 0, failed: 0 },
      signals: 0,
      rejected: 0,
      waitId: null,
      edge: false,
      cwd: '.',
    };
    return { model, real: { state } };
  };
}

describe('session state against a model', () => {
  it('random command sequences keep every rule, from a new teammate and from an old carried run', () => {
    assertModelRuns(commandsArb, setup, 150, seen, [
      'delivery:recorded',
      'delivery:duplicate',
      'delivery:rejected',
      'deliver:signalReceived+messageReceived',
      'deliver:signalReceived+duplicateSettled',
      'deliver:signalReceived+deliveryRejected',
      'beginTurn:turnBegan+messagesTaken',
      'stepTake:messagesTaken',
      'takeReturned',
      'endTurn:takeReturned+turnInterrupted+conversationAppended+turnEnded',
      'endTurn:turnInterrupted+conversationAppended+turnEnded',
      'endTurn:conversationAppended+turnEnded',
      'endTurn:turnEnded',
      'interrupt:signalReceived+interruptRequested',
      'interrupt:unknownKey',
      'notify:signalReceived+edgeNotified',
      'notify:unknownKey',
      'answer:signalReceived+modelCallAnswered',
      'answer:unknownKey',
      'takeAnswer:answerTaken',
      'report:settlementsReported+stopReported',
      'report:settlementsReported',
      'cwd:cwdChanged',
      'cwd:none',
      'exit:statusChanged',
      'unknownSignal:unknownSignal',
    ]);
  });

  it('events are plain data: each survives JSON as it is', () => {
    const s = setup(false)().real.state;
    const events: SessionEvent[] = [
      ...decideSignal(s),
      ...decideIgnored(s, 'malformed'),
      ...decideDelivery(s, message(1, 'ok', true, 2)).events,
      ...decideDelivery(s, message(1, 'malformed', true, 2)).events,
      ...decideBeginTurn(s, 5),
      ...decideStepTake(s),
      ...decideAppend(s, { role: 'assistant', content: 'done', turn: 1 }),
      ...decideModelCall(s, { promptTokens: 3, completionTokens: 1 }),
      ...decideEndTurn(s, { interrupted: true }, 9),
      ...decideReport(s).events,
      ...decideWaitBegan(s, 'w'),
      ...decideWaitEnded(s),
      ...decideCwd(s, 'src'),
      ...decideExit(s),
    ];
    for (const event of events) expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  });
});
