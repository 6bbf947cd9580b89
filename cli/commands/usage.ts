/** What the Team may spend and what it spent: budget and usage. */
import type { Command } from 'commander';
import { TEAM_BUDGET } from '../../shared/contract';
import { budgetFlag, print, withTeam } from '../common';
import { describeBudget, formatUsage } from '../format';

export function registerUsageCommands(program: Command): void {
  program
    .command('budget <teamId> <name> <budget>')
    .description(
      "replace a teammate's budget, the Lead agent's (name lead) or the Team's (name @team): calls=N,tokens=N,cost=USD,turns=N,active=SECONDS; " +
        'the operator may raise, the Lead only lower',
    )
    .action(async (teamId: string, name: string, text: string) => {
      const budget = budgetFlag(text);
      await withTeam(program, teamId, 'change', async (team, options) => {
        const result = await team.setBudget(name, budget);
        const whose = name === TEAM_BUDGET ? 'the Team' : name;
        print(
          options,
          result,
          () => `${whose}'s budget is now ${describeBudget(result.budget)} (was ${result.previous ? describeBudget(result.previous) : 'none'})`,
        );
      });
    });

  program
    .command('usage <teamId>')
    .description("what the Team's model calls used: tokens of each kind and cost per member, and the Team's total")
    .action(async (teamId: string) => {
      await withTeam(program, teamId, 'read', async (team, options) => {
        const usage = await team.usage();
        print(options, usage, () => formatUsage(usage));
      });
    });
}
