/**
 * The overlap index against the definition: every pair of a task's scope and a live other task's
 * scope that overlaps (scopesOverlap), counted exactly, listed in board order when they fit.
 */
import fc from 'fast-check';
import { buildOverlapIndex, overlapsOf } from '../../shared/team/overlapIndex';
import { normalizeWriteScopes, scopesOverlap } from '../../shared/team/writeScopes';
import type { TaskSnapshot } from '../../shared/contract/team';

function task(id: number, writeScopes: string[], live = true): TaskSnapshot {
  return {
    id,
    revision: 1,
    subject: `t${id}`,
    description: '',
    status: live ? 'pending' : 'completed',
    owner: null,
    dependencies: [],
    writeScopes,
    deleted: false,
    createdBy: 'lead',
    createdAt: '',
    updatedAt: '',
  };
}

/** The definition: other live tasks in id order, this task's scopes in order, the other's in order. */
function naive(tasks: TaskSnapshot[], self: TaskSnapshot): { taskId: number; scope: string; otherScope: string }[] {
  const out: { taskId: number; scope: string; otherScope: string }[] = [];
  for (const other of tasks) {
    if (other.id === self.id || other.status !== 'pending') continue;
    for (const scope of self.writeScopes)
      for (const otherScope of other.writeScopes) if (scopesOverlap(scope, otherScope)) out.push({ taskId: other.id, scope, otherScope });
  }
  return out;
}

const segment = fc.constantFrom('a', 'b', 'ab', 'a.b', 'z');
const scope = fc.oneof(
  { weight: 1, arbitrary: fc.constant('.') },
  { weight: 8, arbitrary: fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/')) },
);
const board = fc.array(fc.record({ scopes: fc.array(scope, { maxLength: 6 }), live: fc.boolean() }), { minLength: 1, maxLength: 12 }).map((specs) =>
  specs.map((spec, i) => {
    const normalized = normalizeWriteScopes(spec.scopes);
    return task(i + 1, normalized.ok ? normalized.scopes : [], spec.live);
  }),
);

test('counts every overlap exactly and lists the board-order overlaps when they fit the limit', () => {
  fc.assert(
    fc.property(board, fc.integer({ min: 0, max: 12 }), (tasks, limit) => {
      const index = buildOverlapIndex(tasks.filter((t) => t.status === 'pending'));
      for (const self of tasks) {
        const expected = naive(tasks, self);
        const { overlaps, omitted } = overlapsOf(index, self, self.status === 'pending', limit);
        expect(overlaps.length + omitted).toBe(expected.length);
        expect(overlaps.length).toBe(Math.min(limit, expected.length));
        if (expected.length <= limit) expect(overlaps).toEqual(expected);
        for (const o of overlaps) expect(expected).toContainEqual(o);
      }
    }),
    { numRuns: 500 },
  );
});

test('the reported board that stalled a Lead: 138 tasks with 50 nested scopes each, counted without comparing every pair', () => {
  const nested = Array.from({ length: 50 }, (_, depth) => Array.from({ length: depth + 1 }, () => 'd').join('/'));
  const tasks = Array.from({ length: 138 }, (_, i) => task(i + 1, nested));
  const index = buildOverlapIndex(tasks);
  const { overlaps, omitted } = overlapsOf(index, tasks[0]!, true, 10);
  // Every pair of the 50 × 50 scopes overlaps (all are prefixes of each other), with each of the 137 others.
  expect(overlaps.length + omitted).toBe(137 * 50 * 50);
  expect(overlaps).toHaveLength(10);
});
