#!/usr/bin/env node
/**
 * `agent-teams` (npm run cli --): drive Teams on a Temporal cluster. Connection settings follow
 * Temporal's environment configuration (a TEMPORAL_PROFILE profile of the TOML config file, then
 * TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS / API key variables; see client/connection.ts) and can
 * be overridden with --address / --namespace. Every command has a deadline (--timeout; see
 * cli/timeouts.ts) and every error says what to do next. The commands live in cli/commands/, what
 * they share in cli/common.ts; this file holds the program, its global options and the entry point.
 */
import { Command } from 'commander';
import { LEAD, OPERATOR } from '../shared/contract/callers';
import { exitWithError } from './common';
import { registerInboxCommand, registerInterruptCommand, registerMemberCommands } from './commands/members';
import { registerPanelCommand } from './commands/panel';
import { registerReviewCommand } from './commands/review';
import { registerTaskCommands } from './commands/tasks';
import { registerEndCommands, registerTeamCommands } from './commands/team';
import { registerUsageCommands } from './commands/usage';
import { registerWatchCommand } from './commands/watch';
import { DEFAULT_TIMEOUT_S, parseSeconds } from './timeouts';

const program = new Command()
  .name('agent-teams')
  .description('Durable Agent Teams on Temporal: start, drive and inspect Teams')
  .option('--address <host:port>', 'Temporal frontend (default: $TEMPORAL_ADDRESS, the $TEMPORAL_PROFILE profile, or localhost:7233)')
  .option('--namespace <name>', 'namespace (default: $TEMPORAL_NAMESPACE, the $TEMPORAL_PROFILE profile, or default)')
  .option('--as <caller>', `act as this caller: a teammate's name, "${LEAD}" to act as the Lead, or the operator (a person, the default)`, OPERATOR)
  .option('--json', 'print JSON instead of tables')
  .option(
    '--timeout <seconds>',
    `the command's deadline, then it ends with an error saying what to do (default ${DEFAULT_TIMEOUT_S.read}s for reads, ` +
      `${DEFAULT_TIMEOUT_S.change}s for changes, ${DEFAULT_TIMEOUT_S.dispose}s for dispose); ` +
      `with --wait: how long to wait for the answer (default ${DEFAULT_TIMEOUT_S.wait}s); watch: how late each of its waits may answer`,
    parseSeconds,
  );

// Help lists the commands in the order they are registered, the order users have always seen:
// so a group whose commands are not neighbours in that list registers in parts.
registerTeamCommands(program); // start, prompt, answer, conversation, fork, status
registerMemberCommands(program); // spawn, send, roster
registerUsageCommands(program); // budget, usage
registerTaskCommands(program); // tasks, task
registerInboxCommand(program);
registerWatchCommand(program);
registerInterruptCommand(program);
registerEndCommands(program); // dispose, cancel
registerPanelCommand(program);
registerReviewCommand(program);

program.parseAsync(process.argv).catch(exitWithError);
