/**
 * What the commands of cli/commands/ share: the global options, the connection to Temporal, a
 * Team attached within the command's deadline, the print boundary (stdout, stderr), the budget
 * flags, and the one error report with exit status 1.
 */
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { InvalidArgumentError, type Command } from 'commander';
import { connectionOptionsFromEnv } from '../client/connection';
import { runBefore } from '../client/deadlines';
import { TEAM_ALREADY_STARTED, TEAM_CALL_TIMED_OUT, TeamCallTimedOut, TeamClient } from '../client/teamClient';
import { TEAM_BUDGET_DIMENSIONS, checkTeamId, parseBudgetText, type BudgetLimits, type TeamLimits } from '../shared/contract';
import { terminalJson, terminalText } from '../shared/text/inertText';
import { redactAddress, redactUrlCredentials } from '../shared/text/redact';
import { errorMessage } from '../shared/util/errors';
import { cliTimeoutMessage, commandPlan, type CommandKind } from './timeouts';

export interface GlobalOptions {
  address?: string;
  namespace?: string;
  as: string;
  json?: boolean;
  /** Seconds: the command's deadline (with --wait: how long to wait for the answer; watch: each wait's margin). */
  timeout?: number;
}

/** Where the CLI is connected (for Web UI links and messages). */
export interface Target {
  address: string;
  namespace: string;
}

/**
 * Connects, attaches to the Team with the command's deadlines (see commandPlan) and runs the
 * command within its deadline. `answerBy` (epoch ms): when a --wait command stops waiting.
 */
export async function withTeam<T>(
  program: Command,
  teamId: string,
  kind: CommandKind,
  run: (team: TeamClient, options: GlobalOptions, target: Target, answerBy: number) => Promise<T>,
  watchForS?: number,
): Promise<T> {
  // Refused before any call: InvalidTeamId says what a Team id may be.
  checkTeamId(teamId);
  const options = program.opts<GlobalOptions>();
  const plan = commandPlan(kind, options.timeout, watchForS);
  const started = Date.now();
  const end = plan.commandMs === null ? Number.POSITIVE_INFINITY : started + plan.commandMs;
  const answerBy = started + (plan.waitMs ?? plan.commandMs ?? 0);
  const { connection, address, namespace } = await connect(options, Math.max(1, Math.min(5_000, end - Date.now())));
  try {
    const client = new Client({ connection, namespace });
    // An operator's refused command shows in the panel beside the state it left unchanged.
    const team = TeamClient.attach(client, teamId, options.as, plan.deadlines).reportingRejections();
    const command = (): Promise<T> => run(team, options, { address, namespace }, answerBy);
    return await (Number.isFinite(end) ? runBefore(end, command) : command());
  } catch (error) {
    if (error instanceof TeamCallTimedOut) throw failure(TEAM_CALL_TIMED_OUT, cliTimeoutMessage(error));
    if (error instanceof WorkflowNotFoundError) {
      throw failure(
        'TeamNotFound',
        `no Team ${teamId} in namespace ${namespace} (${error.message}); check the id and namespace, or start it with \`agent-teams start ${teamId}\``,
      );
    }
    if (error instanceof ApplicationFailure && error.type === TEAM_ALREADY_STARTED) {
      throw failure(
        TEAM_ALREADY_STARTED,
        `Team ${teamId} is already running; drive it (agent-teams roster ${teamId}, agent-teams answer ${teamId}) or pick another team id`,
      );
    }
    throw error;
  } finally {
    await connection.close();
  }
}

/** Connects as the global options and Temporal's environment configuration say, within `timeoutMs`. */
export async function connect(options: GlobalOptions, timeoutMs: number): Promise<Target & { connection: Connection }> {
  const env = connectionOptionsFromEnv();
  const address = options.address ?? env.address;
  const namespace = options.namespace ?? env.namespace;
  const { namespace: _namespace, ...connectionOptions } = env;
  try {
    const connection = await Connection.connect({ ...connectionOptions, address, connectTimeout: timeoutMs });
    return { connection, address, namespace };
  } catch (error) {
    // The address may carry user:password@ (TEMPORAL_ADDRESS=alice:s3cret@host:7233), and the SDK's error quotes it.
    throw failure(
      'TemporalUnreachable',
      `cannot reach Temporal at ${redactAddress(address)} (${redactUrlCredentials(errorMessage(error))}); ` +
        `start one with \`npm run server\`, or set TEMPORAL_ADDRESS (or TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE)`,
    );
  }
}

/** A client-side failure with a stable type, printed like the Lead's rejections. */
export function failure(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/**
 * The CLI's print boundary: everything it shows of a Team goes through here (stdout) or `warn`
 * (stderr). Models and callers wrote much of it, so no control character reaches the terminal:
 * tables and lines come from cli/format.ts on one line each, and this replaces whatever else is
 * left but line breaks and tabs (terminalText); JSON keeps every value, C1 and bidi controls
 * escaped as \uXXXX (terminalJson), as JSON.stringify does with C0.
 */
export function print(options: GlobalOptions, value: unknown, human: () => string): void {
  console.log(options.json ? terminalJson(value) : terminalText(human(), 'block'));
}

/** stderr's side of the print boundary: progress, errors (a rejection's message may quote Team text). */
export function warn(text: string): void {
  console.error(terminalText(text, 'block'));
}

/** A budget flag's value, or the typed InvalidBudget saying what to write. */
export function budgetFlag(text: string): BudgetLimits {
  try {
    return parseBudgetText(text);
  } catch (error) {
    throw failure('InvalidBudget', errorMessage(error));
  }
}

export function teamBudgetFlag(text: string): TeamLimits {
  const limits = budgetFlag(text);
  const other = Object.keys(limits).find((dimension) => !(TEAM_BUDGET_DIMENSIONS as readonly string[]).includes(dimension));
  if (other)
    throw failure(
      'InvalidBudget',
      `a Team budget caps calls, tokens and cost, not ${other === 'activeSeconds' ? 'active' : other}; give that per member (--member-budget)`,
    );
  return limits;
}

/** The end of a failed command: one line on stderr saying what went wrong, and exit status 1. */
export function exitWithError(error: unknown): never {
  // A Team's rejection quotes what it refused (a name, a subject): printed through warn like the rest.
  // Any error may quote a configured URL or address (the SDK's, a profile's): its credentials are redacted.
  if (error instanceof ApplicationFailure) {
    warn(redactUrlCredentials(`error (${error.type ?? 'ApplicationFailure'}): ${error.message}`));
  } else if (error instanceof InvalidArgumentError) {
    warn(redactUrlCredentials(`error (InvalidArgument): ${error.message}`));
  } else if (error instanceof Error && error.name !== 'Error') {
    warn(redactUrlCredentials(`error (${error.name}): ${error.message}`));
  } else {
    warn(redactUrlCredentials(`error: ${errorMessage(error)}`));
  }
  process.exit(1);
}
