#!/usr/bin/env node
/**
 * `agent-teams` (npm run cli --): drive Teams on a Temporal cluster. Connection settings follow
 * Temporal's conventions (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS / API key variables) and can
 * be overridden with --address / --namespace. Every error says what to do next.
 */
import { Client, Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Command } from 'commander';
import { connectionOptionsFromEnv } from '../client/connection';
import { TeamClient } from '../client/teamClient';
import { DEFAULT_TASK_QUEUE } from '../shared/definitions';
import type { JsonValue } from '../shared/json';
import { LEAD, type TaskMutationResult, type TaskStatus } from '../shared/team';
import { formatRoster, formatTasks, formatEdge } from './format';

interface GlobalOptions {
  address?: string;
  namespace?: string;
  as: string;
  json?: boolean;
}

const program = new Command()
  .name('agent-teams')
  .description('Durable Agent Teams on Temporal: start, drive and inspect Teams')
  .option('--address <host:port>', 'Temporal frontend (default: $TEMPORAL_ADDRESS or localhost:7233)')
  .option('--namespace <name>', 'namespace (default: $TEMPORAL_NAMESPACE or default)')
  .option('--as <member>', 'act as this member (the operator is the Lead)', LEAD)
  .option('--json', 'print JSON instead of tables');

async function withTeam<T>(teamId: string, run: (team: TeamClient, options: GlobalOptions) => Promise<T>): Promise<T> {
  const options = program.opts<GlobalOptions>();
  const env = connectionOptionsFromEnv();
  const address = options.address ?? env.address;
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...env, address, connectTimeout: 5_000 });
  } catch (error) {
    throw new Error(`cannot reach Temporal at ${address} (${error instanceof Error ? error.message : String(error)}); start one with \`npm run server\` or set TEMPORAL_ADDRESS`);
  }
  try {
    const client = new Client({ connection, namespace: options.namespace ?? process.env.TEMPORAL_NAMESPACE ?? 'default' });
    return await run(TeamClient.attach(client, teamId, options.as), options);
  } finally {
    await connection.close();
  }
}

function print(options: GlobalOptions, value: unknown, human: () => string): void {
  console.log(options.json ? JSON.stringify(value) : human());
}

/** Message text: JSON when it parses as JSON, otherwise the text itself. */
function messageContent(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

program
  .command('start <teamId>')
  .description('start a Team: its Lead workflow, with the team id (root session id) as workflow id')
  .option('--task-queue <queue>', 'task queue of the workers', process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE)
  .option('--max-members <n>', 'roster limit', (v) => Number.parseInt(v, 10))
  .action(async (teamId: string, opts: { taskQueue: string; maxMembers?: number }) => {
    await withTeam(teamId, async (team, options) => {
      await TeamClient.start(team.client, { teamId, taskQueue: opts.taskQueue, ...(opts.maxMembers ? { maxMembers: opts.maxMembers } : {}) });
      print(options, { teamId, taskQueue: opts.taskQueue }, () => `started Team ${teamId} on task queue ${opts.taskQueue}; next: agent-teams spawn ${teamId} <name> <message>`);
    });
  });

program
  .command('spawn <teamId> <name> <message>')
  .description('spawn a teammate (Lead only); the message is its first inbox item (JSON or text)')
  .option('--fork', 'fork context instead of fresh')
  .option('--model <model>', 'model for this teammate')
  .action(async (teamId: string, name: string, message: string, opts: { fork?: boolean; model?: string }) => {
    await withTeam(teamId, async (team, options) => {
      const result = await team.spawnTeammate({ name, message: messageContent(message), context: opts.fork ? 'fork' : 'fresh', ...(opts.model ? { model: opts.model } : {}) });
      print(options, result, () => `${result.member.name}: ${result.member.phase} (workflow ${result.member.workflowId})${result.member.failure ? ` — ${result.member.failure}` : ''}`);
    });
  });

program
  .command('send <teamId> <to> <message>')
  .description('send a message (JSON or text) to a teammate or "lead"; prints inbox acceptance')
  .option('--id <messageId>', 'stable message id (a retry with the same id is delivered once)')
  .action(async (teamId: string, to: string, message: string, opts: { id?: string }) => {
    await withTeam(teamId, async (team, options) => {
      const acceptance = await team.sendMessage(to, messageContent(message), ...(opts.id ? [opts.id] : []));
      print(options, acceptance, () => `accepted ${acceptance.messageId} into ${acceptance.to}'s inbox (${acceptance.targetPhase}, ${acceptance.targetStatus})`);
    });
  });

program
  .command('roster <teamId>')
  .description('list the Lead and every teammate with phase and live status')
  .action(async (teamId: string) => {
    await withTeam(teamId, async (team, options) => {
      const [view, live] = await Promise.all([team.view(), team.liveStatus()]);
      print(options, { lead: view.lead, members: view.members, live }, () => formatRoster(view, live));
    });
  });

program
  .command('tasks <teamId>')
  .description('list the task board (non-deleted tasks, readiness, write-scope overlaps)')
  .action(async (teamId: string) => {
    await withTeam(teamId, async (team, options) => {
      const view = await team.view();
      print(options, view.tasks, () => formatTasks(view.tasks));
    });
  });

const task = program.command('task').description('task board mutations (Updates checked against expectedRevision)');
const ids = (v: string): number[] => v.split(',').filter(Boolean).map((n) => Number.parseInt(n, 10));
const list = (v: string): string[] => v.split(',').filter(Boolean);
const printTask = (options: GlobalOptions, result: TaskMutationResult): void =>
  print(options, result, () => `${formatTasks([result.task])}${result.task.overlaps.length ? '\nnote: write scopes overlap other live tasks (advisory only)' : ''}`);

task
  .command('create <teamId> <subject>')
  .option('--description <text>', 'description', '')
  .option('--deps <ids>', 'comma-separated task ids this depends on', ids, [] as number[])
  .option('--scopes <paths>', 'comma-separated advisory write scopes', list, [] as string[])
  .action(async (teamId: string, subject: string, opts: { description: string; deps: number[]; scopes: string[] }) => {
    await withTeam(teamId, async (team, options) => printTask(options, await team.createTask({ subject, description: opts.description, dependencies: opts.deps, writeScopes: opts.scopes })));
  });
task
  .command('claim <teamId> <taskId> <expectedRevision>')
  .action(async (teamId: string, taskId: string, revision: string) => {
    await withTeam(teamId, async (team, options) => printTask(options, await team.claimTask({ taskId: Number(taskId), expectedRevision: Number(revision) })));
  });
task
  .command('status <teamId> <taskId> <expectedRevision> <status>')
  .description('pending | in_progress | completed | cancelled (see the status table in README)')
  .action(async (teamId: string, taskId: string, revision: string, status: TaskStatus) => {
    await withTeam(teamId, async (team, options) => printTask(options, await team.transitionTask({ taskId: Number(taskId), expectedRevision: Number(revision), status })));
  });
task
  .command('assign <teamId> <taskId> <expectedRevision> <owner>')
  .description('Lead only; owner "none" releases the task')
  .action(async (teamId: string, taskId: string, revision: string, owner: string) => {
    await withTeam(teamId, async (team, options) =>
      printTask(options, await team.assignTask({ taskId: Number(taskId), expectedRevision: Number(revision), owner: owner === 'none' ? null : owner })),
    );
  });

program
  .command('inbox <teamId>')
  .description("take the messages waiting in the Lead's inbox (Lead only)")
  .action(async (teamId: string) => {
    await withTeam(teamId, async (team, options) => {
      const messages = await team.readLeadInbox();
      print(options, messages, () => (messages.length === 0 ? '(no messages)' : messages.map((m) => `${m.from}: ${JSON.stringify(m.content)}`).join('\n')));
    });
  });

program
  .command('watch <teamId>')
  .description('print roster, mailbox, task and status edges as they happen (durable waits, no polling)')
  .option('--for <seconds>', 'stop after this long', (v) => Number.parseInt(v, 10))
  .action(async (teamId: string, opts: { for?: number }) => {
    await withTeam(teamId, async (team, options) => {
      const until = opts.for ? Date.now() + opts.for * 1000 : Number.POSITIVE_INFINITY;
      console.error(`watching ${teamId} (Ctrl-C to stop)…`);
      while (Date.now() < until) {
        const result = await team.waitForEdge(Math.max(1, Math.min(60_000, until - Date.now())));
        if (result.woke === 'edge') print(options, result.edge, () => formatEdge(result.edge));
      }
    });
  });

program
  .command('interrupt <teamId> <name>')
  .description("cancel a teammate's current turn (Lead only); its inbox and tasks are untouched")
  .action(async (teamId: string, name: string) => {
    await withTeam(teamId, async (team, options) => {
      const result = await team.interruptTeammate(name);
      print(options, result, () => `interrupted ${name} (was ${result.statusAtInterrupt})`);
    });
  });

program
  .command('dispose <teamId>')
  .description('close admission, stop every teammate and finish the Team (Lead only)')
  .action(async (teamId: string) => {
    await withTeam(teamId, async (team, options) => {
      console.error(`disposing ${teamId}: stopping teammates…`);
      const view = await team.dispose();
      print(options, view, () => `disposed ${teamId}: ${view.members.map((m) => `${m.name} ${m.phase}`).join(', ') || 'no teammates'}`);
    });
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof ApplicationFailure) {
    console.error(`error (${error.type ?? 'ApplicationFailure'}): ${error.message}`);
  } else {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(1);
});
