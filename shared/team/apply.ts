import { own } from '../util/own';
import type { TeamEvent } from './events';
import type { TeamState } from './state';
import { taskKey } from './task';
import { MAX_TOMBSTONES } from '../contract/limits';
import type { MemberPhase } from '../contract/vocabulary';
import type { MemberRecord, TaskSnapshot } from '../contract/team';

/**
 * Applies one event. Returns a new state object and replaces only the collection the event
 * touches, so a view publisher can compare references. Events come from `decide`, which has
 * already checked them; an event naming an unknown task or member is a programming error.
 */
export function apply(state: TeamState, event: TeamEvent): TeamState {
  switch (event.type) {
    case 'taskCreated': {
      const task: TaskSnapshot = {
        id: event.taskId,
        revision: 1,
        subject: event.subject,
        description: event.description,
        status: 'pending',
        owner: null,
        dependencies: event.dependencies,
        writeScopes: event.writeScopes,
        deleted: false,
        createdBy: event.createdBy,
        createdAt: event.at,
        updatedAt: event.at,
      };
      return { ...state, tasks: { ...state.tasks, [taskKey(task.id)]: task }, nextTaskId: event.taskId + 1 };
    }
    case 'taskEdited':
      return withTask(state, event.taskId, event.at, (t) => ({ ...t, ...event.changes }));
    case 'taskClaimed':
      return withTask(state, event.taskId, event.at, (t) => ({ ...t, owner: event.owner, status: 'in_progress' }));
    case 'taskAssigned':
      return withTask(state, event.taskId, event.at, (t) => ({ ...t, owner: event.owner }));
    case 'taskReleased':
      return withTask(state, event.taskId, event.at, (t) => ({ ...t, owner: null, status: 'pending' }));
    case 'taskStatusChanged':
      return withTask(state, event.taskId, event.at, (t) => ({ ...t, status: event.status }));
    case 'taskDeleted':
      // A tombstone keeps the task's identity, status and owner; its text and scopes no longer
      // matter to anyone and are dropped, and only the newest MAX_TOMBSTONES are kept at all.
      return forgetOldTombstones(withTask(state, event.taskId, event.at, (t) => ({ ...t, description: '', writeScopes: [], deleted: true })));
    case 'memberProvisioning': {
      const member: MemberRecord = {
        name: event.name,
        phase: 'provisioning',
        context: event.context,
        workflowId: event.workflowId,
        model: event.model,
        failure: null,
        revision: 1,
        createdAt: event.at,
        updatedAt: event.at,
      };
      return { ...state, members: { ...state.members, [event.name]: member } };
    }
    case 'memberActivated':
      return withMemberPhase(state, event.name, 'active', event.at, null);
    case 'memberFailed':
      return withMemberPhase(state, event.name, 'failed', event.at, event.reason);
    case 'memberStopped':
      return withMemberPhase(state, event.name, 'stopped', event.at, null);
    case 'admissionClosed':
      return { ...state, admission: 'closed' };
    default: {
      const _never: never = event;
      return _never;
    }
  }
}

export function applyAll(state: TeamState, events: readonly TeamEvent[]): TeamState {
  return events.reduce(apply, state);
}

function withTask(state: TeamState, taskId: number, at: string, change: (task: TaskSnapshot) => TaskSnapshot): TeamState {
  const key = taskKey(taskId);
  const current = own(state.tasks, key);
  if (!current) throw new TypeError(`apply: task ${taskId} does not exist (decide must reject this first)`);
  const next = { ...change(current), revision: current.revision + 1, updatedAt: at };
  return { ...state, tasks: { ...state.tasks, [key]: next } };
}

function withMemberPhase(state: TeamState, name: string, phase: MemberPhase, at: string, failure: string | null): TeamState {
  const current = own(state.members, name);
  if (!current) throw new TypeError(`apply: member ${name} does not exist (decide must reject this first)`);
  const next: MemberRecord = { ...current, phase, failure: failure ?? current.failure, revision: current.revision + 1, updatedAt: at };
  return { ...state, members: { ...state.members, [name]: next } };
}

/** Keeps the newest MAX_TOMBSTONES tombstones (highest ids); a forgotten id is still never reused. */
function forgetOldTombstones(state: TeamState): TeamState {
  const tombstones = Object.values(state.tasks).filter((t) => t.deleted);
  if (tombstones.length <= MAX_TOMBSTONES) return state;
  const forget = new Set(
    tombstones
      .sort((a, b) => a.id - b.id)
      .slice(0, tombstones.length - MAX_TOMBSTONES)
      .map((t) => t.id),
  );
  const tasks: Record<string, TaskSnapshot> = {};
  for (const task of Object.values(state.tasks)) if (!forget.has(task.id)) tasks[taskKey(task.id)] = task;
  return { ...state, tasks };
}
