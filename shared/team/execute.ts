import { applyAll } from './apply';
import type { CommandContext, TaskCommand } from './commands';
import { decideTask } from './decideTask';
import type { TeamEvent } from './events';
import type { TeamRejection } from './rejections';
import type { TeamState } from './state';
import { taskKey } from './task';
import type { TaskView } from './view';
import { taskView } from './view';

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
  const taskId = command.kind === 'createTask' ? state.nextTaskId : command.taskId;
  const task = next.tasks[taskKey(taskId)];
  if (!task) throw new TypeError(`executeTask: task ${taskId} missing after ${command.kind}`);
  return { ok: true, state: next, events: decision.events, result: { task: taskView(next, task) } };
}
