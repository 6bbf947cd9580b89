/**
 * The Team's members and their mail: spawn, send and roster, then (registered later, where help
 * lists them) the Lead's inbox and interrupt.
 */
import type { Command } from 'commander';
import type { JsonValue } from '../../shared/contract/json';
import { failure, print, withTeam } from '../common';
import { formatInbox, formatRoster } from '../format';

/** Message text: JSON when it parses as JSON, otherwise the text itself. */
function messageContent(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** spawn, send, roster. */
export function registerMemberCommands(program: Command): void {
  program
    .command('spawn <teamId> <name> <message>')
    .description('spawn a teammate (Lead only); the message is its first inbox item (JSON or text)')
    .option('--fork', 'fork context instead of fresh')
    .option('--model <model>', 'model for this teammate')
    .action(async (teamId: string, name: string, message: string, opts: { fork?: boolean; model?: string }) => {
      await withTeam(program, teamId, 'change', async (team, options) => {
        const result = await team.spawnTeammate({
          name,
          message: messageContent(message),
          context: opts.fork ? 'fork' : 'fresh',
          ...(opts.model ? { model: opts.model } : {}),
        });
        print(
          options,
          result,
          () =>
            `${result.member.name}: ${result.member.phase} (workflow ${result.member.workflowId})${result.member.failure ? ` — ${result.member.failure}` : ''}`,
        );
        // A spawn whose member failed is a failed command: the record is printed, and the exit status says so.
        if (result.member.phase === 'failed') {
          throw failure(
            'SpawnFailed',
            `teammate ${result.member.name} failed to start: ${result.member.failure ?? 'no reason recorded'}; spawn it under another name`,
          );
        }
      });
    });

  program
    .command('send <teamId> <to> <message>')
    .description('send a message (JSON or text) to a teammate or "lead"; prints inbox acceptance')
    .option('--id <messageId>', 'stable message id (a retry with the same id is delivered once)')
    .action(async (teamId: string, to: string, message: string, opts: { id?: string }) => {
      await withTeam(program, teamId, 'change', async (team, options) => {
        const acceptance = await team.sendMessage(to, messageContent(message), ...(opts.id ? [opts.id] : []));
        print(
          options,
          acceptance,
          () => `accepted ${acceptance.messageId} into ${acceptance.to}'s inbox (${acceptance.targetPhase}, ${acceptance.targetStatus})`,
        );
      });
    });

  program
    .command('roster <teamId>')
    .description('list the Lead and every teammate with phase and live status')
    .action(async (teamId: string) => {
      await withTeam(program, teamId, 'read', async (team, options) => {
        // Usage is a column, not the roster's job: a worker too old to answer getTeamUsage leaves it empty.
        const [view, live, usage] = await Promise.all([team.view(), team.liveStatus(), team.usage().catch(() => null)]);
        print(options, { lead: view.lead, members: view.members, live, usage }, () => formatRoster(view, live, usage));
      });
    });
}

/** inbox: the Lead takes its waiting messages. */
export function registerInboxCommand(program: Command): void {
  program
    .command('inbox <teamId>')
    .description("take the messages waiting in the Lead's inbox (Lead only)")
    .action(async (teamId: string) => {
      await withTeam(program, teamId, 'change', async (team, options) => {
        const messages = await team.readLeadInbox();
        print(options, messages, () => formatInbox(messages));
      });
    });
}

/** interrupt: the Lead cancels a teammate's turn. */
export function registerInterruptCommand(program: Command): void {
  program
    .command('interrupt <teamId> <name>')
    .description("cancel a teammate's current turn (Lead only); its inbox and tasks are untouched")
    .action(async (teamId: string, name: string) => {
      await withTeam(program, teamId, 'change', async (team, options) => {
        const result = await team.interruptTeammate(name);
        print(options, result, () => `interrupted ${name} (was ${result.statusAtInterrupt})`);
      });
    });
}
