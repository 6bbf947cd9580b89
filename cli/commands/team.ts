/**
 * The Team's life and its Lead agent: start, prompt, answer, conversation, fork and status, then
 * (registered later, where help lists them) dispose and cancel.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { TeamClient, healthAdvice } from '../../client/teamClient';
import { LEAD } from '../../shared/contract/callers';
import { DEFAULT_TASK_QUEUE, checkTeamId, type ConversationEntry } from '../../shared/contract';
import { budgetFlag, failure, print, teamBudgetFlag, warn, withTeam } from '../common';
import { formatAgentView, formatConversation, formatHealth, webUiLink } from '../format';
import { agentOptions, announceStarted, deploymentModels, describeAgent, waitAndPrintAnswer, withAgentOptions, type AgentFlags } from './leadAgent';

/** start, prompt, answer, conversation, fork, status. */
export function registerTeamCommands(program: Command): void {
  withAgentOptions(
    program
      .command('start <teamId>')
      .description('start a Team: its Lead workflow, with the team id (root session id) as workflow id; with --prompt the Lead is an agent')
      .option('--task-queue <queue>', 'task queue of the workers', process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE)
      .option('--max-members <n>', 'roster limit', (v) => Number.parseInt(v, 10))
      .option('--lead-budget <budget>', "the Lead agent's budget: calls=N,tokens=N,cost=USD,turns=N,active=SECONDS (any of them)")
      .option('--member-budget <budget>', "each teammate's and subagent's budget, written the same way")
      .option('--team-budget <budget>', "the whole Team's budget: calls=N,tokens=N,cost=USD (any of them); members ask the Lead before each call"),
  ).action(
    async (teamId: string, opts: AgentFlags & { taskQueue: string; maxMembers?: number; leadBudget?: string; memberBudget?: string; teamBudget?: string }) => {
      const agent = agentOptions(opts, ['--profile', '--model', '--cwd', '--checkout-queue', '--wait']);
      const models = deploymentModels();
      const budgets = {
        ...(opts.leadBudget !== undefined ? { lead: budgetFlag(opts.leadBudget) } : {}),
        ...(opts.memberBudget !== undefined ? { member: budgetFlag(opts.memberBudget) } : {}),
        ...(opts.teamBudget !== undefined ? { team: teamBudgetFlag(opts.teamBudget) } : {}),
      };
      await withTeam(program, teamId, opts.wait ? 'wait' : 'change', async (team, options, target, answerBy) => {
        await TeamClient.start(team.client, {
          teamId,
          taskQueue: opts.taskQueue,
          ...(opts.maxMembers ? { maxMembers: opts.maxMembers } : {}),
          ...(agent ? { agent } : {}),
          ...(models ? { models } : {}),
          ...(Object.keys(budgets).length > 0 ? { budgets } : {}),
          deadlines: team.deadlines,
        });
        await announceStarted(team, options, target, opts, answerBy, { teamId, taskQueue: opts.taskQueue, agent: agent ?? null }, () =>
          agent
            ? `started Team ${teamId} on task queue ${opts.taskQueue}: ${describeAgent(agent, models)}; next: agent-teams answer ${teamId} --wait`
            : `started Team ${teamId} on task queue ${opts.taskQueue}; next: agent-teams spawn ${teamId} <name> <message>`,
        );
      });
    },
  );

  program
    .command('prompt <teamId> <text>')
    .description('a follow-up prompt to the Lead agent (starts its next turn); prints the inbox acceptance')
    .option('--id <messageId>', 'stable message id (a retry with the same id is taken once)')
    .option('--wait', 'then wait for the answer to this prompt (progress on stderr) and print it; --timeout: for how long (default 1800s)')
    .action(async (teamId: string, text: string, opts: { id?: string; wait?: boolean }) => {
      if (text.trim() === '') throw new InvalidArgumentError('the prompt is empty; give the Lead something to do');
      await withTeam(program, teamId, opts.wait ? 'wait' : 'change', async (team, options, _target, answerBy) => {
        const acceptance = await team.promptLead(text, ...(opts.id ? [opts.id] : []));
        if (!(options.json && opts.wait)) {
          print(
            options,
            acceptance,
            () =>
              `accepted ${acceptance.messageId} into the Lead's inbox (${acceptance.targetStatus})` +
              `${opts.wait ? '' : `; next: agent-teams answer ${teamId} --wait`}`,
          );
        }
        if (opts.wait) await waitAndPrintAnswer(team, options, answerBy, acceptance.messageId);
      });
    });

  program
    .command('answer <teamId>')
    .description("the Lead agent's status and final answer (--json: the whole LeadAgentView)")
    .option('--wait', 'wait for the final answer (progress on stderr); --timeout: for how long (default 1800s)')
    .action(async (teamId: string, opts: { wait?: boolean }) => {
      await withTeam(program, teamId, opts.wait ? 'wait' : 'read', async (team, options, _target, answerBy) => {
        if (opts.wait) {
          await waitAndPrintAnswer(team, options, answerBy);
          return;
        }
        const view = await team.agentState();
        print(options, view, () => formatAgentView(teamId, view));
      });
    });

  program
    .command('conversation <teamId> [member]')
    .description("the Lead agent's conversation, or a teammate's: one line per entry (turn, role, sender or tool, content)")
    .option('--last <n>', 'only the last n entries', (v) => Number.parseInt(v, 10))
    .option('--full', 'print whole contents instead of one truncated line per entry')
    .action(async (teamId: string, member: string | undefined, opts: { last?: number; full?: boolean }) => {
      await withTeam(program, teamId, 'read', async (team, options) => {
        let conversation: ConversationEntry[];
        let operatorDriven = false;
        if (member && member !== LEAD) {
          conversation = (await team.teammateState(member)).conversation;
        } else {
          const view = await team.agentState();
          conversation = view.conversation;
          operatorDriven = !view.enabled && conversation.length === 0;
        }
        const entries = opts.last !== undefined && opts.last >= 0 ? conversation.slice(Math.max(0, conversation.length - opts.last)) : conversation;
        print(options, entries, () =>
          operatorDriven
            ? `(Team ${teamId}'s Lead is operator-driven and has no conversation; a teammate's: agent-teams conversation ${teamId} <member>)`
            : formatConversation(entries, {
                full: opts.full ?? false,
                width: process.stdout.columns && process.stdout.columns > 40 ? process.stdout.columns : 160,
              }),
        );
      });
    });

  withAgentOptions(
    program
      .command('fork <sourceTeamId> <newTeamId>')
      .description("start a new Team whose Lead continues from another Team's Lead conversation (records of the source Team are left out)")
      .option('--task-queue <queue>', 'task queue of the workers', process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE),
  ).action(async (sourceTeamId: string, newTeamId: string, opts: AgentFlags & { taskQueue: string }) => {
    checkTeamId(sourceTeamId);
    const agent = agentOptions(opts, ['--profile', '--model', '--cwd', '--checkout-queue']);
    const models = deploymentModels();
    await withTeam(program, newTeamId, opts.wait ? 'wait' : 'change', async (team, options, target, answerBy) => {
      await TeamClient.forkRoot(team.client, {
        sourceTeamId,
        teamId: newTeamId,
        taskQueue: opts.taskQueue,
        ...(agent ? { agent } : {}),
        ...(models ? { models } : {}),
        deadlines: team.deadlines,
      });
      await announceStarted(
        team,
        options,
        target,
        opts,
        answerBy,
        { teamId: newTeamId, forkOf: sourceTeamId, taskQueue: opts.taskQueue, agent: agent ?? null },
        () =>
          `forked ${sourceTeamId} into new Team ${newTeamId} on task queue ${opts.taskQueue}` +
          `${agent ? `: ${describeAgent(agent, models, sourceTeamId)}` : ''}; ` +
          `next: agent-teams ${agent ? `answer ${newTeamId} --wait` : `prompt ${newTeamId} <text>`}`,
      );
    });
  });

  program
    .command('status <teamId>')
    .description("the Lead's run as the server sees it, without a worker: status, task queue, workers polling it, failing workflow tasks, and what to do next")
    .action(async (teamId: string) => {
      await withTeam(program, teamId, 'read', async (team, options, target) => {
        const health = await team.health();
        const link = webUiLink(target.address, target.namespace, teamId);
        print(options, { ...health, advice: healthAdvice(health, 'status'), webUi: link }, () => formatHealth(health, healthAdvice(health, 'status'), link));
      });
    });
}

/** dispose, cancel: the two ways to end a Team. */
export function registerEndCommands(program: Command): void {
  program
    .command('dispose <teamId>')
    .description('close admission, stop every teammate and finish the Team (Lead only)')
    .action(async (teamId: string) => {
      await withTeam(program, teamId, 'dispose', async (team, options) => {
        warn(`disposing ${teamId}: stopping teammates…`);
        const view = await team.dispose();
        print(options, view, () => `disposed ${teamId}: ${view.members.map((m) => `${m.name} ${m.phase}`).join(', ') || 'no teammates'}`);
      });
    });

  program
    .command('cancel <teamId>')
    .description(
      "request cancellation, as the Web UI's button and `temporal workflow cancel` do: the Lead disposes of the Team, then ends CANCELLED (Lead only)",
    )
    .action(async (teamId: string) => {
      await withTeam(program, teamId, 'dispose', async (team, options) => {
        warn(`cancelling ${teamId}: the Lead stops every teammate, then ends…`);
        const report = await team.cancel();
        const members = report.view.members.map((m) => `${m.name} ${m.phase}`).join(', ') || 'no teammates';
        print(options, report, () => `${teamId} ${report.status.toLowerCase()}: ${members}`);
        // CANCELLED, or COMPLETED when a disposeTeam got there first: the Team ended as asked. Anything else is a failed command.
        if (report.status !== 'CANCELLED' && report.status !== 'COMPLETED') {
          throw failure('CancelFailed', `${teamId} ended ${report.status}, not by the cancellation; read why with agent-teams status ${teamId}`);
        }
      });
    });
}
