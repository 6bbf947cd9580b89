/**
 * One run of the Lead: the Lead's state value (changed only by applying events) and the counters
 * that belong to this run alone (accepted Updates and signals towards the rollover, operations in
 * flight, creators running, disposals, ignored signals). Nothing here is carried except `state`.
 */
import { rejectionFailure } from '../../shared/contract/failures';
import type { LeadDecision, LeadEvent, LeadState } from '../../shared/lead';
import { applyLeadAll, rememberedResult, updateRemembered } from '../../shared/lead';
import { noIgnoredSignals, type IgnoredSignals } from '../../shared/contract/signals';

/** Updates accepted per run before rolling over; well under the server's 2,000 per run. */
export const MAX_ACCEPTED_UPDATES_PER_RUN = 1_000;
/** Signals handled per run before rolling over; the server allows 10,000. */
export const MAX_SIGNALS_PER_RUN = 9_000;
/** Synchronous task Updates stay open while a run winds down, up to this many accepted in the run. */
export const HARD_UPDATES_PER_RUN = 1_800;

/**
 * Each counter has one owner: it is assigned here only, through the method named beside it, and
 * read through its getter. Who calls those methods: the operations table counts accepted Updates
 * (`countAccepted`); the signal guard in teamLead.ts counts signals (`countSignal`); a spawn
 * (roster.ts, through `beginCreating`) and a send (mailbox.ts) bracket themselves with
 * `beginOperation`/`endOperation`; disposal.ts alone begins, ends and completes a disposal
 * (`beginDisposal`, `endDisposal`, `disposalCompleted`); the signal guard in teamLead.ts counts
 * ignored signals (`countIgnored`).
 */
export class LeadRun {
  private acceptedUpdateCount = 0;
  private signalCount = 0;
  private operationCount = 0;
  private disposed = false;
  private disposalStarted = false;
  private disposalCount = 0;
  private ignoredCounts: IgnoredSignals = noIgnoredSignals();
  /** Names whose creator (a spawnTeammate handler) is running in this run. */
  private readonly creators = new Set<string>();

  constructor(
    private current: LeadState,
    private readonly now: () => string,
  ) {}

  /** The Lead's state as of now; it changes only through `apply` (and `commit`, `remember`). */
  get state(): LeadState {
    return this.current;
  }

  apply(events: readonly LeadEvent[]): void {
    if (events.length === 0) return;
    this.current = applyLeadAll(this.current, events, this.now());
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

  /**
   * The result remembered for `updateId`, typed as the caller's: an update id is one Update's, and
   * only that Update's operation remembers under it (operations.ts), so what comes back is what it returned.
   */
  remembered<Result>(updateId: string): Result | undefined {
    return rememberedResult(this.state, updateId) as Result | undefined;
  }

  /**
   * Remembers an Update's result for its retries: one more event through `apply`, the one apply
   * path. It is a second apply for the same Update on purpose: the result exists only after the
   * decision's events were applied (a task mutation's result is read from the board they changed; a
   * spawn's or a send's only after its awaits), and computing it ahead from a state applied aside
   * would be a second apply path. See docs/development.md ("The Lead's state").
   */
  remember(updateId: string, result: unknown): void {
    this.apply(updateRemembered(updateId, result));
  }

  /** Accepted Updates this run (towards the rollover; getLeadRunInfo). */
  get acceptedUpdates(): number {
    return this.acceptedUpdateCount;
  }

  /** One more accepted Update: the operations table calls this, once per accepted Update. */
  countAccepted(): void {
    this.acceptedUpdateCount += 1;
  }

  /** Signals handled this run (towards the rollover). */
  get signals(): number {
    return this.signalCount;
  }

  /** One more signal handled: the signal guard (teamLead.ts) calls this. */
  countSignal(): void {
    this.signalCount += 1;
  }

  /** Signals this run ignored, by reason (getLeadRunInfo). */
  get ignored(): IgnoredSignals {
    return this.ignoredCounts;
  }

  /** One more signal ignored: the signal guard (teamLead.ts) calls this. */
  countIgnored(reason: keyof IgnoredSignals): void {
    this.ignoredCounts = { ...this.ignoredCounts, [reason]: this.ignoredCounts[reason] + 1 };
  }

  /** Admitted spawns and sends still running; disposal waits for them. */
  get operationsInFlight(): number {
    return this.operationCount;
  }

  /** An admitted spawn or send runs from now until its `endOperation` (in a finally). */
  beginOperation(): void {
    this.operationCount += 1;
  }

  endOperation(): void {
    this.operationCount -= 1;
  }

  creating(name: string): boolean {
    return this.creators.has(name);
  }

  /** A creator (a spawnTeammate handler) for `name` runs from now: recovery leaves its record to it, and disposal waits for it (an operation). */
  beginCreating(name: string): void {
    this.creators.add(name);
    this.beginOperation();
  }

  endCreating(name: string): void {
    this.creators.delete(name);
    this.endOperation();
  }

  /** True once a disposal has stopped every child: the run ends instead of continuing. Set by disposal.ts only. */
  get disposeRequested(): boolean {
    return this.disposed;
  }

  /** disposal.ts, once every recorded child is stopped. */
  disposalCompleted(): void {
    this.disposed = true;
  }

  /**
   * True from the activation that accepts disposeTeam (runs with the dispose-closes-admission-first
   * patch only): waits wake, the Lead agent starts no further turn, watch notifications stop.
   */
  get disposing(): boolean {
    return this.disposalStarted;
  }

  /** disposeTeam calls still stopping children (disposal.ts); a cancel request's disposal waits for them. */
  get disposalsInFlight(): number {
    return this.disposalCount;
  }

  /** disposal.ts, in the activation that accepts disposeTeam (the new order): admission closed, one more disposal running. */
  beginDisposal(): void {
    this.disposalStarted = true;
    this.disposalCount += 1;
  }

  /** disposal.ts, when a disposal begun with `beginDisposal` settles (in a finally). */
  endDisposal(): void {
    this.disposalCount -= 1;
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
