import { readinessProblem } from './decideTask';
import type { MemberRecord } from './roster';
import { LEAD } from './roster';
import type { TeamState } from './state';
import type { TaskSnapshot } from './task';
import { scopesOverlap } from './writeScopes';

/** One advisory overlap: `scope` of this task intersects `otherScope` of live task `taskId`. */
export interface WriteScopeOverlap {
  taskId: number;
  scope: string;
  otherScope: string;
}

export interface TaskView extends TaskSnapshot {
  ready: boolean;
  overlaps: WriteScopeOverlap[];
}

export interface LeadRow {
  name: typeof LEAD;
  role: 'lead';
  phase: 'active';
}

/** What the `getTeamView` query returns: the Lead pseudo-row, the roster, and the non-deleted tasks. */
export interface TeamView {
  teamId: string;
  admission: TeamState['admission'];
  maxMembers: number;
  lead: LeadRow;
  members: MemberRecord[];
  tasks: TaskView[];
  nextTaskId: number;
}

/** Live tasks are the ones whose write scopes still matter: not deleted, not finished. */
export function isLiveTask(task: TaskSnapshot): boolean {
  return !task.deleted && (task.status === 'pending' || task.status === 'in_progress');
}

export function writeScopeOverlaps(state: TeamState, task: TaskSnapshot): WriteScopeOverlap[] {
  if (task.writeScopes.length === 0) return [];
  const overlaps: WriteScopeOverlap[] = [];
  for (const other of Object.values(state.tasks)) {
    if (other.id === task.id || !isLiveTask(other)) continue;
    for (const scope of task.writeScopes) {
      for (const otherScope of other.writeScopes) {
        if (scopesOverlap(scope, otherScope)) overlaps.push({ taskId: other.id, scope, otherScope });
      }
    }
  }
  return overlaps;
}

export function taskView(state: TeamState, task: TaskSnapshot): TaskView {
  return { ...task, ready: readinessProblem(state, task) === null, overlaps: writeScopeOverlaps(state, task) };
}

export function teamView(state: TeamState): TeamView {
  return {
    teamId: state.teamId,
    admission: state.admission,
    maxMembers: state.maxMembers,
    lead: { name: LEAD, role: 'lead', phase: 'active' },
    members: Object.values(state.members),
    tasks: Object.values(state.tasks)
      .filter((t) => !t.deleted)
      .sort((a, b) => a.id - b.id)
      .map((t) => taskView(state, t)),
    nextTaskId: state.nextTaskId,
  };
}
