import { own } from '../own';
import { applyAll } from './apply';
import type { CommandContext, TaskCommand } from './commands';
import { decideTask } from './decideTask';
import type { TeamEvent } from './events';
import type { TeamRejection } from './rejections';
import type { TeamState } from './state';
import { taskKey } from './task';
import type { TaskView } from './view';
import { taskView } from './view';
import { reject } from './rejections';
import { BOARD_BUDGET_BYTES, MAX_BOARD_TASKS, jsonBytes } from '../limits';

/** What every task mutation returns: the task as it now is, with readiness and overlap diagnostics. */
export interface TaskMutationResult {
  task: TaskView;
}

export type Execution =
  | { ok: true; state: TeamState; events: TeamEvent[]; result: TaskMutationResult }
  | { ok: false; rejection: TeamRejection };

/** decide + apply for one task command. A rejection leaves `state` untouched (it is never mutated). */
export function executeTask(state: TeamState, command: TaskCommand, ctx: CommandContext): Execution {
  const decision = decideTask(state, command, ctx);
  if (!decision.ok) return decision;
  const next = applyAll(state, decision.events);
  const full = boardFullProblem(next, command);
  if (full) return { ok: false, rejection: reject('BoardFull', full) };
  const taskId = command.kind === 'createTask' ? state.nextTaskId : command.taskId;
  const task = own(next.tasks, taskKey(taskId));
  if (!task) throw new TypeError(`executeTask: task ${taskId} missing after ${command.kind}`);
  return { ok: true, state: next, events: decision.events, result: { task: taskView(next, task) } };
}

/**
 * The board's size budget, checked on the commands that add text (create, edit) against the state
 * they would produce. Other commands change only fixed-size fields, so the carried board stays
 * within BOARD_BUDGET_BYTES plus a small, bounded slack.
 */
export function boardFullProblem(next: TeamState, command: TaskCommand): string | null {
  if (command.kind !== 'createTask' && command.kind !== 'editTask') return null;
  const tasks = Object.values(next.tasks);
  if (command.kind === 'createTask' && tasks.filter((t) => !t.deleted).length > MAX_BOARD_TASKS) {
    return `the board already holds ${MAX_BOARD_TASKS} tasks; delete finished or cancelled tasks before creating more`;
  }
  const bytes = jsonBytes(next.tasks);
  if (bytes <= BOARD_BUDGET_BYTES) return null;
  return `this ${command.kind} would bring the board to ${bytes} bytes, over its budget of ${BOARD_BUDGET_BYTES}; delete finished tasks or shorten descriptions and write scopes, then retry`;
}
