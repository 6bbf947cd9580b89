import { own } from '../util/own';
import { BOARD_MAX_BYTES, MAX_BOARD_TASKS, jsonBytes } from '../contract/limits';
import { apply } from './apply';
import type { TaskCommand } from '../contract/taskCommands';
import type { TeamEvent } from './events';
import type { TeamState } from './state';
import { taskKey } from './task';
import type { TaskSnapshot } from '../contract/team';

/**
 * The board's size limit, checked on the commands that add text (create, edit). The board's size
 * after the command is its size now plus the change to the one task the command touches (that
 * task is the only one its events change). Other commands change only fixed-size fields, so the
 * carried board stays within BOARD_MAX_BYTES plus a small, bounded slack.
 */
export function boardFullProblem(state: TeamState, command: TaskCommand, events: readonly TeamEvent[], maxBytes: number = BOARD_MAX_BYTES): string | null {
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
  if (bytes <= maxBytes) return null;
  // The rejection reaches histories (the Lead agent's tool results): its words stay as recorded.
  return (
    `this ${command.kind} would bring the board to ${bytes} bytes, over its budget of ${maxBytes}; ` +
    `delete finished tasks or shorten descriptions and write scopes, then retry`
  );
}
