/** Task snapshots and the status transition table. Pure data, no behaviour beyond lookups. */

import type { TaskStatus } from '../contract/vocabulary';

export { TASK_STATUSES, type TaskStatus } from '../contract/vocabulary';

/** A complete task snapshot: every mutation replaces it whole and raises `revision` by exactly one. */
export interface TaskSnapshot {
  id: number;
  revision: number;
  subject: string;
  description: string;
  status: TaskStatus;
  /** Member name (or `lead`) that owns the task. Ownership is durable: nothing releases it implicitly. */
  owner: string | null;
  dependencies: number[];
  /** Normalized relative path prefixes. Advisory only: they produce overlap diagnostics, never locks. */
  writeScopes: string[];
  /** Tombstone flag: deleted tasks still resolve by id but are omitted from lists. */
  deleted: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * Which explicit status transitions `transitionTask` accepts. Claiming (pending → in_progress by a
 * non-owner) and releasing (→ pending, owner cleared) are separate commands with their own rules.
 * The README's status table is generated from the same facts; keep them in step.
 */
export const ALLOWED_TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  pending: ['in_progress', 'cancelled'],
  in_progress: ['pending', 'completed', 'cancelled'],
  completed: [],
  cancelled: ['pending'],
};

export function isTransitionAllowed(from: TaskStatus, to: TaskStatus): boolean {
  return ALLOWED_TRANSITIONS[from].includes(to);
}

export function taskKey(id: number): string {
  return String(id);
}
