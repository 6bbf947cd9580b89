/**
 * The call engine under TeamClient: every call runs by its deadline (client/deadlines.ts), what the
 * server or the Lead answers is retried or thrown typed (client/callErrors.ts), and a call that
 * runs out ends with TeamCallTimedOut after the Lead is diagnosed (client/health.ts).
 */
import { randomUUID } from 'node:crypto';
import { type Client, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import * as defs from '../shared/contract';
import { leadUpdate } from '../shared/contract/updates';
import { TEAM_CLOSED } from '../shared/contract/failures';
import { MAX_REPORTED_MESSAGE_LENGTH } from '../shared/contract/signals';
import { jsonBytes } from '../shared/contract/limits';
import {
  type CallOptions,
  type TeamDeadlines,
  type TeamHealth,
  DeadlineReached,
  TeamCallTimedOut,
  checkDeadlineMs,
  deadlineFrom,
  diagnosisReserveMs,
  isDeadlineError,
  runBefore,
} from './deadlines';
import { readTeamHealth } from './health';
import { type CallFacts, classifyCallError, retryDelayMs } from './callErrors';
import { TEAM_NOT_FOUND } from './failures';
import { withUpdateSlot } from './updateSlots';
import { isTeamRejectionType } from '../shared/contract/rejections';

/** A deadline error this close to the call's gRPC deadline is that deadline (the server answers a little early). */
const DEADLINE_SLACK_MS = 250;

/** Whom the engine calls, as whom, and by which deadlines: a TeamClient is one. */
export interface CallTarget {
  readonly client: Client;
  readonly teamId: string;
  /** The member the calls act as (every Update's `caller`). */
  readonly caller: string;
  readonly deadlines: Readonly<TeamDeadlines>;
  /** Whether a typed Team rejection is reported to the Lead (`reportRejection`) so views show it. */
  readonly reportsRejections: boolean;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs a TeamClient's calls: Updates, reads (query or describe) and any other call by its deadline.
 * Every call has a deadline (see TeamDeadlines: per kind, per client, per call) and ends by it,
 * with its result, a typed rejection, or TeamCallTimedOut.
 */
export class TeamCalls {
  constructor(readonly team: CallTarget) {}

  /** Always the latest run: continue-as-new is invisible to callers. */
  handle(): WorkflowHandle<defs.TeamLeadWorkflow> {
    return this.team.client.workflow.getHandle<defs.TeamLeadWorkflow>(this.team.teamId);
  }

  /**
   * Executes an attributed Update. One update id is used for every attempt, so a retry after a
   * lost response is answered from the Lead's memory instead of being applied twice. What the
   * server or the Lead answers is retried within the deadline or thrown typed (client/callErrors.ts):
   * rolling over, a failed workflow task, a busy server and a run closing under the Update are
   * retried; typed rejections are thrown as the ApplicationFailure the Lead raised (`.type`,
   * `.details[0]`), other server errors as TeamCallFailed, running out of the deadline as
   * TeamCallTimedOut (retry with the same update id).
   */
  async update<Ret, Req extends defs.Attributed>(
    definition: UpdateDefinition<Ret, [Req]>,
    body: Omit<Req, 'caller'>,
    updateId: string = randomUUID(),
    options: CallOptions = {},
  ): Promise<Ret> {
    const deadlineMs = options.deadlineMs ?? this.updateDeadlineMs(definition.name, body);
    const request = { ...body, caller: this.team.caller } as Req;
    const facts = { operation: definition.name, kind: 'update', updateId, requestBytes: jsonBytes(request) } as const;
    try {
      return await this.call(
        definition.name,
        deadlineMs,
        (notAfter) =>
          this.retrying(notAfter, facts, () =>
            withUpdateSlot(this.team.teamId, () => this.handle().executeUpdate(definition, { args: [request], updateId }), notAfter),
          ),
        updateId,
      );
    } catch (error) {
      if (this.team.reportsRejections && error instanceof ApplicationFailure && isTeamRejectionType(error.type)) {
        await this.reportRejection(definition.name, error.type, error.message);
      }
      throw error;
    }
  }

  /**
   * Tells the Lead it refused `operation` (a validator's rejection never reaches its history), so
   * the agentTeam view shows it beside the unchanged state. Best effort within the call deadline:
   * a report that cannot be sent is dropped, never thrown instead of the rejection.
   */
  private async reportRejection(operation: string, type: string, message: string): Promise<void> {
    const report: defs.RejectionReport = { caller: this.team.caller, operation, type, message: message.slice(0, MAX_REPORTED_MESSAGE_LENGTH) };
    try {
      // Not retried: a signal has no id to dedupe a second delivery by.
      await this.call('reportRejection', this.team.deadlines.callMs, () => this.handle().signal(defs.reportRejectionSignal, report));
    } catch {
      // The view misses one advisory entry; the caller still gets its rejection.
    }
  }

  /** The default deadline of an Update, by its descriptor: a wait's own timeout plus the margin, disposal's, or the one for Updates. */
  private updateDeadlineMs(name: string, body: object): number {
    switch (leadUpdate(name)?.deadline) {
      case 'wait': {
        const timeoutMs = (body as { timeoutMs?: unknown }).timeoutMs;
        const wait = typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 0;
        return wait + this.team.deadlines.waitMarginMs;
      }
      case 'dispose':
        return this.team.deadlines.disposeMs;
      default:
        return this.team.deadlines.updateMs;
    }
  }

  /** A read (query or describe) by its deadline; what the server answers is retried or thrown typed, as for Updates. */
  query<T>(name: string, options: CallOptions | undefined, run: () => Promise<T>): Promise<T> {
    return this.call(name, options?.deadlineMs ?? this.team.deadlines.callMs, (notAfter) => this.retrying(notAfter, { operation: name, kind: 'query' }, run));
  }

  /**
   * Runs one call by its deadline: `deadlineMs` from now, capped by any enclosing call's. Its gRPC
   * calls carry the deadline (`connection.withDeadline`) less a small reserve, which is kept to
   * diagnose the Lead when the call runs out; then it throws TeamCallTimedOut.
   */
  async call<T>(operation: string, deadlineMs: number, run: (notAfter: number) => Promise<T>, updateId?: string): Promise<T> {
    checkDeadlineMs(deadlineMs, `${operation} deadline`);
    const started = Date.now();
    const end = deadlineFrom(deadlineMs, started);
    const notAfter = end - diagnosisReserveMs(end - started);
    try {
      return await runBefore(end, () => this.team.client.connection.withDeadline(notAfter, () => run(notAfter)));
    } catch (error) {
      if (error instanceof TeamCallTimedOut || !isDeadlineError(error)) throw error;
      const early = notAfter - Date.now() > 1_000;
      const reason =
        error instanceof DeadlineReached ? error.message : early ? `the server gave up after ${Math.round((Date.now() - started) / 100) / 10}s` : undefined;
      throw await this.timedOut(operation, end - started, end, reason, updateId);
    }
  }

  /** TeamCallTimedOut for `operation`, with the Lead diagnosed by `end` (epoch ms) when there is time left. */
  async timedOut(operation: string, deadlineMs: number, end: number, reason: string | undefined, updateId: string | undefined): Promise<TeamCallTimedOut> {
    let health: TeamHealth | null = null;
    if (end - Date.now() > 10) {
      try {
        health = await this.team.client.connection.withDeadline(end, () => readTeamHealth(this.team.client, this.team.teamId));
      } catch {
        health = null;
      }
    }
    return new TeamCallTimedOut({
      teamId: this.team.teamId,
      operation,
      deadlineMs,
      ...(updateId !== undefined ? { updateId } : {}),
      ...(reason !== undefined ? { reason } : {}),
      health,
    });
  }

  /**
   * Runs one call until it is answered. What it throws is classified (client/callErrors.ts):
   * retriable errors are retried with the same request (an Update keeps its update id) until
   * `notAfter` (epoch ms), then DeadlineReached says why; the call's own deadline error goes up
   * to `call`; anything else is thrown typed.
   */
  async retrying<T>(notAfter: number, facts: Omit<CallFacts, 'teamId'>, run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (isDeadlineError(error) && Date.now() >= notAfter - DEADLINE_SLACK_MS) throw error;
        const verdict = classifyCallError(error, { teamId: this.team.teamId, ...facts });
        if (verdict.action === 'typed') throw verdict.error;
        if (verdict.onlyWhileRunning) await this.throwUnlessRunning();
        const delay = retryDelayMs(verdict.pace, attempt);
        if (Date.now() + delay >= notAfter) {
          throw new DeadlineReached(`still retriable when the deadline came, after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${verdict.why}`);
        }
        await sleep(delay);
      }
    }
  }

  /** Before retrying an error that can mean the run closed: TeamClosed once the Lead has finished, TeamNotFound when there is none. */
  private async throwUnlessRunning(): Promise<void> {
    let status: string;
    try {
      status = (await this.handle().describe()).status.name;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) return; // cannot tell: retry
      throw ApplicationFailure.create({
        type: TEAM_NOT_FOUND,
        message: `no Team ${this.team.teamId} (${error.message}); check the id and namespace`,
        nonRetryable: true,
      });
    }
    if (status !== 'RUNNING') {
      throw ApplicationFailure.create({
        type: TEAM_CLOSED,
        message: `Team ${this.team.teamId} has finished; start a new Team to continue`,
        nonRetryable: true,
      });
    }
  }
}
