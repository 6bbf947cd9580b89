/** Task snapshots and the status transition table. Pure data, no behaviour beyond lookups. */

import type { TaskStatus } from '../contract/vocabulary';

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
