import type { AgentStatus } from '../contract/vocabulary';
import { readinessProblem } from './decideTask';
import type { TeamState } from './state';
import { taskKey } from './task';
import { own } from '../util/own';
import { buildOverlapIndex, overlapsOf, type OverlapIndex } from './overlapIndex';
import { MAX_OVERLAPS_PER_TASK, VIEW_OVERLAP_MAX_BYTES, jsonBytes } from '../contract/limits';
import type { WriteScopeOverlap, TaskMutationResult, TaskView, TeamView, TaskSnapshot } from '../contract/team';
import { LEAD } from '../contract/callers';

/** Live tasks are the ones whose write scopes still matter: not deleted, not finished. */
export function isLiveTask(task: TaskSnapshot): boolean {
  return !task.deleted && (task.status === 'pending' || task.status === 'in_progress');
}

/** The index of the live tasks' scopes, built once per board (state.tasks is replaced on every task event). */
const indexes = new WeakMap<TeamState['tasks'], OverlapIndex>();
function overlapIndex(state: TeamState): OverlapIndex {
  let index = indexes.get(state.tasks);
  if (!index) {
    index = buildOverlapIndex(Object.values(state.tasks).filter(isLiveTask));
    indexes.set(state.tasks, index);
  }
  return index;
}

/**
 * The overlaps of `task` with live tasks: the first `limit` listed, the rest counted. Overlaps grow
 * with the product of the scopes, so a view lists a bounded number and says how many it left out.
 */
export function writeScopeOverlaps(
  state: TeamState,
  task: TaskSnapshot,
  limit: number = MAX_OVERLAPS_PER_TASK,
): { overlaps: WriteScopeOverlap[]; omitted: number } {
  if (task.writeScopes.length === 0 || task.deleted) return { overlaps: [], omitted: 0 };
  return overlapsOf(overlapIndex(state), task, isLiveTask(task), limit);
}

export function taskView(state: TeamState, task: TaskSnapshot, overlapLimit: number = MAX_OVERLAPS_PER_TASK): TaskView {
  const { overlaps, omitted } = writeScopeOverlaps(state, task, overlapLimit);
  return { ...task, ready: readinessProblem(state, task) === null, overlaps, overlapsOmitted: omitted };
}

/** Non-deleted tasks in id order; overlaps listed until the view's overlap limit (VIEW_OVERLAP_MAX_BYTES) is reached, counted after. */
export function boardView(state: TeamState): TaskView[] {
  let overlapBytes = 0;
  return Object.values(state.tasks)
    .filter((t) => !t.deleted)
    .sort((a, b) => a.id - b.id)
    .map((t) => {
      const view = taskView(state, t, overlapBytes < VIEW_OVERLAP_MAX_BYTES ? MAX_OVERLAPS_PER_TASK : 0);
      overlapBytes += jsonBytes(view.overlaps);
      return view;
    });
}

export function teamView(state: TeamState, leadStatus: AgentStatus | null = null): TeamView {
  return {
    teamId: state.teamId,
    admission: state.admission,
    maxMembers: state.maxMembers,
    lead: { name: LEAD, role: 'lead', phase: 'active', status: leadStatus },
    members: Object.values(state.members),
    tasks: boardView(state),
    nextTaskId: state.nextTaskId,
  };
}

/** The task a mutation changed, as it now is. */
export function mutationResult(state: TeamState, taskId: number): TaskMutationResult {
  const task = own(state.tasks, taskKey(taskId));
  if (!task) throw new TypeError(`mutationResult: task ${taskId} is not on the board`);
  return { task: taskView(state, task) };
}
