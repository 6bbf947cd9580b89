/**
 * The typed client over the Temporal client SDK: start a Team (its Lead workflow), then drive it
 * through the wire contract in shared/contract/. Used by the CLI, the demo, tests and benchmarks.
 * Every call has a deadline and ends by it (client/deadlines.ts): with its result, a typed
 * rejection, or TeamCallTimedOut saying what to do next.
 */
import { randomUUID } from 'node:crypto';
import {
  type Client,
  type WorkflowHandle,
  QueryNotRegisteredError,
  WorkflowUpdateFailedError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import { Semaphore, withTimeout } from 'async-mutex';
import * as defs from '../shared/contract';
import { TEAM_CLOSED, TEAM_ROLLING_OVER } from '../shared/failures';
import type { AgentTeamView } from '../shared/projection/agentTeamView';
import { MAX_REPORTED_MESSAGE_LENGTH } from '../shared/signalPayloads';
import { jsonBytes } from '../shared/limits';
import { AGENT_TEAM_ID, AGENT_TEAM_MEMBER, AGENT_TEAM_ROLE } from '../shared/searchAttributes';
import { leadContext, startMetadata } from '../shared/webUi';
import type { LegacyMailbox, TaskMutationResult, TaskPage, TaskSnapshot, TaskView, TeamView } from '../shared/team';
import { LEAD, isTeamRejectionType } from '../shared/team';
import type { InboxMessage } from '../shared/inbox';
import type { JsonValue } from '../shared/json';
import type { EdgeKind, TeamEdge } from '../shared/teamEdges';
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
  resolveDeadlines,
  runBefore,
} from './deadlines';
import { readTeamHealth } from './health';
import { type CallFacts, classifyCallError, retryDelayMs } from './callErrors';

export { TEAM_CALL_FAILED, TeamCallFailed, classifyCallError, type CallErrorVerdict } from './callErrors';

export {
  DEFAULT_DEADLINES,
  TEAM_CALL_TIMED_OUT,
  TeamCallTimedOut,
  healthAdvice,
  resolveDeadlines,
  withinDeadline,
  type CallOptions,
  type TeamDeadlines,
  type TeamHealth,
} from './deadlines';

export interface StartTeamOptions {
  teamId: string;
  taskQueue?: string;
  maxMembers?: number;
  teammateMaxTurnsPerRun?: number;
  /** Historical Lead-log mailbox records to keep readable (never delivered). */
  legacyMailbox?: unknown[];
  /** Makes the Lead an agent (opening prompt, profile, model, cwd, checkout queue); absent = operator-driven. */
  agent?: defs.LeadAgentOptions;
  /** The returned client's deadlines (and the start call's), over the defaults. */
  deadlines?: Partial<TeamDeadlines>;
}

export interface ForkRootOptions {
  /** The root whose Lead conversation is forked (read once with `getAgentState`). */
  sourceTeamId: string;
  /** The new root's id (a new Team). */
  teamId: string;
  taskQueue?: string;
  /**
   * The fork's Lead agent. `profile` and `cwd` default to the source Lead's; without `agent` the
   * new Lead gets only the forked conversation (what it does then is the workflow's rule).
   */
  agent?: defs.LeadAgentOptions;
  /** The deadlines of the source read, the start and the returned client, over the defaults. */
  deadlines?: Partial<TeamDeadlines>;
}

export interface WaitForAnswerOptions {
  /**
   * Give up (LeadAnswerTimeout) after this long. The call ends within this plus the client's
   * `waitMarginMs`; a Lead that stops answering ends it sooner, with TeamCallTimedOut from a read.
   */
  timeoutMs: number;
  /** Called after the first read and after every wake: the Lead agent as it is now, and the edge that woke the wait (null: first read, timeout, rollover). */
  onProgress?: (view: defs.LeadAgentView, edge: TeamEdge | null) => void;
  /**
   * Only an answer given after the Lead took this prompt counts (the message id of `promptLead`'s
   * acceptance): the conversation must hold that user message. Without it, any answer counts.
   */
  afterMessageId?: string;
  /** Longest single durable wait before the state is re-read anyway; default 30 s. */
  waitSliceMs?: number;
}

/** Client-side failure types (stable, like the Lead's; see cli/index.ts for what to do next). */
export const LEAD_ANSWER_TIMEOUT = 'LeadAnswerTimeout';
/** The Lead agent's last turn failed for good (its model call gave up); prompt it again after fixing the cause. */
export const LEAD_TURN_FAILED = 'LeadTurnFailed';
/** The Lead is not an agent (started without a prompt, or by a version without the agent runtime). */
export const NO_LEAD_AGENT = 'NoLeadAgent';
/** A Lead with this team id is already running. */
export const TEAM_ALREADY_STARTED = 'TeamAlreadyStarted';
/** A fork's input (the forked conversation) would exceed the server's payload limit. */
export const FORK_TOO_LARGE = 'ForkTooLarge';
/** No Team (Lead workflow) with this id in the client's namespace. */
export const TEAM_NOT_FOUND = 'TeamNotFound';

const DEFAULT_WAIT_SLICE_MS = 30_000;
/** The server rejects payloads over 2 MB (default blob size limit); stay well below. */
const MAX_FORK_INPUT_BYTES = 1_500_000;
/** A deadline error this close to the call's gRPC deadline is that deadline (the server answers a little early). */
const DEADLINE_SLACK_MS = 250;

/** A `waitForEdge` the Lead has admitted; `result` settles when it wakes, or fails shortly before `end`. */
interface AdmittedWait {
  result: Promise<defs.WaitResult>;
  updateId: string;
  /** The wait's deadline: its timeout plus the margin (ms, from when it was started). */
  deadlineMs: number;
  /** Epoch ms by which the wait ends, diagnosis of a Lead that did not answer it included. */
  end: number;
}

/**
 * The server admits a bounded number of in-flight Updates per workflow (10 by default; this
 * project's server settings raise it to 128) and answers the next with RESOURCE_EXHAUSTED; a
 * burst of retries beyond that collapses throughput (admitted Updates get aborted and retried in a
 * storm). So each process keeps at most this many Updates in flight per Team and queues the rest
 * locally, leaving headroom for other processes.
 */
export const MAX_IN_FLIGHT_UPDATES_PER_TEAM = 8;
const inFlight = new Map<string, Semaphore>();
/**
 * Runs `call` once fewer than MAX_IN_FLIGHT_UPDATES_PER_TEAM Updates to `workflowId` are in flight
 * from this process. With `notAfter` (epoch ms), waiting for a slot ends then with DeadlineReached.
 */
export async function withUpdateSlot<T>(workflowId: string, call: () => Promise<T>, notAfter?: number): Promise<T> {
  const release = await acquireUpdateSlot(workflowId, notAfter);
  try {
    return await call();
  } finally {
    release();
  }
}
/** Updates to `workflowId` this process has in flight now (slots taken). */
export function updateSlotsInUse(workflowId: string): number {
  const semaphore = inFlight.get(workflowId);
  return semaphore ? MAX_IN_FLIGHT_UPDATES_PER_TEAM - semaphore.getValue() : 0;
}
/** Takes a slot for an Update whose lifetime is not one call; the returned function releases it. */
async function acquireUpdateSlot(workflowId: string, notAfter?: number): Promise<() => void> {
  const semaphore = semaphoreFor(workflowId);
  if (notAfter === undefined) {
    const [, release] = await semaphore.acquire();
    return release;
  }
  // A slot granted after the timeout is released at once by withTimeout.
  const busy = new DeadlineReached(`all ${MAX_IN_FLIGHT_UPDATES_PER_TEAM} in-flight Update slots this process has for the Team stayed taken`);
  const [, release] = await withTimeout(semaphore, Math.max(1, notAfter - Date.now()), busy).acquire();
  return release;
}
function semaphoreFor(workflowId: string): Semaphore {
  let semaphore = inFlight.get(workflowId);
  if (!semaphore) {
    semaphore = new Semaphore(MAX_IN_FLIGHT_UPDATES_PER_TEAM);
    inFlight.set(workflowId, semaphore);
  }
  return semaphore;
}

/** Answered, and (when a prompt is named) answered after the Lead took that prompt into its conversation. */
function isAnswered(view: defs.LeadAgentView, afterMessageId?: string): boolean {
  if (view.status !== 'answered' || view.finalAnswer === null) return false;
  if (afterMessageId === undefined) return true;
  return view.conversation.some((entry) => entry.role === 'user' && entry.messageId === afterMessageId);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Every call has a deadline (see TeamDeadlines: per kind, per client, per call) and ends by it,
 * with its result, a typed rejection, or TeamCallTimedOut.
 */
export class TeamClient {
  /** This client's deadlines: the defaults, overridden by the constructor's (see TeamDeadlines). */
  readonly deadlines: Readonly<TeamDeadlines>;

  constructor(
    readonly client: Client,
    readonly teamId: string,
    /** The member this client acts as. The operator of a Team is its Lead. */
    readonly caller: string = LEAD,
    deadlines: Partial<TeamDeadlines> = {},
    /**
     * Whether a typed Team rejection is reported to the Lead (`reportRejection`) so views show it.
     * Off by default: a rejected Update writes nothing to the Lead's history, and a report adds a
     * signal. The CLI and teammates' Team tool calls turn it on.
     */
    readonly reportsRejections: boolean = false,
  ) {
    this.deadlines = Object.freeze(resolveDeadlines(deadlines));
  }

  /** The same Team, caller and deadlines, reporting (or not) its typed rejections to the Lead's view. */
  reportingRejections(report = true): TeamClient {
    return new TeamClient(this.client, this.teamId, this.caller, this.deadlines, report);
  }

  /** Starts the Team's Lead workflow (workflow id = the Team's root SessionId). */
  static async start(client: Client, options: StartTeamOptions): Promise<TeamClient> {
    return TeamClient.startLead(client, options);
  }

  /**
   * Starts a new root (a new Team, `teamId`) as a fork of another root's Lead conversation: the
   * source Lead's `getAgentState` is read once and passed as `forkOf`. The source is untouched.
   */
  static async forkRoot(client: Client, options: ForkRootOptions): Promise<TeamClient> {
    if (options.sourceTeamId === options.teamId) {
      throw new Error(`a fork needs a new team id; ${options.teamId} is the source itself`);
    }
    let view: defs.LeadAgentView;
    try {
      view = await TeamClient.attach(client, options.sourceTeamId, LEAD, options.deadlines).agentState();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        throw ApplicationFailure.create({
          type: TEAM_NOT_FOUND,
          message: `no source Team ${options.sourceTeamId} to fork (${error.message}); check the id and namespace`,
          nonRetryable: true,
        });
      }
      throw error;
    }
    if (!view.enabled) {
      throw ApplicationFailure.create({
        type: NO_LEAD_AGENT,
        message:
          `Team ${options.sourceTeamId}'s Lead is not an agent (started without a prompt), so it has no conversation to fork; ` +
          `start a new Team with a prompt instead`,
        nonRetryable: true,
      });
    }
    const forkOf = { teamId: options.sourceTeamId, conversation: view.conversation };
    const bytes = Buffer.byteLength(JSON.stringify(forkOf));
    if (bytes > MAX_FORK_INPUT_BYTES) {
      throw ApplicationFailure.create({
        type: FORK_TOO_LARGE,
        message:
          `Team ${options.sourceTeamId}'s conversation is ${bytes} bytes, too large for a workflow input (limit ~${MAX_FORK_INPUT_BYTES}); ` +
          `start a new Team and pass a summary in its prompt`,
        nonRetryable: true,
      });
    }
    const agent = options.agent ? { profile: view.profile, cwd: view.cwd, ...options.agent } : undefined;
    return TeamClient.startLead(
      client,
      {
        teamId: options.teamId,
        ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
        ...(agent ? { agent } : {}),
        ...(options.deadlines ? { deadlines: options.deadlines } : {}),
      },
      forkOf,
    );
  }

  private static async startLead(client: Client, options: StartTeamOptions, forkOf?: defs.TeamLeadInput['forkOf']): Promise<TeamClient> {
    const team = new TeamClient(client, options.teamId, LEAD, options.deadlines);
    try {
      await team.call('start', team.deadlines.callMs, () =>
        client.workflow.start<defs.TeamLeadWorkflow>(defs.TEAM_LEAD_WORKFLOW_TYPE, {
          workflowId: options.teamId,
          taskQueue: options.taskQueue ?? defs.DEFAULT_TASK_QUEUE,
          args: [
            {
              teamId: options.teamId,
              ...(options.maxMembers !== undefined ? { maxMembers: options.maxMembers } : {}),
              ...(options.teammateMaxTurnsPerRun !== undefined ? { teammateMaxTurnsPerRun: options.teammateMaxTurnsPerRun } : {}),
              ...(options.legacyMailbox !== undefined ? { legacyMailbox: options.legacyMailbox } : {}),
              ...(options.agent !== undefined ? { agent: options.agent } : {}),
              ...(forkOf !== undefined ? { forkOf } : {}),
            },
          ],
          typedSearchAttributes: [
            { key: AGENT_TEAM_ID, value: options.teamId },
            { key: AGENT_TEAM_ROLE, value: 'lead' },
            { key: AGENT_TEAM_MEMBER, value: LEAD },
          ],
          ...startMetadata({
            teamId: options.teamId,
            name: LEAD,
            role: 'lead',
            context: leadContext(options.agent, forkOf?.teamId),
            model: options.agent?.model ?? null,
          }),
        }),
      );
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        throw ApplicationFailure.create({
          type: TEAM_ALREADY_STARTED,
          message: `Team ${options.teamId} is already running; attach to it with TeamClient.attach(client, "${options.teamId}") or pick another session id`,
          nonRetryable: true,
        });
      }
      throw error;
    }
    return team;
  }

  static attach(client: Client, teamId: string, caller: string = LEAD, deadlines: Partial<TeamDeadlines> = {}): TeamClient {
    return new TeamClient(client, teamId, caller, deadlines);
  }

  /** The same Team, acting as another member (the runtime supplies this, never a model). */
  as(caller: string): TeamClient {
    return new TeamClient(this.client, this.teamId, caller, this.deadlines, this.reportsRejections);
  }

  /** The same Team and caller with other deadlines (field by field over this client's). */
  withDeadlines(deadlines: Partial<TeamDeadlines>): TeamClient {
    return new TeamClient(this.client, this.teamId, this.caller, { ...this.deadlines, ...deadlines }, this.reportsRejections);
  }

  /** Always the latest run: continue-as-new is invisible to callers. */
  handle(): WorkflowHandle<defs.TeamLeadWorkflow> {
    return this.client.workflow.getHandle<defs.TeamLeadWorkflow>(this.teamId);
  }

  createTask(body: Omit<defs.CreateTaskRequest, 'caller'>, options?: CallOptions): Promise<TaskMutationResult> {
    return this.update(defs.createTaskUpdate, body, undefined, options);
  }
  editTask(body: Omit<defs.EditTaskRequest, 'caller'>, options?: CallOptions): Promise<TaskMutationResult> {
    return this.update(defs.editTaskUpdate, body, undefined, options);
  }
  claimTask(body: Omit<defs.ClaimTaskRequest, 'caller'>, options?: CallOptions): Promise<TaskMutationResult> {
    return this.update(defs.claimTaskUpdate, body, undefined, options);
  }
  assignTask(body: Omit<defs.AssignTaskRequest, 'caller'>, options?: CallOptions): Promise<TaskMutationResult> {
    return this.update(defs.assignTaskUpdate, body, undefined, options);
  }
  releaseTask(body: Omit<defs.ReleaseTaskRequest, 'caller'>, options?: CallOptions): Promise<TaskMutationResult> {
    return this.update(defs.releaseTaskUpdate, body, undefined, options);
  }
  transitionTask(body: Omit<defs.TransitionTaskRequest, 'caller'>, options?: CallOptions): Promise<TaskMutationResult> {
    return this.update(defs.transitionTaskUpdate, body, undefined, options);
  }
  deleteTask(body: Omit<defs.DeleteTaskRequest, 'caller'>, options?: CallOptions): Promise<TaskMutationResult> {
    return this.update(defs.deleteTaskUpdate, body, undefined, options);
  }
  readTask(taskId: number, options?: CallOptions): Promise<TaskView> {
    return this.update(defs.readTaskUpdate, { taskId }, undefined, options);
  }
  listTasks(options?: CallOptions): Promise<TaskView[]> {
    return this.update(defs.listTasksUpdate, {}, undefined, options);
  }

  /** One page of the board: the tasks after task id `after` (0: the first), within `maxBytes` of JSON; pass `nextAfter` on until it is null. */
  listTasksPage(page: { after?: number; maxBytes?: number } = {}, options?: CallOptions): Promise<TaskPage> {
    return this.update(defs.listTasksPageUpdate, page, undefined, options);
  }
  /** Deadline: `disposeMs` (it stops every teammate before it answers). */
  dispose(options?: CallOptions): Promise<TeamView> {
    return this.update(defs.disposeTeamUpdate, {}, undefined, options);
  }

  /**
   * Requests cancellation, what the Web UI's "Request Cancellation" and `temporal workflow cancel`
   * send, and waits until the Lead has closed. The Lead takes it as a disposal (admission closes,
   * admitted operations settle, every member stops) and ends CANCELLED; the report gives that
   * status as the server records it, and the Team's final view (a query, served by a worker).
   * Deadline: `disposeMs`.
   */
  async cancel(options?: CallOptions): Promise<{ status: string; view: TeamView }> {
    return this.call('cancel', options?.deadlineMs ?? this.deadlines.disposeMs, async () => {
      const handle = this.handle();
      await handle.cancel();
      // The close is the answer, whatever it is (CANCELLED after the disposal, or COMPLETED if a disposeTeam got there first).
      await handle.result().catch((error: unknown) => {
        if (!(error instanceof WorkflowFailedError)) throw error;
      });
      const { status } = await handle.describe();
      return { status: status.name, view: await handle.query(defs.getTeamViewQuery) };
    });
  }

  spawnTeammate(body: Omit<defs.SpawnTeammateRequest, 'caller'>, options?: CallOptions): Promise<defs.SpawnTeammateResult> {
    return this.update(defs.spawnTeammateUpdate, body, undefined, options);
  }
  /** Sends through the Lead into the target's inbox. The message id doubles as the update id, so a retry is delivered once. */
  sendMessage(to: string, content: JsonValue, messageId: string = randomUUID(), options?: CallOptions): Promise<defs.InboxAcceptance> {
    return this.update(defs.sendMessageUpdate, { to, content, messageId }, messageId, options);
  }
  interruptTeammate(name: string, options?: CallOptions): Promise<defs.InterruptResult> {
    return this.update(defs.interruptTeammateUpdate, { name }, undefined, options);
  }
  /** Deadline: `timeoutMs` plus the client's `waitMarginMs`, unless `options.deadlineMs` says otherwise. */
  waitForEdge(timeoutMs: number, kinds?: EdgeKind[], options?: CallOptions): Promise<defs.WaitResult> {
    return this.update(defs.waitForEdgeUpdate, kinds ? { timeoutMs, kinds } : { timeoutMs }, undefined, options);
  }
  readLeadInbox(options?: CallOptions): Promise<InboxMessage[]> {
    return this.update(defs.readLeadInboxUpdate, {}, undefined, options);
  }
  /** A follow-up prompt to the Lead agent (operator only). The message id doubles as the update id, so a retry is taken once. */
  promptLead(content: string, messageId: string = randomUUID(), options?: CallOptions): Promise<defs.InboxAcceptance> {
    return this.update(defs.promptLeadUpdate, { content, messageId }, messageId, options);
  }

  /**
   * Waits for the Lead agent's final answer without polling: it reads `getAgentState`; then each
   * round registers a durable `waitForEdge` (the Lead has admitted it when that returns) and reads
   * again, so any change after that second read wakes the wait. Resolves with the view once the status is
   * `answered` with a final answer (after `afterMessageId`, when given); rejects with
   * LeadAnswerTimeout after `timeoutMs`, NoLeadAgent if the Lead is not an agent, TeamClosed if
   * the Team finished unanswered, TeamCallTimedOut if the Lead stops answering the reads or waits
   * (each has its own deadline; the whole call ends within `timeoutMs` + `waitMarginMs`).
   */
  async waitForAnswer(options: WaitForAnswerOptions): Promise<defs.LeadAgentView> {
    checkDeadlineMs(options.timeoutMs, 'waitForAnswer timeoutMs');
    return this.call('waitForAnswer', options.timeoutMs + this.deadlines.waitMarginMs, () => this.waitForAnswerWithin(options));
  }

  private async waitForAnswerWithin(options: WaitForAnswerOptions): Promise<defs.LeadAgentView> {
    const deadline = Date.now() + options.timeoutMs;
    const slice = options.waitSliceMs ?? DEFAULT_WAIT_SLICE_MS;
    let edge: TeamEdge | null = null;
    let view = await this.answerOrNull(options, edge);
    for (;;) {
      if (view.done) return view.view;
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      // Read first, then register, then read again: the answer itself is a status edge, so a wait
      // registered before it always wakes on it and no wait is left open on the Lead (it would hold
      // one of its in-flight Update slots). Only an answer landing between the two reads leaves one
      // open, until its slice ends.
      let wait: AdmittedWait;
      try {
        wait = await this.startWaitForEdge(Math.max(1, Math.min(slice, remaining)));
      } catch (error) {
        if (!(error instanceof ApplicationFailure && error.type === TEAM_CLOSED)) throw error;
        // A finished Lead still answers the query: it may have answered before it closed.
        view = await this.answerOrNull(options, edge);
        if (view.done) return view.view;
        throw error;
      }
      view = await this.answerOrNull(options, edge, false);
      if (view.done) return view.view;
      edge = await this.settleWait(wait);
      view = await this.answerOrNull(options, edge);
    }
    throw ApplicationFailure.create({
      type: LEAD_ANSWER_TIMEOUT,
      message:
        `Team ${this.teamId}'s Lead agent has not answered within ${Math.round(options.timeoutMs / 1000)}s ` +
        `(status ${view.view.status}, turn ${view.view.turns}); ` +
        `it keeps working: wait again, or read its conversation`,
      details: [view.view],
      nonRetryable: true,
    });
  }

  /**
   * Registers a durable `waitForEdge` of `kinds` and returns once the Lead has admitted it, so a
   * read made after this returns misses nothing: any change after it wakes the wait. `next()`
   * resolves with the edge that woke it, or null when it timed out, the Lead rolled over or the
   * response was lost; register again either way. TeamClosed once the Team has finished.
   */
  async watchNextEdge(timeoutMs: number, kinds?: readonly EdgeKind[]): Promise<{ next(): Promise<TeamEdge | null> }> {
    const wait = await this.startWaitForEdge(timeoutMs, kinds);
    return { next: () => this.settleWait(wait) };
  }

  /** One read for waitForAnswer: reports progress, and throws when the Lead cannot answer. */
  private async answerOrNull(options: WaitForAnswerOptions, edge: TeamEdge | null, report = true): Promise<{ done: boolean; view: defs.LeadAgentView }> {
    const view = await this.agentState();
    if (!view.enabled) {
      throw ApplicationFailure.create({
        type: NO_LEAD_AGENT,
        message:
          `Team ${this.teamId}'s Lead is not an agent (started without a prompt), so it gives no answer; ` +
          `drive it with spawn/send/task, or start a Team with a prompt`,
        nonRetryable: true,
      });
    }
    if (report || isAnswered(view, options.afterMessageId)) options.onProgress?.(view, edge);
    if (view.status === 'failed' && (options.afterMessageId === undefined || view.conversation.some((e) => e.messageId === options.afterMessageId))) {
      throw ApplicationFailure.create({
        type: LEAD_TURN_FAILED,
        message: `Team ${this.teamId}'s Lead turn failed: ${view.lastError ?? 'unknown error'}`,
        details: [view],
        nonRetryable: true,
      });
    }
    return { done: isAnswered(view, options.afterMessageId), view };
  }

  view(options?: CallOptions): Promise<TeamView> {
    return this.query(defs.getTeamViewQuery.name, options, () => this.handle().query(defs.getTeamViewQuery));
  }
  /** The agentTeam wire projection (what the web panel shows). */
  agentTeamView(options?: CallOptions): Promise<AgentTeamView> {
    return this.query(defs.getAgentTeamViewQuery.name, options, () => this.handle().query(defs.getAgentTeamViewQuery));
  }
  task(taskId: number, options?: CallOptions): Promise<TaskSnapshot | null> {
    return this.query(defs.getTaskQuery.name, options, () => this.handle().query(defs.getTaskQuery, { taskId }));
  }
  liveStatus(options?: CallOptions): Promise<Record<string, defs.LiveStatus>> {
    return this.query(defs.getLiveStatusQuery.name, options, () => this.handle().query(defs.getLiveStatusQuery));
  }
  legacyMailbox(options?: CallOptions): Promise<LegacyMailbox> {
    return this.query(defs.getLegacyMailboxQuery.name, options, () => this.handle().query(defs.getLegacyMailboxQuery));
  }
  runInfo(options?: CallOptions): Promise<defs.LeadRunInfo> {
    return this.query(defs.getLeadRunInfoQuery.name, options, () => this.handle().query(defs.getLeadRunInfoQuery));
  }
  /** The Lead agent: status, turns, cwd, final answer and conversation (Query, no history written). */
  agentState(options?: CallOptions): Promise<defs.LeadAgentView> {
    return this.query(defs.getAgentStateQuery.name, options, async () => {
      try {
        return await this.handle().query(defs.getAgentStateQuery);
      } catch (error) {
        if (error instanceof QueryNotRegisteredError) {
          throw ApplicationFailure.create({
            type: NO_LEAD_AGENT,
            message: `Team ${this.teamId}'s Lead runs a version without the agent runtime (no getAgentState query); start a new Team on current workers`,
            nonRetryable: true,
          });
        }
        throw error;
      }
    });
  }
  /** A teammate's own state, conversation included (Query on its workflow, named by the roster). */
  teammateState(name: string, options?: CallOptions): Promise<defs.TeammateStateView> {
    return this.query('teammateState', options, async () => {
      const view = await this.view();
      const member = view.members.find((m) => m.name === name);
      if (!member) {
        const names = view.members.map((m) => m.name).join(', ') || 'none';
        throw ApplicationFailure.create({
          type: 'UnknownMember',
          message: `Team ${this.teamId} has no teammate "${name}" (teammates: ${names}); read the roster`,
          nonRetryable: true,
        });
      }
      return this.client.workflow.getHandle(member.workflowId).query(defs.getTeammateStateQuery);
    });
  }
  /**
   * What the server says about the Lead without a worker: run status, task queue, workers polling
   * it, failing workflow tasks (see `healthAdvice`). Throws WorkflowNotFoundError for an unknown Team.
   */
  health(options?: CallOptions): Promise<TeamHealth> {
    return this.query('describe', options, () => readTeamHealth(this.client, this.teamId));
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
    const request = { ...body, caller: this.caller } as Req;
    const facts = { operation: definition.name, kind: 'update', updateId, requestBytes: jsonBytes(request) } as const;
    try {
      return await this.call(
        definition.name,
        deadlineMs,
        (notAfter) =>
          this.retrying(notAfter, facts, () =>
            withUpdateSlot(this.teamId, () => this.handle().executeUpdate(definition, { args: [request], updateId }), notAfter),
          ),
        updateId,
      );
    } catch (error) {
      if (this.reportsRejections && error instanceof ApplicationFailure && isTeamRejectionType(error.type)) {
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
    const report: defs.RejectionReport = { caller: this.caller, operation, type, message: message.slice(0, MAX_REPORTED_MESSAGE_LENGTH) };
    try {
      // Not retried: a signal has no id to dedupe a second delivery by.
      await this.call('reportRejection', this.deadlines.callMs, () => this.handle().signal(defs.reportRejectionSignal, report));
    } catch {
      // The view misses one advisory entry; the caller still gets its rejection.
    }
  }

  /** The default deadline of an Update: a wait's own timeout plus the margin, disposal's, or the one for Updates. */
  private updateDeadlineMs(name: string, body: object): number {
    if (name === defs.waitForEdgeUpdate.name) {
      const timeoutMs = (body as { timeoutMs?: unknown }).timeoutMs;
      const wait = typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 0;
      return wait + this.deadlines.waitMarginMs;
    }
    if (name === defs.disposeTeamUpdate.name) return this.deadlines.disposeMs;
    return this.deadlines.updateMs;
  }

  /** A read (query or describe) by its deadline; what the server answers is retried or thrown typed, as for Updates. */
  private query<T>(name: string, options: CallOptions | undefined, run: () => Promise<T>): Promise<T> {
    return this.call(name, options?.deadlineMs ?? this.deadlines.callMs, (notAfter) => this.retrying(notAfter, { operation: name, kind: 'query' }, run));
  }

  /**
   * Runs one call by its deadline: `deadlineMs` from now, capped by any enclosing call's. Its gRPC
   * calls carry the deadline (`connection.withDeadline`) less a small reserve, which is kept to
   * diagnose the Lead when the call runs out; then it throws TeamCallTimedOut.
   */
  private async call<T>(operation: string, deadlineMs: number, run: (notAfter: number) => Promise<T>, updateId?: string): Promise<T> {
    checkDeadlineMs(deadlineMs, `${operation} deadline`);
    const started = Date.now();
    const end = deadlineFrom(deadlineMs, started);
    const notAfter = end - diagnosisReserveMs(end - started);
    try {
      return await runBefore(end, () => this.client.connection.withDeadline(notAfter, () => run(notAfter)));
    } catch (error) {
      if (error instanceof TeamCallTimedOut || !isDeadlineError(error)) throw error;
      const early = notAfter - Date.now() > 1_000;
      const reason =
        error instanceof DeadlineReached ? error.message : early ? `the server gave up after ${Math.round((Date.now() - started) / 100) / 10}s` : undefined;
      throw await this.timedOut(operation, end - started, end, reason, updateId);
    }
  }

  /** TeamCallTimedOut for `operation`, with the Lead diagnosed by `end` (epoch ms) when there is time left. */
  private async timedOut(
    operation: string,
    deadlineMs: number,
    end: number,
    reason: string | undefined,
    updateId: string | undefined,
  ): Promise<TeamCallTimedOut> {
    let health: TeamHealth | null = null;
    if (end - Date.now() > 10) {
      try {
        health = await this.client.connection.withDeadline(end, () => readTeamHealth(this.client, this.teamId));
      } catch {
        health = null;
      }
    }
    return new TeamCallTimedOut({
      teamId: this.teamId,
      operation,
      deadlineMs,
      ...(updateId !== undefined ? { updateId } : {}),
      ...(reason !== undefined ? { reason } : {}),
      health,
    });
  }

  /**
   * Starts a `waitForEdge` and returns once the Lead has admitted it (its waiter is registered) or
   * rejected it (seen in `result`), retrying lost responses like `update` with the same update id.
   * The in-flight slot is held until the wait settles; its result is awaited until `timeoutMs`
   * plus the margin (capped by the enclosing deadline).
   */
  private async startWaitForEdge(timeoutMs: number, kinds?: readonly EdgeKind[]): Promise<AdmittedWait> {
    const updateId = randomUUID();
    const started = Date.now();
    const end = deadlineFrom(timeoutMs + this.deadlines.waitMarginMs, started);
    const resultNotAfter = end - diagnosisReserveMs(end - started);
    return this.call(
      defs.waitForEdgeUpdate.name,
      this.deadlines.updateMs,
      async (notAfter) => {
        const release = await acquireUpdateSlot(this.teamId, notAfter);
        try {
          const handle = await this.retrying(notAfter, { operation: defs.waitForEdgeUpdate.name, kind: 'update', updateId }, () =>
            this.handle().startUpdate(defs.waitForEdgeUpdate, {
              args: [{ timeoutMs, caller: this.caller, ...(kinds ? { kinds: [...kinds] } : {}) }],
              updateId,
              waitForStage: 'ACCEPTED',
            }),
          );
          const result = this.client.connection.withDeadline(resultNotAfter, () => handle.result());
          result.then(release, release); // also marks a result nobody awaits (the answer was already there) as handled
          return { result, updateId, deadlineMs: end - started, end };
        } catch (error) {
          release();
          throw error;
        }
      },
      updateId,
    );
  }

  /**
   * The edge that woke the wait, or null: timeout, rollover, the response was lost while the Team
   * still runs, or the Lead rejected the wait because it is rolling over (startUpdate reports a
   * validator rejection only through the result; the caller then registers a new wait). A wait
   * the Lead does not answer by its deadline ends with TeamCallTimedOut.
   */
  private async settleWait(wait: AdmittedWait): Promise<TeamEdge | null> {
    try {
      const result = await wait.result;
      return result.woke === 'edge' ? result.edge : null;
    } catch (error) {
      const failure = error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure ? error.cause : null;
      if (failure && failure.type !== TEAM_ROLLING_OVER) throw failure;
      if (!failure && isDeadlineError(error)) {
        throw await this.timedOut(defs.waitForEdgeUpdate.name, wait.deadlineMs, wait.end, undefined, wait.updateId);
      }
      // A Team that finished meanwhile is found by the next registration, after one more read of the answer.
      await sleep(250);
      return null;
    }
  }

  /**
   * Runs one call until it is answered. What it throws is classified (client/callErrors.ts):
   * retriable errors are retried with the same request (an Update keeps its update id) until
   * `notAfter` (epoch ms), then DeadlineReached says why; the call's own deadline error goes up
   * to `call`; anything else is thrown typed.
   */
  private async retrying<T>(notAfter: number, facts: Omit<CallFacts, 'teamId'>, run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (isDeadlineError(error) && Date.now() >= notAfter - DEADLINE_SLACK_MS) throw error;
        const verdict = classifyCallError(error, { teamId: this.teamId, ...facts });
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
        message: `no Team ${this.teamId} (${error.message}); check the id and namespace`,
        nonRetryable: true,
      });
    }
    if (status !== 'RUNNING') {
      throw ApplicationFailure.create({ type: TEAM_CLOSED, message: `Team ${this.teamId} has finished; start a new Team to continue`, nonRetryable: true });
    }
  }
}
