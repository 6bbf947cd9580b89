/**
 * A board as large as its size limit lets a `listTasks` result be: tasks with four nested write scopes
 * of about 500 characters each, created until BOARD_MAX_BYTES refuses another (about 180 tasks).
 * Every task's scopes overlap every other's, so the view lists the largest overlaps (about 1 kB
 * each) up to VIEW_OVERLAP_MAX_BYTES. One result is then about 715 kB: 64 of them are 45 MB,
 * thirty times what one workflow-task completion may carry. (Measured: 50 scopes per task make
 * fewer tasks and about 485 kB; one scope per task about 725 kB, with three times the tasks.)
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TeamClient } from '../../client/teamClient';
import { jsonBytes } from '../../shared/contract/limits';
import { nestedLongScopes } from './maxima';

const SCOPES = nestedLongScopes(50, 500).slice(-4);

/** Creates tasks until the board is full (BoardFull); returns the size of one `listTasks` result. */
export async function fillBoardToLimit(team: TeamClient): Promise<{ tasks: number; listBytes: number }> {
  let tasks = 0;
  for (;;) {
    try {
      await team.createTask({ subject: `large ${tasks + 1}`, writeScopes: tasks % 2 === 0 ? [...SCOPES].reverse() : SCOPES });
      tasks += 1;
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type === 'BoardFull') break;
      throw error;
    }
  }
  return { tasks, listBytes: jsonBytes(await team.listTasks()) };
}
