/**
 * Write-scope overlaps without comparing every scope with every other. Overlap is "one scope is a
 * path-segment prefix of the other, or either is the root", so the scopes that overlap `s` are its
 * ancestors (the root and each segment prefix of `s`, `s` included) and its descendants (a
 * contiguous block of the sorted scopes starting with `s/`). An index of the live tasks' scopes
 * answers both in O(depth + log n), so a board view costs about n·s·(depth + log n) instead of
 * (n·s)² — a full board of deeply nested scopes is milliseconds, not seconds past the workflow's
 * activation limit. Counts are exact; listings stop at the limit. Pure and deterministic.
 */
import { ROOT_SCOPE } from './writeScopes';
import type { TaskSnapshot } from '../contract/team';

export interface ScopeEntry {
  scope: string;
  taskId: number;
  /** Position of the scope in its task's writeScopes (listing order). */
  index: number;
}

export interface OverlapIndex {
  byScope: Map<string, ScopeEntry[]>;
  /** Every entry, by scope (UTF-16 order), then task id, then index. */
  sorted: ScopeEntry[];
}

export function buildOverlapIndex(liveTasks: Iterable<TaskSnapshot>): OverlapIndex {
  const byScope = new Map<string, ScopeEntry[]>();
  const sorted: ScopeEntry[] = [];
  for (const task of liveTasks) {
    task.writeScopes.forEach((scope, index) => {
      const entry = { scope, taskId: task.id, index };
      sorted.push(entry);
      const list = byScope.get(scope);
      if (list) list.push(entry);
      else byScope.set(scope, [entry]);
    });
  }
  sorted.sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : a.taskId - b.taskId || a.index - b.index));
  return { byScope, sorted };
}

/** The root, each segment prefix of `scope`, and `scope` itself. */
function ancestorsOf(scope: string): string[] {
  const out = [ROOT_SCOPE];
  let at = scope.indexOf('/');
  while (at >= 0) {
    out.push(scope.slice(0, at));
    at = scope.indexOf('/', at + 1);
  }
  out.push(scope);
  return out;
}

/** [from, to) of the sorted entries whose scope starts with `prefix` (a contiguous block). */
function prefixBlock(sorted: readonly ScopeEntry[], prefix: string): [number, number] {
  const firstAtLeast = (test: (entry: ScopeEntry) => boolean): number => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (test(sorted[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const from = firstAtLeast((e) => e.scope >= prefix);
  const to = firstAtLeast((e) => e.scope >= prefix && !e.scope.startsWith(prefix));
  return [from, Math.max(from, to)];
}

export interface Overlap {
  taskId: number;
  scope: string;
  otherScope: string;
}

/**
 * The overlaps of `task` with the indexed tasks other than itself (`indexed`: the task is live, so
 * its own scopes are in the index and are left out): how many there are, and up to `limit` of them.
 * When all of them fit the limit they are listed in the board's order (other task id, then this
 * task's scope order, then the other's); past it, the first `limit` found are listed in that order
 * and the rest are counted. Counting never walks the entries: it adds the sizes of the groups.
 */
export function overlapsOf(index: OverlapIndex, task: TaskSnapshot, indexed: boolean, limit: number): { overlaps: Overlap[]; omitted: number } {
  const listed: (Overlap & { ownIndex: number; otherIndex: number })[] = [];
  let total = 0;
  const own = task.writeScopes;
  task.writeScopes.forEach((scope, ownIndex) => {
    // Groups of overlapping entries: [entries, from, to, how many of them are this task's own].
    const groups: [readonly ScopeEntry[], number, number, number][] = [];
    if (scope === ROOT_SCOPE) {
      groups.push([index.sorted, 0, index.sorted.length, indexed ? own.length : 0]);
    } else {
      for (const ancestor of ancestorsOf(scope)) {
        const entries = index.byScope.get(ancestor);
        if (entries) groups.push([entries, 0, entries.length, indexed && own.includes(ancestor) ? 1 : 0]);
      }
      const [from, to] = prefixBlock(index.sorted, `${scope}/`);
      groups.push([index.sorted, from, to, indexed ? own.filter((o) => o.startsWith(`${scope}/`)).length : 0]);
    }
    for (const [entries, from, to, ownCount] of groups) {
      total += to - from - ownCount;
      for (let i = from; i < to && listed.length < limit; i++) {
        const entry = entries[i]!;
        if (entry.taskId !== task.id) listed.push({ taskId: entry.taskId, scope, otherScope: entry.scope, ownIndex, otherIndex: entry.index });
      }
    }
  });
  listed.sort((a, b) => a.taskId - b.taskId || a.ownIndex - b.ownIndex || a.otherIndex - b.otherIndex);
  return { overlaps: listed.map(({ taskId, scope, otherScope }) => ({ taskId, scope, otherScope })), omitted: total - listed.length };
}
