/** `watch`: the Team's edges printed as they happen, each from a durable wait (no polling). */
import { ApplicationFailure } from '@temporalio/common';
import type { Command } from 'commander';
import { TEAM_CLOSED } from '../../shared/contract/failures';
import { print, warn, withTeam } from '../common';
import { formatEdge } from '../format';
import { parseSeconds } from '../timeouts';

export function registerWatchCommand(program: Command): void {
  program
    .command('watch <teamId>')
    .description('print roster, mailbox, task and status edges as they happen (durable waits, no polling)')
    .option('--for <seconds>', 'stop after this long (default: until Ctrl-C); each wait ends within its length plus --timeout (default 30s)', parseSeconds)
    .action(async (teamId: string, opts: { for?: number }) => {
      await withTeam(
        program,
        teamId,
        'watch',
        async (team, options) => {
          const until = opts.for !== undefined ? Date.now() + opts.for * 1000 : Number.POSITIVE_INFINITY;
          warn(`watching ${teamId} (Ctrl-C to stop)…`);
          // Each wait starts after the last edge printed, so edges recorded between two waits are printed too.
          let afterSeq: number | undefined;
          while (Date.now() < until) {
            const result = await team
              .waitForEdge(Math.max(1, Math.min(60_000, until - Date.now())), undefined, afterSeq === undefined ? undefined : { afterSeq })
              .catch((error: unknown) => {
                // The Team finishing is the end of what there is to watch, not an error.
                if (error instanceof ApplicationFailure && error.type === TEAM_CLOSED) return null;
                throw error;
              });
            if (result === null) {
              warn(`${teamId} has finished: nothing more to watch`);
              return;
            }
            if (result.woke !== 'edge') continue;
            afterSeq = result.edge.seq;
            print(options, result.edge, () => formatEdge(result.edge));
          }
        },
        opts.for,
      );
    });
}
