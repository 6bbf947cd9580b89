/**
 * A session's run (a teammate's, or an ordinary subagent's): its state value (shared/session),
 * changed only by `apply` over the events its decide functions return. No Temporal calls here;
 * session.ts wires it. `Date.now()` (workflow time) is read here and passed to the pure code.
 */
import type { ConversationEntry, TeammateStateView } from '../../shared/contract';
import type { TeammateRunInput } from '../../shared/session/carried';
import { carriedWithinPayloadLimit } from '../../shared/agent/conversationSize';
import { workingDirectory } from '../common/workingDirectory';
import type { BudgetExhaustion } from '../../shared/contract/budgets';
import type { IgnoredSignals } from '../../shared/contract/signals';
import type { ModelUsage } from '../../shared/contract/model';
import {
  applySessionAll,
  carrySession,
  checkInTurn,
  decideAppend,
  decideBeginTurn,
  decideCwd,
  decideDelivery,
  decideEndTurn,
  decideIgnored,
  decideModelCall,
  decideReport,
  decideSignal,
  decideStepTake,
  decideTakeAnswer,
  initialSessionState,
  sessionView,
  type SessionEvent,
  type SessionRole,
  type SessionState,
  type TurnOutcome,
} from '../../shared/session';

export class SessionRun {
  /** Everything this session holds, as one value; replaced only by `apply`. */
  private value: SessionState;
  /** The session's working directory as a running turn's work tools see it (a `cd` is applied as an event). */
  readonly session: { cwd: string };

  constructor(
    readonly input: TeammateRunInput,
    readonly role: SessionRole,
  ) {
    this.value = initialSessionState(input, role);
    this.session = workingDirectory(
      () => this.state.cwd,
      (cwd) => this.apply(decideCwd(this.state, cwd)),
    );
  }

  /** The state as it is now (read only: it changes through `apply`). */
  get state(): Readonly<SessionState> {
    return this.value;
  }

  /** The one place the state changes. */
  apply(events: readonly SessionEvent[]): void {
    if (events.length === 0) return;
    this.value = applySessionAll(this.value, events);
  }

  get name(): string {
    return this.input.descriptor.name;
  }

  /** Any signal of this run, handled or not (the signal guard's `onSignal`). */
  countSignal(): void {
    this.apply(decideSignal(this.state));
  }

  /** A signal ignored, by reason (the signal guard's `ignore`). */
  ignore(reason: keyof IgnoredSignals): void {
    this.apply(decideIgnored(this.state, reason));
  }

  /** A delivered message (shared/session/decide.ts `decideDelivery`: recorded once, or refused and settled). */
  deliver(message: unknown): void {
    this.apply(decideDelivery(this.state, message).events);
  }

  /** Moves every pending message into the conversation as user entries of the next turn. */
  beginTurn(): { turn: number } {
    this.apply(decideBeginTurn(this.state, Date.now()));
    return { turn: this.state.turns };
  }

  /** Steer: the running turn takes every message that arrived meanwhile, at a step boundary before its next model call. */
  takeAtStepBoundary(): void {
    this.apply(decideStepTake(this.state));
  }

  /** The agent loop's entries, as they happen. */
  append(entry: ConversationEntry): void {
    this.apply(decideAppend(this.state, entry));
  }

  /** A model call's result was recorded in this run's history: its usage counts once, in the current turn. */
  recordModelCall(usage: ModelUsage | undefined): void {
    this.apply(decideModelCall(this.state, usage));
  }

  /** Checked before each model call of the running turn, at the current workflow time. */
  checkInTurn(): BudgetExhaustion | null {
    return checkInTurn(this.state, Date.now());
  }

  /** Takes the Lead's answer for the next call: null, granted; else the Team's exhaustion. */
  takeAnswer(): BudgetExhaustion | null {
    const { events, exhaustion } = decideTakeAnswer(this.state);
    this.apply(events);
    return exhaustion;
  }

  /** What a status report tells the Lead: everything settled is reported, and a budget stop once. */
  takeReport(): BudgetExhaustion | undefined {
    const { events, stop } = decideReport(this.state);
    this.apply(events);
    return stop;
  }

  /**
   * Ends the current turn. A completed turn's assistant and tool entries were appended by the agent
   * loop; an interrupted or failed one gets a system note.
   */
  endTurn(outcome: TurnOutcome): void {
    this.apply(decideEndTurn(this.state, outcome, Date.now()));
  }

  view(): TeammateStateView {
    return sessionView(this.state, this.input.descriptor);
  }
}

/**
 * The next run's input: the carried state, without the first run's seed and initial message (they
 * are in the carried conversation and inbox by now), measured, with the conversation compacted to
 * the room the rest leaves if it were ever over the payload limit.
 */
export function nextSessionInput(input: TeammateRunInput, mate: SessionRun): TeammateRunInput {
  return carriedWithinPayloadLimit((conversationMaxBytes?: number): TeammateRunInput => ({
    ...input,
    seed: [],
    initialMessage: { ...input.initialMessage, content: null },
    carried: carrySession(mate.state, conversationMaxBytes),
  }));
}
