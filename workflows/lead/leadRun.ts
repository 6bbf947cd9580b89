/**
 * One run of the Lead: the Lead's state value (changed only by applying events) and the counters
 * that belong to this run alone (accepted Updates and signals towards the rollover, operations in
 * flight, creators running, ignored signals). Nothing here is carried except `state`.
 */
import { rejectionFailure } from '../../shared/failures';
import type { LeadDecision, LeadEvent, LeadState } from '../../shared/lead';
import { applyLeadAll, rememberedResult } from '../../shared/lead';
import { noIgnoredSignals, type IgnoredSignals } from '../../shared/contract/signals';

/** Updates accepted per run before rolling over; well under the server's 2,000 per run. */
export const MAX_ACCEPTED_UPDATES_PER_RUN = 1_000;
/** Signals handled per run before rolling over; the server allows 10,000. */
export const MAX_SIGNALS_PER_RUN = 9_000;
/** Synchronous task Updates stay open while a run winds down, up to this many accepted in the run. */
export const HARD_UPDATES_PER_RUN = 1_800;

export class LeadRun {
  acceptedUpdates = 0;
  signals = 0;
  /** Admitted spawns and sends still running; disposal waits for them. */
  operationsInFlight = 0;
  disposeRequested = false;
  /**
   * Set in the activation that accepts disposeTeam (runs with the dispose-closes-admission-first
   * patch only): waits wake, the Lead agent starts no further turn, watch notifications stop.
   */
  disposing = false;
  /** disposeTeam calls still stopping children (disposal.ts); a cancel request's disposal waits for them. */
  disposalsInFlight = 0;
  /** Signals this run ignored, by reason (getLeadRunInfo). */
  readonly ignored: IgnoredSignals = noIgnoredSignals();
  /** Names whose creator (a spawnTeammate handler) is running in this run. */
  private readonly creators = new Set<string>();
  /** Called after events were applied (the Web UI's current details); must not issue commands. */
  onApplied: () => void = () => undefined;

  constructor(
    public state: LeadState,
    private readonly now: () => string,
  ) {}

  apply(events: readonly LeadEvent[]): void {
    if (events.length === 0) return;
    this.state = applyLeadAll(this.state, events, this.now());
    this.onApplied();
  }

  /** Applies an accepted decision; a rejection becomes the typed failure the caller sees. */
  commit(decision: LeadDecision): void {
    if (!decision.ok) throw rejectionFailure(decision.rejection);
    this.apply(decision.events);
  }

  /** Throws the typed failure for a rejected decision, changing nothing: what validators do. */
  require(decision: LeadDecision): void {
    if (!decision.ok) throw rejectionFailure(decision.rejection);
  }

  remembered(updateId: string): unknown {
    return rememberedResult(this.state, updateId);
  }

  /** Remembers an applied Update's result for its retries; every accepted Update counts towards the rollover. */
  remember(updateId: string, result: unknown): void {
    this.apply([{ type: 'updateRemembered', updateId, result }]);
    this.countAccepted();
  }

  countAccepted(): void {
    this.acceptedUpdates += 1;
  }

  creating(name: string): boolean {
    return this.creators.has(name);
  }

  /** A creator (a spawnTeammate handler) for `name` runs from now: recovery leaves its record to it, and disposal waits for it. */
  beginCreating(name: string): void {
    this.creators.add(name);
    this.operationsInFlight += 1;
  }

  endCreating(name: string): void {
    this.creators.delete(name);
    this.operationsInFlight -= 1;
  }

  /** True once this run should stop accepting Updates and continue as new. */
  mustRollOver(continueAsNewSuggested: boolean): boolean {
    return continueAsNewSuggested || this.acceptedUpdates >= MAX_ACCEPTED_UPDATES_PER_RUN || this.signals >= MAX_SIGNALS_PER_RUN;
  }

  /** Past this many accepted Updates even synchronous ones wait for the next run (the server caps a run at 2,000). */
  pastHardUpdateCap(): boolean {
    return this.acceptedUpdates >= HARD_UPDATES_PER_RUN;
  }
}
