/**
 * The typed client over the Temporal client SDK: start a Team (its Lead workflow), then drive it
 * through the wire contract in shared/definitions.ts. Used by the CLI, the demo, tests and benchmarks.
 */
import { randomUUID } from 'node:crypto';
import {
  type Client,
  type WorkflowHandle,
  QueryNotRegisteredError,
  WorkflowUpdateFailedError,
  isGrpcServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import { Semaphore } from 'async-mutex';
import * as defs from '../shared/definitions';
import { TEAM_CLOSED, TEAM_ROLLING_OVER } from '../shared/failures';
import { AGENT_TEAM_ID, AGENT_TEAM_ROLE } from '../shared/searchAttributes';
import type { LegacyMailbox, TaskMutationResult, TaskSnapshot, TaskView, TeamView } from '../shared/team';
import { LEAD } from '../shared/team';
import type { InboxMessage } from '../shared/inbox';
import type { JsonValue } from '../shared/json';
import type { EdgeKind, TeamEdge } from '../shared/teamEdges';
import type { teamLead } from '../workflows/teamLead';

export interface StartTeamOptions {
  teamId: string;
  taskQueue?: string;
  maxMembers?: number;
  teammateMaxTurnsPerRun?: number;
  /** Historical Lead-log mailbox records to keep readable (never delivered). */
  legacyMailbox?: unknown[];
  /** Makes the Lead an agent (opening prompt, profile, model, cwd, checkout queue); absent = operator-driven. */
  agent?: defs.LeadAgentOptions;
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
}

export interface WaitForAnswerOptions {
  /** Give up (LeadAnswerTimeout) after this long. */
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

const DEFAULT_WAIT_SLICE_MS = 30_000;
/** The server rejects payloads over 2 MB (default blob size limit); stay well below. */
const MAX_FORK_INPUT_BYTES = 1_500_000;

/** A `waitForEdge` the Lead has admitted; `result` settles when it wakes. */
interface AdmittedWait {
  result: Promise<defs.WaitResult>;
}

export interface RetryOptions {
  /** Total time to keep retrying a retriable rejection (rolling over, run closing) before giving up. */
  deadlineMs: number;
}

const DEFAULT_RETRY: RetryOptions = { deadlineMs: 60_000 };

/**
 * The server admits 10 in-flight Updates per workflow and answers the 11th with
 * RESOURCE_EXHAUSTED; a burst of retries beyond that collapses throughput (admitted Updates get
 * aborted and retried in a storm). So each process keeps at most this many Updates in flight per
 * Team and queues the rest locally, leaving headroom for other processes.
 */
export const MAX_IN_FLIGHT_UPDATES_PER_TEAM = 8;
const inFlight = new Map<string, Semaphore>();
/** Runs `call` once fewer than MAX_IN_FLIGHT_UPDATES_PER_TEAM Updates to `workflowId` are in flight from this process. */
export function withUpdateSlot<T>(workflowId: string, call: () => Promise<T>): Promise<T> {
  return semaphoreFor(workflowId).runExclusive(call);
}
/** Takes a slot for an Update whose lifetime is not one call; the returned function releases it. */
async function acquireUpdateSlot(workflowId: string): Promise<() => void> {
  const [, release] = await semaphoreFor(workflowId).acquire();
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

export class TeamClient {
  constructor(
    readonly client: Client,
    readonly teamId: string,
    /** The member this client acts as. The operator of a Team is its Lead. */
    readonly caller: string = LEAD,
    private readonly retry: RetryOptions = DEFAULT_RETRY,
  ) {}

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
      view = await TeamClient.attach(client, options.sourceTeamId).agentState();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        throw ApplicationFailure.create({ type: 'TeamNotFound', message: `no source Team ${options.sourceTeamId} to fork (${error.message}); check the id and namespace`, nonRetryable: true });
      }
      throw error;
    }
    if (!view.enabled) {
      throw ApplicationFailure.create({
        type: NO_LEAD_AGENT,
        message: `Team ${options.sourceTeamId}'s Lead is not an agent (started without a prompt), so it has no conversation to fork; start a new Team with a prompt instead`,
        nonRetryable: true,
      });
    }
    const forkOf = { teamId: options.sourceTeamId, conversation: view.conversation };
    const bytes = Buffer.byteLength(JSON.stringify(forkOf));
    if (bytes > MAX_FORK_INPUT_BYTES) {
      throw ApplicationFailure.create({
        type: FORK_TOO_LARGE,
        message: `Team ${options.sourceTeamId}'s conversation is ${bytes} bytes, too large for a workflow input (limit ~${MAX_FORK_INPUT_BYTES}); start a new Team and pass a summary in its prompt`,
        nonRetryable: true,
      });
    }
    const agent = options.agent ? { profile: view.profile, cwd: view.cwd, ...options.agent } : undefined;
    return TeamClient.startLead(client, { teamId: options.teamId, ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}), ...(agent ? { agent } : {}) }, forkOf);
  }

  private static async startLead(client: Client, options: StartTeamOptions, forkOf?: defs.TeamLeadInput['forkOf']): Promise<TeamClient> {
    try {
      await client.workflow.start<typeof teamLead>(defs.TEAM_LEAD_WORKFLOW_TYPE, {
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
        ],
      });
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
    return new TeamClient(client, options.teamId);
  }

  static attach(client: Client, teamId: string, caller: string = LEAD): TeamClient {
    return new TeamClient(client, teamId, caller);
  }

  /** The same Team, acting as another member (the runtime supplies this, never a model). */
  as(caller: string): TeamClient {
    return new TeamClient(this.client, this.teamId, caller, this.retry);
  }

  /** Always the latest run: continue-as-new is invisible to callers. */
  handle(): WorkflowHandle<typeof teamLead> {
    return this.client.workflow.getHandle<typeof teamLead>(this.teamId);
  }

  createTask(body: Omit<defs.CreateTaskRequest, 'caller'>): Promise<TaskMutationResult> {
    return this.update(defs.createTaskUpdate, body);
  }
  editTask(body: Omit<defs.EditTaskRequest, 'caller'>): Promise<TaskMutationResult> {
    return this.update(defs.editTaskUpdate, body);
  }
  claimTask(body: Omit<defs.ClaimTaskRequest, 'caller'>): Promise<TaskMutationResult> {
    return this.update(defs.claimTaskUpdate, body);
  }
  assignTask(body: Omit<defs.AssignTaskRequest, 'caller'>): Promise<TaskMutationResult> {
    return this.update(defs.assignTaskUpdate, body);
  }
  releaseTask(body: Omit<defs.ReleaseTaskRequest, 'caller'>): Promise<TaskMutationResult> {
    return this.update(defs.releaseTaskUpdate, body);
  }
  transitionTask(body: Omit<defs.TransitionTaskRequest, 'caller'>): Promise<TaskMutationResult> {
    return this.update(defs.transitionTaskUpdate, body);
  }
  deleteTask(body: Omit<defs.DeleteTaskRequest, 'caller'>): Promise<TaskMutationResult> {
    return this.update(defs.deleteTaskUpdate, body);
  }
  readTask(taskId: number): Promise<TaskView> {
    return this.update(defs.readTaskUpdate, { taskId });
  }
  listTasks(): Promise<TaskView[]> {
    return this.update(defs.listTasksUpdate, {});
  }
  dispose(): Promise<TeamView> {
    return this.update(defs.disposeTeamUpdate, {});
  }

  spawnTeammate(body: Omit<defs.SpawnTeammateRequest, 'caller'>): Promise<defs.SpawnTeammateResult> {
    return this.update(defs.spawnTeammateUpdate, body);
  }
  /** Sends through the Lead into the target's inbox. The message id doubles as the update id, so a retry is delivered once. */
  sendMessage(to: string, content: JsonValue, messageId: string = randomUUID()): Promise<defs.InboxAcceptance> {
    return this.update(defs.sendMessageUpdate, { to, content, messageId }, messageId);
  }
  interruptTeammate(name: string): Promise<defs.InterruptResult> {
    return this.update(defs.interruptTeammateUpdate, { name });
  }
  waitForEdge(timeoutMs: number, kinds?: EdgeKind[]): Promise<defs.WaitResult> {
    return this.update(defs.waitForEdgeUpdate, kinds ? { timeoutMs, kinds } : { timeoutMs });
  }
  readLeadInbox(): Promise<InboxMessage[]> {
    return this.update(defs.readLeadInboxUpdate, {});
  }
  /** A follow-up prompt to the Lead agent (operator only). The message id doubles as the update id, so a retry is taken once. */
  promptLead(content: string, messageId: string = randomUUID()): Promise<defs.InboxAcceptance> {
    return this.update(defs.promptLeadUpdate, { content, messageId }, messageId);
  }

  /**
   * Waits for the Lead agent's final answer without polling: each round first registers a durable
   * `waitForEdge` (the Lead has admitted it when this returns), then reads `getAgentState`, so
   * any change after that read wakes the wait. Resolves with the view once the status is
   * `answered` with a final answer (after `afterMessageId`, when given); rejects with
   * LeadAnswerTimeout after `timeoutMs`, NoLeadAgent if the Lead is not an agent, TeamClosed if
   * the Team finished unanswered.
   */
  async waitForAnswer(options: WaitForAnswerOptions): Promise<defs.LeadAgentView> {
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
      message: `Team ${this.teamId}'s Lead agent has not answered within ${Math.round(options.timeoutMs / 1000)}s (status ${view.view.status}, turn ${view.view.turns}); it keeps working: wait again, or read its conversation`,
      details: [view.view],
      nonRetryable: true,
    });
  }

  /** One read for waitForAnswer: reports progress, and throws when the Lead cannot answer. */
  private async answerOrNull(options: WaitForAnswerOptions, edge: TeamEdge | null, report = true): Promise<{ done: boolean; view: defs.LeadAgentView }> {
    const view = await this.agentState();
    if (!view.enabled) {
      throw ApplicationFailure.create({
        type: NO_LEAD_AGENT,
        message: `Team ${this.teamId}'s Lead is not an agent (started without a prompt), so it gives no answer; drive it with spawn/send/task, or start a Team with a prompt`,
        nonRetryable: true,
      });
    }
    if (report || isAnswered(view, options.afterMessageId)) options.onProgress?.(view, edge);
    if (view.status === 'failed' && (options.afterMessageId === undefined || view.conversation.some((e) => e.messageId === options.afterMessageId))) {
      throw ApplicationFailure.create({ type: LEAD_TURN_FAILED, message: `Team ${this.teamId}'s Lead turn failed: ${view.lastError ?? 'unknown error'}`, details: [view], nonRetryable: true });
    }
    return { done: isAnswered(view, options.afterMessageId), view };
  }

  view(): Promise<TeamView> {
    return this.handle().query(defs.getTeamViewQuery);
  }
  task(taskId: number): Promise<TaskSnapshot | null> {
    return this.handle().query(defs.getTaskQuery, { taskId });
  }
  liveStatus(): Promise<Record<string, defs.LiveStatus>> {
    return this.handle().query(defs.getLiveStatusQuery);
  }
  legacyMailbox(): Promise<LegacyMailbox> {
    return this.handle().query(defs.getLegacyMailboxQuery);
  }
  runInfo(): Promise<defs.LeadRunInfo> {
    return this.handle().query(defs.getLeadRunInfoQuery);
  }
  /** The Lead agent: status, turns, cwd, final answer and conversation (Query, no history written). */
  async agentState(): Promise<defs.LeadAgentView> {
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
  }
  /** A teammate's own state, conversation included (Query on its workflow, named by the roster). */
  async teammateState(name: string): Promise<defs.TeammateStateView> {
    const view = await this.view();
    const member = view.members.find((m) => m.name === name);
    if (!member) {
      const names = view.members.map((m) => m.name).join(', ') || 'none';
      throw ApplicationFailure.create({ type: 'UnknownMember', message: `Team ${this.teamId} has no teammate "${name}" (teammates: ${names}); read the roster`, nonRetryable: true });
    }
    return this.client.workflow.getHandle(member.workflowId).query(defs.getTeammateStateQuery);
  }

  /**
   * Executes an attributed Update. One update id is used for every attempt, so a retry after a
   * lost response is answered from the Lead's memory instead of being applied twice. Rolling-over
   * rejections and a run closing under an in-flight Update are retried until the deadline.
   * Typed rejections are thrown as the ApplicationFailure the Lead raised (`.type`, `.details[0]`).
   */
  async update<Ret, Req extends defs.Attributed>(definition: UpdateDefinition<Ret, [Req]>, body: Omit<Req, 'caller'>, updateId: string = randomUUID()): Promise<Ret> {
    return this.retrying(definition.name, () =>
      withUpdateSlot(this.teamId, () => this.handle().executeUpdate(definition, { args: [{ ...body, caller: this.caller } as Req], updateId })),
    );
  }

  /**
   * Starts a `waitForEdge` and returns once the Lead has admitted it (its waiter is registered) or
   * rejected it (seen in `result`), retrying lost responses like `update` with the same update id.
   * The in-flight slot is held until the wait settles.
   */
  private async startWaitForEdge(timeoutMs: number): Promise<AdmittedWait> {
    const updateId = randomUUID();
    const release = await acquireUpdateSlot(this.teamId);
    try {
      const handle = await this.retrying(defs.waitForEdgeUpdate.name, () =>
        this.handle().startUpdate(defs.waitForEdgeUpdate, { args: [{ timeoutMs, caller: this.caller }], updateId, waitForStage: 'ACCEPTED' }),
      );
      const result = handle.result();
      result.then(release, release); // also marks a result nobody awaits (the answer was already there) as handled
      return { result };
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * The edge that woke the wait, or null: timeout, rollover, the response was lost while the Team
   * still runs, or the Lead rejected the wait because it is rolling over (startUpdate reports a
   * validator rejection only through the result; the caller then registers a new wait).
   */
  private async settleWait(wait: AdmittedWait): Promise<TeamEdge | null> {
    try {
      const result = await wait.result;
      return result.woke === 'edge' ? result.edge : null;
    } catch (error) {
      const failure = error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure ? error.cause : null;
      if (failure && failure.type !== TEAM_ROLLING_OVER) throw failure;
      // A Team that finished meanwhile is found by the next registration, after one more read of the answer.
      await new Promise((resolve) => setTimeout(resolve, 250));
      return null;
    }
  }

  /**
   * Runs one Update call until it is answered. Rolling-over rejections and a run closing under an
   * in-flight Update are retried (the caller reuses its update id) until the deadline.
   */
  private async retrying<T>(name: string, call: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.retry.deadlineMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        const failure = error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure ? error.cause : null;
        if (failure && failure.type !== TEAM_ROLLING_OVER) throw failure;
        const retriable = failure !== null || (await this.isRunClosingUnder(error));
        if (!retriable) {
          if (await this.isClosed()) {
            throw ApplicationFailure.create({ type: TEAM_CLOSED, message: `Team ${this.teamId} has finished; start a new Team to continue`, nonRetryable: true });
          }
          throw error;
        }
        if (Date.now() > deadline) {
          const cause = error instanceof Error && error.cause instanceof Error ? ` caused by ${error.cause.message}` : '';
          throw new Error(`Team ${this.teamId}: ${name} was still retriable after ${this.retry.deadlineMs}ms (${String(error)}${cause}); is a worker running on its task queue?`);
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * attempt, 1_000)));
      }
    }
  }

  /** An Update that lost its run to continue-as-new surfaces as a gRPC/timeout error while the Team still runs. */
  private async isRunClosingUnder(error: unknown): Promise<boolean> {
    if (error instanceof WorkflowUpdateFailedError) return false;
    const grpcish = isGrpcServiceError(error) || (error instanceof Error && /update|completed|closing|not found|cancel|timeout/i.test(error.message));
    if (!grpcish) return false;
    return !(await this.isClosed());
  }

  private async isClosed(): Promise<boolean> {
    try {
      const description = await this.handle().describe();
      return description.status.name !== 'RUNNING';
    } catch {
      return false;
    }
  }
}
