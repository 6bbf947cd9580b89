/**
 * Deadlines of the typed client: every TeamClient call ends by its deadline, with the result or a
 * typed error. The deadline is applied to the gRPC calls themselves (`connection.withDeadline`),
 * so nothing keeps running after it; a call that timed out is diagnosed (is a worker polling the
 * Lead's task queue? do its workflow tasks keep failing?) and ends with TeamCallTimedOut, whose
 * message says what to do next.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { WorkflowUpdateRPCTimeoutOrCancelledError, isGrpcCancelledError, isGrpcDeadlineError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { LEAD_UPDATES } from '../shared/contract/updates';

/** How long each kind of call may take, in milliseconds. */
export interface TeamDeadlines {
  /** Queries, describe, signals and starting a Lead. */
  callMs: number;
  /** Updates that answer at once (task mutations, spawn, send, interrupt, inbox, prompt), `TeamRollingOver` retries included. */
  updateMs: number;
  /** `disposeTeam`, which stops every teammate one by one before it answers. */
  disposeMs: number;
  /** Added to a blocking wait's own timeout (`waitForEdge`, `waitForAnswer`). */
  waitMarginMs: number;
}

export const DEFAULT_DEADLINES: Readonly<TeamDeadlines> = Object.freeze({ callMs: 30_000, updateMs: 60_000, disposeMs: 300_000, waitMarginMs: 30_000 });

/** Per-call override, where a call takes options. */
export interface CallOptions {
  /** This call's deadline (ms from now), instead of the client's for its kind. */
  deadlineMs?: number;
}

/** The longest deadline a timer can hold (setTimeout's limit, about 24.8 days). */
export const MAX_DEADLINE_MS = 2_147_483_647;

/** A deadline in ms: a positive finite number up to MAX_DEADLINE_MS. `what` names it in the error. */
export function checkDeadlineMs(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_DEADLINE_MS) {
    throw new RangeError(`${what} must be a positive number of milliseconds up to ${MAX_DEADLINE_MS}, got ${String(value)}`);
  }
  return value;
}

/** The client's deadlines: the defaults, overridden field by field (each checked). */
export function resolveDeadlines(overrides: Partial<TeamDeadlines> = {}, base: Readonly<TeamDeadlines> = DEFAULT_DEADLINES): TeamDeadlines {
  const resolved = { ...base };
  for (const key of Object.keys(DEFAULT_DEADLINES) as (keyof TeamDeadlines)[]) {
    const value = overrides[key];
    if (value !== undefined) resolved[key] = checkDeadlineMs(value, `deadlines.${key}`);
  }
  const unknown = Object.keys(overrides).filter((key) => !(key in DEFAULT_DEADLINES));
  if (unknown.length > 0)
    throw new RangeError(`unknown deadline option${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; use ${Object.keys(DEFAULT_DEADLINES).join(', ')}`);
  return resolved;
}

/**
 * The innermost enclosing deadline (epoch ms): a call inside another (waitForAnswer's reads, a
 * command's scope) ends by the outer one too.
 */
const enclosing = new AsyncLocalStorage<number>();

/** The epoch-ms deadline a call of `ms` started now has, capped by any enclosing one. */
export function deadlineFrom(ms: number, now: number = Date.now()): number {
  const outer = enclosing.getStore();
  return Math.min(now + ms, outer ?? Number.POSITIVE_INFINITY);
}

/** Runs `fn` with every TeamClient call inside it ending by `deadline` (epoch ms) at the latest. */
export function runBefore<T>(deadline: number, fn: () => Promise<T>): Promise<T> {
  const outer = enclosing.getStore();
  return enclosing.run(Math.min(deadline, outer ?? Number.POSITIVE_INFINITY), fn);
}

/**
 * Runs `fn` (a CLI command, a script step) so that every TeamClient call inside it ends within
 * `ms` from now, whatever the calls' own deadlines.
 */
export function withinDeadline<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  return runBefore(Date.now() + checkDeadlineMs(ms, 'deadline'), fn);
}

/** The part of a deadline kept to diagnose a call that ran out of it (describe + task queue pollers). */
export function diagnosisReserveMs(deadlineMs: number): number {
  return Math.min(2_000, Math.floor(deadlineMs / 4));
}

/** Thrown inside a call when its own wait (a slot, a retry backoff, a retriable rejection) outlasted the deadline. */
export class DeadlineReached extends Error {
  override name = 'DeadlineReached';
}

/** The error, or one of its causes, is a gRPC call that hit its deadline or was cancelled, or our own deadline marker. */
export function isDeadlineError(error: unknown): boolean {
  return (
    error instanceof DeadlineReached || error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isGrpcDeadlineError(error) || isGrpcCancelledError(error)
  );
}

/** What the client could learn about a Team's Lead workflow (see TeamClient.health). */
export interface TeamHealth {
  teamId: string;
  /** RUNNING, COMPLETED, FAILED, TERMINATED, CONTINUED_AS_NEW, … of the latest run. */
  status: string;
  runId: string;
  taskQueue: string;
  historyLength: number;
  /** The Lead's pending workflow task: its attempt (over 1: its workflow tasks keep failing), or null when none is pending. */
  workflowTaskAttempt: number | null;
  /** Workers that polled the task queue for workflow tasks recently; null when that could not be read. */
  pollers: number | null;
  /** The last workflow task failure recorded in the run's history, or null. */
  lastWorkflowTaskFailure: string | null;
}

/**
 * One sentence on what the Lead's state means for its callers and what to do about it. `context`:
 * explaining a call that timed out, or a `status` snapshot (where a pending task is normal).
 */
export function healthAdvice(health: TeamHealth, context: 'timeout' | 'status' = 'timeout'): string {
  const worker = `start one on it (TEMPORAL_TASK_QUEUE=${health.taskQueue} npm run worker)`;
  if (health.status !== 'RUNNING') return `The Lead's run is ${health.status}: the Team has finished; start a new Team to continue.`;
  if (health.workflowTaskAttempt !== null && health.workflowTaskAttempt > 1) {
    const last = health.lastWorkflowTaskFailure ? ` (last recorded failure: ${health.lastWorkflowTaskFailure})` : '';
    const noWorker = health.pollers === 0 ? `; no worker polls task queue "${health.taskQueue}" now either: ${worker}` : '';
    const times = health.workflowTaskAttempt - 1;
    return (
      `The Lead's workflow task has failed ${times} time${times === 1 ? '' : 's'}${last}, so it answers nothing: ` +
      `deploy a worker that can run it (the Web UI shows the failure)${noWorker}.`
    );
  }
  if (health.pollers === 0) return `No worker polls the Lead's task queue "${health.taskQueue}": ${worker}.`;
  if (context === 'status') return `Healthy: a worker polls task queue "${health.taskQueue}" and no workflow task of the Lead is failing.`;
  if (health.workflowTaskAttempt !== null) {
    return (
      `A worker polls task queue "${health.taskQueue}" but has not completed the Lead's pending workflow task: ` +
      `it may be overloaded or stuck; check its logs, or retry with a longer deadline.`
    );
  }
  return (
    `The Lead is running, a worker polls task queue "${health.taskQueue}" and no workflow task is failing: ` +
    `it may just be busy; retry with a longer deadline.`
  );
}

export interface TimeoutFacts {
  teamId: string;
  /** The call: an Update, query or client operation name. */
  operation: string;
  /** The deadline the call had, in ms (capped by any enclosing deadline). */
  deadlineMs: number;
  /** The Update's id, when the call was an Update: a retry with it is applied at most once. */
  updateId?: string;
  /** Why the call had not finished, when known beyond "no answer" (all slots busy, still rolling over…). */
  reason?: string;
  /** The diagnosis made on expiry; null when the Lead could not be described in time. */
  health: TeamHealth | null;
}

export const TEAM_CALL_TIMED_OUT = 'TeamCallTimedOut';

/** Updates that change nothing on the Team (reads and waits; their descriptors say `readOnly`): repeating one is always safe. */
export const READ_ONLY_UPDATES: ReadonlySet<string> = new Set(LEAD_UPDATES.filter((d) => d.readOnly).map((d) => d.definition.name));

/** The call was an Update that may change the Team, so it may have been applied before the deadline. */
export function mayBeApplied(facts: Pick<TimeoutFacts, 'operation' | 'updateId'>): boolean {
  return facts.updateId !== undefined && !READ_ONLY_UPDATES.has(facts.operation);
}

/**
 * A TeamClient call ran out of its deadline. Retriable: an Update may still be applied, so retry
 * it with the same update id (`updateId`); the message says what to check first.
 */
export class TeamCallTimedOut extends ApplicationFailure {
  readonly teamId: string;
  readonly operation: string;
  readonly deadlineMs: number;
  readonly updateId: string | undefined;
  readonly health: TeamHealth | null;

  constructor(facts: TimeoutFacts) {
    super(timeoutMessage(facts), TEAM_CALL_TIMED_OUT, false, [facts]);
    this.teamId = facts.teamId;
    this.operation = facts.operation;
    this.deadlineMs = facts.deadlineMs;
    this.updateId = facts.updateId;
    this.health = facts.health;
  }
}
Object.defineProperty(TeamCallTimedOut.prototype, 'name', { value: TEAM_CALL_TIMED_OUT, enumerable: true });

function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)}s` : `${Math.round(ms / 100) / 10}s`;
}

function timeoutMessage(facts: TimeoutFacts): string {
  const what = facts.updateId !== undefined ? `${facts.operation} (update id ${facts.updateId})` : facts.operation;
  const head = `Team ${facts.teamId}: ${what} did not finish within its ${seconds(facts.deadlineMs)} deadline${facts.reason ? ` (${facts.reason})` : ''}.`;
  const diagnosis = facts.health
    ? healthAdvice(facts.health)
    : "The Lead could not be described in time either: is Temporal reachable, and is a worker running on the Lead's task queue?";
  const check = `Check \`npm run cli -- status ${facts.teamId}\` or the Web UI for failed workflow tasks.`;
  const retry = mayBeApplied(facts)
    ? `The Update may still be applied: retry with the same update id (${facts.updateId}), which is applied at most once.`
    : 'Retry once that is fixed, or with a longer deadline.';
  return `${head} ${diagnosis} ${check} ${retry}`;
}
