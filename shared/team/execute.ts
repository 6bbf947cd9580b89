import { own } from '../util/own';
import { applyAll } from './apply';
import type { CommandContext, TaskCommand } from '../contract/taskCommands';
import { decideTask } from './decideTask';
import type { TeamEvent } from './events';
import type { TeamRejection } from '../contract/rejections';
import type { TeamState } from './state';
import { taskKey } from './task';
import { taskView } from './view';
import type { TaskMutationResult } from '../contract/team';

export type { TaskMutationResult } from '../contract/team';

export type Execution = { ok: true; state: TeamState; events: TeamEvent[]; result: TaskMutationResult } | { ok: false; rejection: TeamRejection };

/** decide + apply + view for one task command (the board's tests drive the core through this). A rejection leaves `state` untouched. */
export function executeTask(state: TeamState, command: TaskCommand, ctx: CommandContext): Execution {
  const decision = decideTask(state, command, ctx);
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
