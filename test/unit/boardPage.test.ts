/**
 * A page of the board (shared/team/boardPage.ts), against a model simpler than the code: following
 * `nextAfter` from 0 reads every task once, in id order, and each page stays within `maxBytes`
 * unless it holds a single task.
 */
import fc from 'fast-check';
import { boardPage } from '../../shared/team';
import { jsonBytes } from '../../shared/contract/limits';
import type { TaskView } from '../../shared/contract/team';

const view = (id: number, descriptionLength: number): TaskView =>
  ({ id, revision: 1, subject: `task ${id}`, description: 'd'.repeat(descriptionLength) }) as unknown as TaskView;

const board = fc
  .uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: 60 })
  .chain((ids) => fc.tuple(...[...ids].sort((a, b) => a - b).map((id) => fc.integer({ min: 0, max: 3_000 }).map((length) => view(id, length)))));

test('paging from 0 by nextAfter reads the whole board once, in order, each page within maxBytes unless it holds one task', () => {
  fc.assert(
    fc.property(board, fc.integer({ min: 1024, max: 20_000 }), (tasks, maxBytes) => {
      const read: TaskView[] = [];
      let after = 0;
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThanOrEqual(tasks.length);
        const page = boardPage(tasks, after, maxBytes);
        if (page.tasks.length > 1) expect(jsonBytes(page.tasks)).toBeLessThanOrEqual(maxBytes);
        read.push(...page.tasks);
        if (page.nextAfter === null) break;
        expect(page.nextAfter).toBe(page.tasks[page.tasks.length - 1]!.id);
        after = page.nextAfter;
      }
      expect(read).toEqual(tasks);
    }),
  );
});

test('a page is as full as maxBytes allows, and a cursor past every id gives an empty last page', () => {
  const tasks = [view(1, 400), view(2, 400), view(5, 400)];
  const one = jsonBytes(tasks[0]);
  expect(boardPage(tasks, 0, 2 + 2 * one + 1)).toEqual({ tasks: tasks.slice(0, 2), nextAfter: 2 });
  expect(boardPage(tasks, 0, 2 + 2 * one)).toEqual({ tasks: tasks.slice(0, 1), nextAfter: 1 });
  expect(boardPage(tasks, 2, 1024)).toEqual({ tasks: [tasks[2]], nextAfter: null });
  expect(boardPage(tasks, 5, 1024)).toEqual({ tasks: [], nextAfter: null });
  // One task larger than maxBytes is still a page of its own.
  expect(boardPage([view(1, 5_000)], 0, 1024).tasks).toHaveLength(1);
});
