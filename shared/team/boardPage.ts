/**
 * One page of the board (issue 23, "shrink what is big"): `listTasks` answers with the whole board,
 * up to about 715 kB at its size limit; `listTasksPage` answers with the tasks after a cursor, by id,
 * up to a byte size the caller may lower (`maxBytes`). Many callers paging fill a workflow-task completion far
 * less than as many whole lists, and a page is never over LIST_PAGE_MAX_BYTES.
 *
 * Each page is the board as of its own completion: a task edited after its page was read shows
 * its old revision there, one created later appears on a later page if its id is past the cursor.
 * Pure: bundled into workflow code.
 */
import { jsonBytes } from '../contract/limits';
import type { TaskPage, TaskView } from '../contract/team';

/** The tasks of `board` (by id) after `after`, while their JSON stays within `maxBytes`; at least one when any is left. */
export function boardPage(board: readonly TaskView[], after: number, maxBytes: number): TaskPage {
  const rest = board.filter((task) => task.id > after);
  const tasks: TaskView[] = [];
  let bytes = 2; // []
  for (const task of rest) {
    const size = jsonBytes(task) + (tasks.length > 0 ? 1 : 0);
    if (tasks.length > 0 && bytes + size > maxBytes) break;
    tasks.push(task);
    bytes += size;
  }
  return { tasks, nextAfter: tasks.length < rest.length ? tasks[tasks.length - 1]!.id : null };
}
