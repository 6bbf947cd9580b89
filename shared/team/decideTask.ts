import { own } from '../util/own';
import { boardFullProblem } from './boardSize';
import type { CommandContext, TaskCommand } from '../contract/taskCommands';
import { findDependencyCycle } from './dependencies';
import type { TeamEvent } from './events';
import type { TeamRejection } from '../contract/rejections';
import { reject } from '../contract/rejections';
import type { TeamState } from './state';
import { isActingMember, mayAct } from './state';
import { isTransitionAllowed, taskKey } from './task';
import { normalizeWriteScopes } from './writeScopes';
import { OPERATOR, hasLeadAuthority } from '../contract/callers';
import type { TaskSnapshot } from '../contract/team';

export type Decision = { ok: true; events: TeamEvent[] } | { ok: false; rejection: TeamRejection };

const accept = (...events: TeamEvent[]): Decision => ({ ok: true, events });
const refuse = (rejection: TeamRejection): Decision => ({ ok: false, rejection });

/** A task command's decision: the events, and the id of the task they change (a created task's new id). */
export type TaskDecision = { ok: true; events: TeamEvent[]; taskId: number } | { ok: false; rejection: TeamRejection };

/**
 * Decides one task command against the current state, without applying it: the events to apply
 * and the task they change, or a typed rejection. Checks run in a fixed order (membership,
 * existence, tombstone, revision, authority, rules, then the board's size limit) so a racing
 * caller with a stale revision always sees TaskRevisionConflict with the current snapshot.
 */
export function decideTask(state: TeamState, command: TaskCommand, ctx: CommandContext): TaskDecision {
  const decision = decideByRules(state, command, ctx);
  if (!decision.ok) return decision;
  const full = boardFullProblem(state, command, decision.events);
  if (full) return { ok: false, rejection: reject('BoardFull', full) };
  return { ok: true, events: decision.events, taskId: command.kind === 'createTask' ? state.nextTaskId : command.taskId };
}

/** The task rules alone: who may do what to which task, at which revision. */
function decideByRules(state: TeamState, command: TaskCommand, ctx: CommandContext): Decision {
  if (!mayAct(state, ctx.caller)) {
    return refuse(
      reject(
        'NotATeamMember',
        `"${ctx.caller}" is not an active member of Team ${state.teamId}; only the operator, the Lead and live teammates act on the board`,
      ),
    );
  }
  if (command.kind === 'createTask') return decideCreate(state, command, ctx);

  const task = own(state.tasks, taskKey(command.taskId));
  if (!task) return refuse(reject('TaskNotFound', notFoundMessage(state, command.taskId)));
  if (task.deleted) return refuse(reject('TaskDeleted', `task ${task.id} was deleted; its tombstone can be read but not changed`, { currentTask: task }));
  if (task.revision !== command.expectedRevision) {
    return refuse(
      reject(
        'TaskRevisionConflict',
        `task ${task.id} is at revision ${task.revision}, not ${command.expectedRevision}; re-read it and retry against the current snapshot`,
        {
          currentTask: task,
        },
      ),
    );
  }
  const isLead = hasLeadAuthority(ctx.caller);
  const isOwnerOrLead = isLead || task.owner === ctx.caller;
  const notOwner = (): Decision =>
    refuse(reject('TaskAuthorityViolation', `only the owner (${task.owner ?? 'none'}) or the Lead may ${command.kind} task ${task.id}`, { currentTask: task }));

  switch (command.kind) {
    case 'editTask': {
      if (!isOwnerOrLead) return notOwner();
      const changes: Extract<TeamEvent, { type: 'taskEdited' }>['changes'] = {};
      if (command.subject !== undefined) changes.subject = command.subject;
      if (command.description !== undefined) changes.description = command.description;
      if (command.writeScopes !== undefined) {
        const scopes = normalizeWriteScopes(command.writeScopes);
        if (!scopes.ok) return refuse(reject('InvalidWriteScope', scopes.reason, { currentTask: task }));
        changes.writeScopes = scopes.scopes;
      }
      if (command.dependencies !== undefined) {
        if (task.status !== 'pending') {
          return refuse(
            reject('InvalidTaskDependency', `task ${task.id} is ${task.status}; dependencies can change only while it is pending`, { currentTask: task }),
          );
        }
        const problem = dependencyProblem(state, command.dependencies, task.id);
        if (problem) return refuse({ ...problem, currentTask: task });
        changes.dependencies = unique(command.dependencies);
      }
      return accept({ type: 'taskEdited', taskId: task.id, changes, at: ctx.now });
    }
    case 'claimTask': {
      const blocker = readinessProblem(state, task);
      if (blocker) return refuse(reject('TaskNotReady', `task ${task.id} cannot be claimed: ${blocker}`, { currentTask: task }));
      // An owner is someone on the roster who does the work; the operator directs it instead.
      if (ctx.caller === OPERATOR) {
        return refuse(
          reject('NotATeamMember', `the operator owns no tasks: assign task ${task.id} to the Lead or a teammate (assignTask), or claim it as one of them`, {
            currentTask: task,
          }),
        );
      }
      return accept({ type: 'taskClaimed', taskId: task.id, owner: ctx.caller, at: ctx.now });
    }
    case 'assignTask': {
      if (!isLead) return refuse(reject('LeadOnly', `only the Lead assigns tasks; use claimTask to take a ready task yourself`, { currentTask: task }));
      if (task.status === 'completed' || task.status === 'cancelled') {
        return refuse(reject('InvalidTaskTransition', `task ${task.id} is ${task.status}; reopen it before assigning`, { currentTask: task }));
      }
      if (command.owner === null) {
        if (task.owner === null) return refuse(reject('InvalidTaskTransition', `task ${task.id} has no owner to remove`, { currentTask: task }));
        return accept({ type: 'taskReleased', taskId: task.id, at: ctx.now });
      }
      if (!isActingMember(state, command.owner)) {
        return refuse(
          reject('UnknownAssignee', `"${command.owner}" is not a live member; assign to the Lead or a provisioning/active teammate`, { currentTask: task }),
        );
      }
      return accept({ type: 'taskAssigned', taskId: task.id, owner: command.owner, at: ctx.now });
    }
    case 'releaseTask': {
      if (!isOwnerOrLead) return notOwner();
      if (task.owner === null) return refuse(reject('InvalidTaskTransition', `task ${task.id} has no owner to release`, { currentTask: task }));
      if (task.status === 'completed' || task.status === 'cancelled') {
        return refuse(reject('InvalidTaskTransition', `task ${task.id} is ${task.status}; finished tasks keep their owner`, { currentTask: task }));
      }
      return accept({ type: 'taskReleased', taskId: task.id, at: ctx.now });
    }
    case 'transitionTask': {
      if (!isOwnerOrLead) return notOwner();
      if (!isTransitionAllowed(task.status, command.status)) {
        return refuse(
          reject('InvalidTaskTransition', `task ${task.id} cannot go from ${task.status} to ${command.status}; see the status table`, { currentTask: task }),
        );
      }
      if (command.status === 'in_progress') {
        if (task.owner === null) return refuse(reject('TaskNotReady', `task ${task.id} has no owner; claim or assign it first`, { currentTask: task }));
        const waiting = unfinishedDependencies(state, task);
        if (waiting.length > 0) return refuse(reject('TaskNotReady', `task ${task.id} waits for dependencies ${waiting.join(', ')}`, { currentTask: task }));
      }
      return accept({ type: 'taskStatusChanged', taskId: task.id, status: command.status, at: ctx.now });
    }
    case 'deleteTask': {
      if (!isOwnerOrLead) return notOwner();
      const dependents = Object.values(state.tasks).filter((t) => !t.deleted && t.dependencies.includes(task.id));
      if (dependents.length > 0) {
        return refuse(
          reject('TaskHasDependents', `task ${task.id} is a dependency of ${dependents.map((t) => t.id).join(', ')}; edit those tasks first`, {
            currentTask: task,
          }),
        );
      }
      return accept({ type: 'taskDeleted', taskId: task.id, at: ctx.now });
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

function decideCreate(state: TeamState, command: Extract<TaskCommand, { kind: 'createTask' }>, ctx: CommandContext): Decision {
  if (state.nextTaskId > Number.MAX_SAFE_INTEGER) {
    return refuse(reject('TaskIdsExhausted', `Team ${state.teamId} has used every safe task id; ids are never reused, so start a new Team`));
  }
  const scopes = normalizeWriteScopes(command.writeScopes);
  if (!scopes.ok) return refuse(reject('InvalidWriteScope', scopes.reason));
  const problem = dependencyProblem(state, command.dependencies, null);
  if (problem) return refuse(problem);
  return accept({
    type: 'taskCreated',
    taskId: state.nextTaskId,
    subject: command.subject,
    description: command.description,
    dependencies: unique(command.dependencies),
    writeScopes: scopes.scopes,
    createdBy: ctx.caller,
    at: ctx.now,
  });
}

function dependencyProblem(state: TeamState, dependencies: readonly number[], selfId: number | null): TeamRejection | null {
  for (const dep of dependencies) {
    if (dep === selfId) return reject('TaskDependencyCycle', `task ${dep} cannot depend on itself`, { cycle: [dep, dep] });
    const target = own(state.tasks, taskKey(dep));
    if (!target) return reject('InvalidTaskDependency', `dependency ${dep} does not exist`);
    if (target.deleted) return reject('InvalidTaskDependency', `dependency ${dep} was deleted; nothing may depend on a tombstone`);
  }
  if (selfId !== null) {
    const cycle = findDependencyCycle(state.tasks, selfId, dependencies);
    if (cycle) return reject('TaskDependencyCycle', `these dependencies would form the cycle ${cycle.join(' → ')}`, { cycle });
  }
  return null;
}

function unfinishedDependencies(state: TeamState, task: TaskSnapshot): number[] {
  return task.dependencies.filter((dep) => own(state.tasks, taskKey(dep))?.status !== 'completed');
}

/** Why `task` is not ready (pending, unowned, every dependency completed), or null when it is. */
export function readinessProblem(state: TeamState, task: TaskSnapshot): string | null {
  if (task.deleted) return 'it was deleted';
  if (task.status !== 'pending') return `it is ${task.status}`;
  if (task.owner !== null) return `it is owned by ${task.owner}`;
  const waiting = unfinishedDependencies(state, task);
  if (waiting.length > 0) return `it waits for dependencies ${waiting.join(', ')}`;
  return null;
}

function unique(ids: readonly number[]): number[] {
  return [...new Set(ids)];
}

/** Ids below nextTaskId were allocated once: a missing one is a forgotten tombstone, never a free id. */
export function notFoundMessage(state: TeamState, taskId: number): string {
  return taskId < state.nextTaskId
    ? `task ${taskId} was deleted and its tombstone is no longer kept; list the board to see valid ids`
    : `task ${taskId} does not exist; list the board to see valid ids`;
}
