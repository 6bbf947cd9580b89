/**
 * The typed client over the Temporal client SDK: start a Team (its Lead workflow), then drive it
 * through the wire contract in shared/definitions.ts. Used by the CLI, the demo, tests and benchmarks.
 */
import { randomUUID } from 'node:crypto';
import {
  type Client,
  type WorkflowHandle,
  WorkflowUpdateFailedError,
  isGrpcServiceError,
  WorkflowExecutionAlreadyStartedError,
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
import type { EdgeKind } from '../shared/teamEdges';
import type { teamLead } from '../workflows/teamLead';

export interface StartTeamOptions {
  teamId: string;
  taskQueue?: string;
  maxMembers?: number;
  teammateMaxTurnsPerRun?: number;
  /** Historical Lead-log mailbox records to keep readable (never delivered). */
  legacyMailbox?: unknown[];
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
  let semaphore = inFlight.get(workflowId);
  if (!semaphore) {
    semaphore = new Semaphore(MAX_IN_FLIGHT_UPDATES_PER_TEAM);
    inFlight.set(workflowId, semaphore);
  }
  return semaphore.runExclusive(call);
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
          },
        ],
        typedSearchAttributes: [
          { key: AGENT_TEAM_ID, value: options.teamId },
          { key: AGENT_TEAM_ROLE, value: 'lead' },
        ],
      });
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        throw new Error(`Team ${options.teamId} is already running; attach to it with TeamClient.attach(client, "${options.teamId}") or pick another session id`);
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

  /**
   * Executes an attributed Update. One update id is used for every attempt, so a retry after a
   * lost response is answered from the Lead's memory instead of being applied twice. Rolling-over
   * rejections and a run closing under an in-flight Update are retried until the deadline.
   * Typed rejections are thrown as the ApplicationFailure the Lead raised (`.type`, `.details[0]`).
   */
  async update<Ret, Req extends defs.Attributed>(definition: UpdateDefinition<Ret, [Req]>, body: Omit<Req, 'caller'>, updateId: string = randomUUID()): Promise<Ret> {
    const deadline = Date.now() + this.retry.deadlineMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await withUpdateSlot(this.teamId, () => this.handle().executeUpdate(definition, { args: [{ ...body, caller: this.caller } as Req], updateId }));
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
          throw new Error(`Team ${this.teamId}: ${definition.name} was still retriable after ${this.retry.deadlineMs}ms (${String(error)}${cause}); is a worker running on its task queue?`);
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
