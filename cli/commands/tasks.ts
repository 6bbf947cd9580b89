/** The task board: `tasks` lists it, the `task` subcommands change it (Updates checked against expectedRevision). */
import type { Command } from 'commander';
import type { TaskMutationResult } from '../../shared/contract/team';
import type { TaskStatus } from '../../shared/contract/vocabulary';
import { print, withTeam, type GlobalOptions } from '../common';
import { formatTasks } from '../format';

const ids = (v: string): number[] =>
  v
    .split(',')
    .filter(Boolean)
    .map((n) => Number.parseInt(n, 10));
const list = (v: string): string[] => v.split(',').filter(Boolean);
const printTask = (options: GlobalOptions, result: TaskMutationResult): void =>
  print(
    options,
    result,
    () => `${formatTasks([result.task])}${result.task.overlaps.length ? '\nnote: write scopes overlap other live tasks (advisory only)' : ''}`,
  );

export function registerTaskCommands(program: Command): void {
  program
    .command('tasks <teamId>')
    .description('list the task board (non-deleted tasks, readiness, write-scope overlaps)')
    .action(async (teamId: string) => {
      await withTeam(program, teamId, 'read', async (team, options) => {
        const view = await team.view();
        print(options, view.tasks, () => formatTasks(view.tasks));
      });
    });

  const task = program.command('task').description('task board mutations (Updates checked against expectedRevision)');
  task
    .command('create <teamId> <subject>')
    .option('--description <text>', 'description', '')
    .option('--deps <ids>', 'comma-separated task ids this depends on', ids, [] as number[])
    .option('--scopes <paths>', 'comma-separated advisory write scopes', list, [] as string[])
    .action(async (teamId: string, subject: string, opts: { description: string; deps: number[]; scopes: string[] }) => {
      await withTeam(program, teamId, 'change', async (team, options) =>
        printTask(options, await team.createTask({ subject, description: opts.description, dependencies: opts.deps, writeScopes: opts.scopes })),
      );
    });
  task.command('claim <teamId> <taskId> <expectedRevision>').action(async (teamId: string, taskId: string, revision: string) => {
    await withTeam(program, teamId, 'change', async (team, options) =>
      printTask(options, await team.claimTask({ taskId: Number(taskId), expectedRevision: Number(revision) })),
    );
  });
  task
    .command('status <teamId> <taskId> <expectedRevision> <status>')
    .description('pending | in_progress | completed | cancelled (see the status table in README)')
    .action(async (teamId: string, taskId: string, revision: string, status: TaskStatus) => {
      await withTeam(program, teamId, 'change', async (team, options) =>
        printTask(options, await team.transitionTask({ taskId: Number(taskId), expectedRevision: Number(revision), status })),
      );
    });
  task
    .command('assign <teamId> <taskId> <expectedRevision> <owner>')
    .description('Lead only; owner "none" releases the task')
    .action(async (teamId: string, taskId: string, revision: string, owner: string) => {
      await withTeam(program, teamId, 'change', async (team, options) =>
        printTask(options, await team.assignTask({ taskId: Number(taskId), expectedRevision: Number(revision), owner: owner === 'none' ? null : owner })),
      );
    });
}
