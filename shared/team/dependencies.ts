import { own } from '../util/own';
import { taskKey } from './task';
import type { TaskSnapshot } from '../contract/team';

/**
 * Finds the cycle that giving `taskId` the dependency list `dependencies` would create, if any.
 * Returns the ids along the cycle, starting and ending with `taskId` (e.g. [3, 5, 3]).
 */
export function findDependencyCycle(tasks: Readonly<Record<string, TaskSnapshot>>, taskId: number, dependencies: readonly number[]): number[] | null {
  // Depth-first search from each new dependency, following existing edges, looking for taskId.
  const visited: Record<string, true> = {};
  const walk = (current: number, path: number[]): number[] | null => {
    if (current === taskId) return [...path, current];
    const key = taskKey(current);
    if (own(visited, key)) return null;
    visited[key] = true;
    const next = own(tasks, key)?.dependencies ?? [];
    for (const dep of next) {
      const found = walk(dep, [...path, current]);
      if (found) return found;
    }
    return null;
  };
  for (const dep of dependencies) {
    const found = walk(dep, [taskId]);
    if (found) return found;
  }
  return null;
}
