/**
 * The typed client over the Temporal client SDK, the facade of the wire contract (shared/contract/,
 * docs/wire-contract.md): start a Team, then one short method per Update; the Queries are its base,
 * client/teamReads.ts. Every call ends by its deadline (client/deadlines.ts) with its result, a typed
 * rejection, or TeamCallTimedOut saying what to do next. The work lives beside it: teamCalls.ts runs
 * calls, updateSlots.ts bounds Updates in flight, teamStart.ts starts and forks, answerWait.ts waits.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import * as defs from '../shared/contract';
import type { JsonValue } from '../shared/contract/json';
import { type CallOptions, type TeamDeadlines, resolveDeadlines } from './deadlines';
import { TeamReads } from './teamReads';
import { cancelTeam } from './teamCancel';
import { type WaitForAnswerOptions, waitForAnswer, watchNextEdge } from './answerWait';
import { TeamCalls } from './teamCalls';
import { type ForkOf, type ForkRootOptions, type StartTeamOptions, forkRootStart, startLeadWorkflow } from './teamStart';
import { type TeamView, LEAD, type EdgeKind, type TeamEdge } from '../shared/contract';

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
export { FORK_TOO_LARGE, LEAD_ANSWER_TIMEOUT, LEAD_TURN_FAILED, NO_LEAD_AGENT, TEAM_ALREADY_STARTED, TEAM_NOT_FOUND } from './failures';
export { MAX_IN_FLIGHT_UPDATES_PER_TEAM, updateSlotsInUse, withUpdateSlot } from './updateSlots';
export type { ForkRootOptions, StartTeamOptions } from './teamStart';
export type { WaitForAnswerOptions } from './answerWait';

/** What a caller sends with the Lead's Update K, from its registry entry, without `caller` (the client supplies it). */
type Body<K extends defs.LeadUpdateName> = Omit<defs.LeadUpdateRequest<K>, 'caller'>;
/** What the Lead's Update K answers, from its registry entry. */
type Result<K extends defs.LeadUpdateName> = defs.LeadUpdateResult<K>;

/** Who a client acts as when none is named: the Lead, so code written before the operator caller keeps its authority. */
const DEFAULT_CALLER: string = LEAD;

/** Every call has a deadline (TeamDeadlines: per kind, per client, per call) and ends by it. */
export class TeamClient extends TeamReads {
  /** This client's deadlines: the defaults, overridden by the constructor's (see TeamDeadlines). */
  readonly deadlines: Readonly<TeamDeadlines>;
  /** Runs this client's calls (client/teamCalls.ts). */
  protected readonly calls: TeamCalls;

  constructor(
    readonly client: Client,
    readonly teamId: string,
    /** Who this client acts as: a teammate's name, "lead", or the operator ("@operator", shared/contract/callers.ts). */
    readonly caller: string = DEFAULT_CALLER,
    deadlines: Partial<TeamDeadlines> = {},
    /**
     * Whether a typed Team rejection is reported to the Lead (`reportRejection`) so views show it.
     * Off by default: a rejected Update writes nothing to the Lead's history, and a report adds a
     * signal. The CLI and teammates' Team tool calls turn it on.
     */
    readonly reportsRejections: boolean = false,
  ) {
    super();
    // Every way a Team id enters the client (start, fork, attach, as): outside the grammar it is the typed InvalidTeamId, before any call.
    defs.checkTeamId(teamId);
    this.deadlines = Object.freeze(resolveDeadlines(deadlines));
    this.calls = new TeamCalls(this);
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
    const readSource = () => TeamClient.attach(client, options.sourceTeamId, DEFAULT_CALLER, options.deadlines).agentState();
    const { start, forkOf } = await forkRootStart(options, readSource);
    return TeamClient.startLead(client, start, forkOf);
  }

  private static async startLead(client: Client, options: StartTeamOptions, forkOf?: ForkOf): Promise<TeamClient> {
    const team = new TeamClient(client, options.teamId, DEFAULT_CALLER, options.deadlines);
    await startLeadWorkflow(team.calls, options, forkOf);
    return team;
  }

  static attach(client: Client, teamId: string, caller: string = DEFAULT_CALLER, deadlines: Partial<TeamDeadlines> = {}): TeamClient {
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

  /** The same Team, caller and deadlines, reporting (or not) its typed rejections to the Lead's view. */
  reportingRejections(report = true): TeamClient {
    return new TeamClient(this.client, this.teamId, this.caller, this.deadlines, report);
  }

  /**
   * Executes an attributed Update as this client's caller, by its deadline, with one update id for
   * every attempt (so it is applied at most once); what the Lead or the server answers is retried
   * or thrown typed (client/teamCalls.ts `update` says which).
   */
  update<Ret, Req extends defs.Attributed>(
    definition: UpdateDefinition<Ret, [Req]>,
    body: Omit<Req, 'caller'>,
    updateId: string = randomUUID(),
    options: CallOptions = {},
  ): Promise<Ret> {
    return this.calls.update(definition, body, updateId, options);
  }

  // Updates, in the order of docs/wire-contract.md; each takes its request and answers its result as its registry entry says.

  createTask(body: Body<'createTask'>, options?: CallOptions): Promise<Result<'createTask'>> {
    return this.update(defs.createTaskUpdate, body, undefined, options);
  }
  editTask(body: Body<'editTask'>, options?: CallOptions): Promise<Result<'editTask'>> {
    return this.update(defs.editTaskUpdate, body, undefined, options);
  }
  claimTask(body: Body<'claimTask'>, options?: CallOptions): Promise<Result<'claimTask'>> {
    return this.update(defs.claimTaskUpdate, body, undefined, options);
  }
  assignTask(body: Body<'assignTask'>, options?: CallOptions): Promise<Result<'assignTask'>> {
    return this.update(defs.assignTaskUpdate, body, undefined, options);
  }
  releaseTask(body: Body<'releaseTask'>, options?: CallOptions): Promise<Result<'releaseTask'>> {
    return this.update(defs.releaseTaskUpdate, body, undefined, options);
  }
  transitionTask(body: Body<'transitionTask'>, options?: CallOptions): Promise<Result<'transitionTask'>> {
    return this.update(defs.transitionTaskUpdate, body, undefined, options);
  }
  deleteTask(body: Body<'deleteTask'>, options?: CallOptions): Promise<Result<'deleteTask'>> {
    return this.update(defs.deleteTaskUpdate, body, undefined, options);
  }
  readTask(taskId: number, options?: CallOptions): Promise<Result<'readTask'>> {
    return this.update(defs.readTaskUpdate, { taskId }, undefined, options);
  }
  listTasks(options?: CallOptions): Promise<Result<'listTasks'>> {
    return this.update(defs.listTasksUpdate, {}, undefined, options);
  }
  /** One page of the board: the tasks after task id `after` (0: the first), within `maxBytes` of JSON; pass `nextAfter` on until it is null. */
  listTasksPage(page: Body<'listTasksPage'> = {}, options?: CallOptions): Promise<Result<'listTasksPage'>> {
    return this.update(defs.listTasksPageUpdate, page, undefined, options);
  }
  /** `disposeTeam`. Deadline: `disposeMs` (it stops every teammate before it answers). */
  dispose(options?: CallOptions): Promise<Result<'disposeTeam'>> {
    return this.update(defs.disposeTeamUpdate, {}, undefined, options);
  }
  spawnTeammate(body: Body<'spawnTeammate'>, options?: CallOptions): Promise<Result<'spawnTeammate'>> {
    return this.update(defs.spawnTeammateUpdate, body, undefined, options);
  }
  /** Sends through the Lead into the target's inbox. The message id doubles as the update id, so a retry is delivered once. */
  sendMessage(to: string, content: JsonValue, messageId: string = randomUUID(), options?: CallOptions): Promise<Result<'sendMessage'>> {
    return this.update(defs.sendMessageUpdate, { to, content, messageId }, messageId, options);
  }
  readLeadInbox(options?: CallOptions): Promise<Result<'readLeadInbox'>> {
    return this.update(defs.readLeadInboxUpdate, {}, undefined, options);
  }
  interruptTeammate(name: string, options?: CallOptions): Promise<Result<'interruptTeammate'>> {
    return this.update(defs.interruptTeammateUpdate, { name }, undefined, options);
  }
  /**
   * Deadline: `timeoutMs` plus the client's `waitMarginMs`, unless `options.deadlineMs` says
   * otherwise. `options.afterSeq`: the last edge seen (a watcher's previous one), so none in between is missed.
   */
  waitForEdge(timeoutMs: number, kinds?: EdgeKind[], options?: CallOptions & { afterSeq?: number }): Promise<Result<'waitForEdge'>> {
    const { afterSeq, ...call } = options ?? {};
    const body = { timeoutMs, ...(kinds ? { kinds } : {}), ...(afterSeq !== undefined ? { afterSeq } : {}) };
    return this.update(defs.waitForEdgeUpdate, body, undefined, call);
  }
  /** A follow-up prompt to the Lead agent (operator only). The message id doubles as the update id, so a retry is taken once. */
  promptLead(content: string, messageId: string = randomUUID(), options?: CallOptions): Promise<Result<'promptLead'>> {
    return this.update(defs.promptLeadUpdate, { content, messageId }, messageId, options);
  }
  /** Replaces a teammate's budget, or the Lead agent's ("lead"): the operator may set any, the Lead only lower one. */
  setBudget(name: string, budget: defs.BudgetLimits, options?: CallOptions): Promise<Result<'setBudget'>> {
    return this.update(defs.setBudgetUpdate, { name, budget }, undefined, options);
  }

  // Waits built on waitForEdge (client/answerWait.ts).

  /**
   * Registers a durable `waitForEdge` of `kinds` and returns once the Lead has admitted it, so a
   * read made after this returns misses nothing: any change after it wakes the wait. `next()`
   * resolves with the edge that woke it, or null when it timed out, the Lead rolled over or the
   * response was lost; register again either way. TeamClosed once the Team has finished.
   */
  watchNextEdge(timeoutMs: number, kinds?: readonly EdgeKind[]): Promise<{ next(): Promise<TeamEdge | null> }> {
    return watchNextEdge(this.calls, timeoutMs, kinds);
  }
  /**
   * Waits for the Lead agent's final answer without polling (durable waits between reads of
   * `getAgentState`). Resolves with the view once it is `answered` (after `afterMessageId`, when
   * given); rejects with LeadAnswerTimeout after `timeoutMs`, NoLeadAgent, TeamClosed, or
   * TeamCallTimedOut. The whole call ends within `timeoutMs` + `waitMarginMs`.
   */
  waitForAnswer(options: WaitForAnswerOptions): Promise<defs.LeadAgentView> {
    return waitForAnswer(this.calls, () => this.agentState(), options);
  }

  /**
   * Requests cancellation (the Web UI's "Request Cancellation") and waits until the Lead has closed:
   * it takes it as a disposal and ends CANCELLED (client/teamCancel.ts). Deadline: `disposeMs`.
   */
  cancel(options?: CallOptions): Promise<{ status: string; view: TeamView }> {
    return cancelTeam(this.calls, options?.deadlineMs ?? this.deadlines.disposeMs);
  }
}
