/** `review`: the command-line wiring of cli/review.ts, which reads (and with --commit commits) what a Team changed. */
import { InvalidArgumentError, type Command } from 'commander';
import { checkoutRootFromEnv } from '../../activities/tools/paths';
import { print, type GlobalOptions } from '../common';
import { formatReview, review } from '../review';

export function registerReviewCommand(program: Command): void {
  program
    .command('review')
    .description("what the Team changed in the checkout, read without running anything it holds (git's hooks, fsmonitor, filters, drivers off)")
    .option('--checkout <dir>', 'the checkout (default: $AGENT_TEAMS_CHECKOUT, else the current directory)')
    .option('--commit', 'then commit the reviewed changes (git add -A, git commit --no-verify), with the same settings off; needs -m')
    .option('-m, --message <text>', 'the commit message (with --commit)')
    .action(async (opts: { checkout?: string; commit?: boolean; message?: string }) => {
      if (Boolean(opts.commit) !== (opts.message !== undefined))
        throw new InvalidArgumentError('--commit and -m <message> go together: pass both to commit, neither to review only');
      const options = program.opts<GlobalOptions>();
      const report = await review({
        checkout: opts.checkout ?? checkoutRootFromEnv(),
        ...(opts.commit ? { commitMessage: opts.message } : {}),
        ...(options.timeout !== undefined ? { timeoutMs: options.timeout * 1000 } : {}),
      });
      print(options, report, () => formatReview(report));
    });
}
