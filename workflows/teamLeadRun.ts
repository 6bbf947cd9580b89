/**
 * The Lead's in-run logic, kept out of the workflow function so that file only wires handlers.
 * Validators call `validate*` (synchronous, throw ApplicationFailure, never mutate); handlers call
 * `apply*`, which re-decides against the state at that moment: if another Update changed the task
 * in between, the handler rejects with the same typed failure instead of applying stale intent.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { z } from 'zod';
import type { CarriedLeadState, ReadTaskRequest, RecentUpdate } from '../shared/definitions';
import { invalidInputFailure, rejectionFailure, rollingOverFailure } from '../shared/failures';
import type { TaskCommand, TaskCommandKind, TaskMutationResult, TaskView, TeamState } from '../shared/team';
import { TASK_COMMAND_BODIES, LEAD, emptyTeamState, executeTask, isActingMember, reject, taskKey, taskView, teamView } from '../shared/team';

/** Updates accepted per run before rolling over; well under the server's 2,000 per run. */
export const MAX_ACCEPTED_UPDATES_PER_RUN = 1_000;
/** How many recent update ids are remembered (and carried across continue-as-new) for de-duplication. */
export const RECENT_UPDATE_WINDOW = 256;

const callerSchema = z.strictObject({ caller: z.string().min(1).max(100) });
const readTaskSchema = z.strictObject({ caller: z.string().min(1).max(100), taskId: z.number().int().positive() });

export class TeamLeadRun {
  state: TeamState;
  private recent: RecentUpdate[];
  readonly continuedRuns: number;
  acceptedUpdatesThisRun = 0;
  disposeRequested = false;

  constructor(teamId: string, maxMembers: number | undefined, carried: CarriedLeadState | undefined) {
    this.state = carried?.state ?? emptyTeamState(teamId, maxMembers);
    this.recent = carried?.recentUpdates ?? [];
    this.continuedRuns = carried?.continuedRuns ?? 0;
  }

  /** True once this run should stop accepting Updates and continue as new. */
  mustRollOver(continueAsNewSuggested: boolean): boolean {
    return continueAsNewSuggested || this.acceptedUpdatesThisRun >= MAX_ACCEPTED_UPDATES_PER_RUN;
  }

  carry(): CarriedLeadState {
    return { state: this.state, recentUpdates: this.recent, continuedRuns: this.continuedRuns + 1 };
  }

  // ---- task commands -------------------------------------------------------------------------

  validateTaskCommand(kind: TaskCommandKind, input: unknown, updateId: string, rollingOver: boolean, now: string): void {
    if (rollingOver) throw rollingOverFailure();
    if (this.recentResult(updateId) !== undefined) return; // a retry of an applied Update: answered from memory
    const { caller, command } = parseTaskCommand(kind, input);
    const outcome = executeTask(this.state, command, { caller, now });
    if (!outcome.ok) throw rejectionFailure(outcome.rejection);
  }

  applyTaskCommand(kind: TaskCommandKind, input: unknown, updateId: string, now: string): TaskMutationResult {
    const remembered = this.recentResult(updateId);
    if (remembered !== undefined) return remembered as TaskMutationResult;
    const { caller, command } = parseTaskCommand(kind, input);
    const outcome = executeTask(this.state, command, { caller, now });
    if (!outcome.ok) throw rejectionFailure(outcome.rejection);
    this.state = outcome.state;
    this.remember(updateId, outcome.result);
    return outcome.result;
  }

  // ---- reads ---------------------------------------------------------------------------------

  validateRead(input: unknown, rollingOver: boolean): void {
    if (rollingOver) throw rollingOverFailure();
    const { caller } = parseWith('listTasks', callerSchema, input);
    this.requireMember(caller);
  }

  validateReadTask(input: unknown, rollingOver: boolean): ReadTaskRequest {
    if (rollingOver) throw rollingOverFailure();
    const request = parseWith('readTask', readTaskSchema, input);
    this.requireMember(request.caller);
    if (!this.state.tasks[taskKey(request.taskId)]) {
      throw rejectionFailure(reject('TaskNotFound', `task ${request.taskId} does not exist; list the board to see valid ids`));
    }
    return request;
  }

  readTask(input: unknown): TaskView {
    const request = parseWith('readTask', readTaskSchema, input);
    const task = this.state.tasks[taskKey(request.taskId)];
    if (!task) throw rejectionFailure(reject('TaskNotFound', `task ${request.taskId} does not exist`));
    this.countAccepted();
    return taskView(this.state, task);
  }

  listTasks(): TaskView[] {
    this.countAccepted();
    return teamView(this.state).tasks;
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  validateDispose(input: unknown): void {
    const { caller } = parseWith('disposeTeam', callerSchema, input);
    if (caller !== LEAD) throw rejectionFailure(reject('LeadOnly', 'only the Lead disposes its Team'));
  }

  requireMember(caller: string): void {
    if (!isActingMember(this.state, caller)) {
      throw rejectionFailure(reject('NotATeamMember', `"${caller}" is not an active member of Team ${this.state.teamId}`));
    }
  }

  private recentResult(updateId: string): unknown {
    return this.recent.find((r) => r.updateId === updateId)?.result;
  }

  private remember(updateId: string, result: unknown): void {
    this.countAccepted();
    this.recent.push({ updateId, result });
    if (this.recent.length > RECENT_UPDATE_WINDOW) this.recent = this.recent.slice(-RECENT_UPDATE_WINDOW);
  }

  private countAccepted(): void {
    this.acceptedUpdatesThisRun += 1;
  }
}

function parseWith<T>(updateName: string, schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidInputFailure(updateName, parsed.error);
  return parsed.data;
}

function parseTaskCommand(kind: TaskCommandKind, input: unknown): { caller: string; command: TaskCommand } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw ApplicationFailure.create({ type: 'InvalidTeamCommand', message: `${kind} takes one object argument; see the wire contract in README.md`, nonRetryable: true });
  }
  const { caller, ...body } = input as Record<string, unknown>;
  const { caller: parsedCaller } = parseWith(kind, callerSchema, { caller });
  const parsedBody = parseWith(kind, TASK_COMMAND_BODIES[kind] as z.ZodType<object>, body);
  return { caller: parsedCaller, command: { kind, ...parsedBody } as TaskCommand };
}

