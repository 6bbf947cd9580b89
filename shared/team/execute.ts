import { own } from '../own';
import { apply, applyAll } from './apply';
import type { CommandContext, TaskCommand } from './commands';
import type { Decision } from './decideTask';
import { decideTask } from './decideTask';
import type { TeamEvent } from './events';
import type { TeamRejection } from './rejections';
import type { TeamState } from './state';
import type { TaskSnapshot } from './task';
import { taskKey } from './task';
import type { TaskView } from './view';
import { taskView } from './view';
import { reject } from './rejections';
import { BOARD_BUDGET_BYTES, MAX_BOARD_TASKS, jsonBytes } from '../limits';

/** What every task mutation returns: the task as it now is, with readiness and overlap diagnostics. */
export interface TaskMutationResult {
  task: TaskView;
}

/** A task command's decision: the events, and the id of the task they change (a created task's new id). */
export type TaskDecision = { ok: true; events: TeamEvent[]; taskId: number } | { ok: false; rejection: TeamRejection };

/**
 * Decides one task command, board budget included, without applying it: what a validator runs.
 * The handler applies the events once and reads the result from the state they produced.
 */
export function decideTaskCommand(state: TeamState, command: TaskCommand, ctx: CommandContext): TaskDecision {
  const decision: Decision = decideTask(state, command, ctx);
  if (!decision.ok) return decision;
  const full = boardFullProblem(state, command, decision.events);
  if (full) return { ok: false, rejection: reject('BoardFull', full) };
  return { ok: true, events: decision.events, taskId: command.kind === 'createTask' ? state.nextTaskId : command.taskId };
}

export type Execution = { ok: true; state: TeamState; events: TeamEvent[]; result: TaskMutationResult } | { ok: false; rejection: TeamRejection };

/** decide + apply + view for one task command (the board's tests drive the core through this). A rejection leaves `state` untouched. */
export function executeTask(state: TeamState, command: TaskCommand, ctx: CommandContext): Execution {
  const decision = decideTaskCommand(state, command, ctx);
  if (!decision.ok) return decision;
  const next = applyAll(state, decision.events);
  return { ok: true, state: next, events: decision.events, result: mutationResult(next, decision.taskId) };
}

/** The task a mutation changed, as it now is. */
export function mutationResult(state: TeamState, taskId: number): TaskMutationResult {
  const task = own(state.tasks, taskKey(taskId));
  if (!task) throw new TypeError(`mutationResult: task ${taskId} is not on the board`);
  return { task: taskView(state, task) };
}

/**
 * The board's size budget, checked on the commands that add text (create, edit). The board's size
 * after the command is its size now plus the change to the one task the command touches (that
 * task is the only one its events change). Other commands change only fixed-size fields, so the
 * carried board stays within BOARD_BUDGET_BYTES plus a small, bounded slack.
 */
export function boardFullProblem(state: TeamState, command: TaskCommand, events: readonly TeamEvent[], budget: number = BOARD_BUDGET_BYTES): string | null {
  if (command.kind !== 'createTask' && command.kind !== 'editTask') return null;
  const tasks = Object.values(state.tasks);
  if (command.kind === 'createTask' && tasks.filter((t) => !t.deleted).length + 1 > MAX_BOARD_TASKS) {
    return `the board already holds ${MAX_BOARD_TASKS} tasks; delete finished or cancelled tasks before creating more`;
  }
  const taskId = command.kind === 'createTask' ? state.nextTaskId : command.taskId;
  const key = taskKey(taskId);
  const before: TaskSnapshot | undefined = own(state.tasks, key);
  const alone = (task: TaskSnapshot | undefined): Record<string, TaskSnapshot> => (task ? { [key]: task } : {});
  const after = own(events.reduce(apply, { ...state, tasks: alone(before) }).tasks, key);
  // A new entry in a non-empty record adds a separating comma too.
  const comma = before === undefined && tasks.length > 0 ? 1 : 0;
  const bytes = jsonBytes(state.tasks) + jsonBytes(alone(after)) - jsonBytes(alone(before)) + comma;
  if (bytes <= budget) return null;
  return (
    `this ${command.kind} would bring the board to ${bytes} bytes, over its budget of ${budget}; ` +
    `delete finished tasks or shorten descriptions and write scopes, then retry`
  );
}
