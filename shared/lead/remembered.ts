/**
 * Remembered Updates: an idempotent Update's result, kept so that a retry with the same update id
 * is answered from memory instead of applied twice. All of it is here: the window the Lead's state
 * keeps (`recentUpdates`, carried across continue-as-new), the event that adds to it, and the
 * lookup that answers a retry.
 */
import { own } from '../util/own';
import { REMEMBERED_RESULT_MAX_BYTES, MAX_ID_LENGTH, jsonBytes } from '../contract/limits';
import { rejectionFailure } from '../contract/failures';
import { notFoundMessage, taskKey, taskView } from '../team';
import type { LeadEvent } from './events';
import type { LeadState, RecentUpdate } from './state';
import { reject } from '../contract/rejections';
import type { TaskView } from '../contract/team';

/** How many recent Update ids are remembered (and carried across continue-as-new) for de-duplication. */
export const RECENT_UPDATE_WINDOW = 256;

/** An idempotent Update's result, answered from memory when it is retried with the same id. */
export const updateRemembered = (updateId: string, result: unknown): LeadEvent[] => [{ type: 'updateRemembered', updateId, result }];

/**
 * The window with one more result (what applying `updateRemembered` does). Small results are
 * remembered whole; a task mutation's large result as its task id and revision (rebuilt from the
 * board on a retry), so the window stays small whatever the tasks hold. An id too long to remember
 * is not: a retry of it is not recognised (clients use UUIDs).
 */
export function rememberUpdate(recent: readonly RecentUpdate[], updateId: string, result: unknown): RecentUpdate[] {
  if (updateId.length > MAX_ID_LENGTH) return [...recent];
  const task = (result as { task?: { id?: unknown; revision?: unknown } } | null)?.task;
  const compact = jsonBytes(result) > REMEMBERED_RESULT_MAX_BYTES && typeof task?.id === 'number' && typeof task.revision === 'number';
  const next = [...recent, compact ? { updateId, taskId: task.id as number, revision: task.revision as number } : { updateId, result }];
  return next.length > RECENT_UPDATE_WINDOW ? next.slice(-RECENT_UPDATE_WINDOW) : next;
}

/**
 * The answer to a retried Update, or undefined when the id is not remembered. A task mutation's
 * large result was remembered as its task id and is rebuilt from the board (the task as it is now,
 * at the remembered revision or later); if that task has been forgotten since, TaskNotFound.
 */
export function rememberedResult(state: LeadState, updateId: string): unknown {
  const entry = state.recentUpdates.find((r) => r.updateId === updateId);
  if (!entry) return undefined;
  if (entry.taskId === undefined) return entry.result;
  const task = own(state.team.tasks, taskKey(entry.taskId));
  if (!task) throw rejectionFailure(reject('TaskNotFound', `${notFoundMessage(state.team, entry.taskId)} (this Update was applied earlier)`));
  return { task: taskView(state.team, task) satisfies TaskView };
}
