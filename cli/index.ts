#!/usr/bin/env node
/**
 * `agent-teams` (npm run cli --): drive Teams on a Temporal cluster. Connection settings follow
 * Temporal's environment configuration (a TEMPORAL_PROFILE profile of the TOML config file, then
 * TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TLS / API key variables; see client/connection.ts) and can
 * be overridden with --address / --namespace. Every command has a deadline (--timeout; see
 * cli/timeouts.ts) and every error says what to do next.
 */
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Command, InvalidArgumentError } from 'commander';
import { connectionOptionsFromEnv } from '../client/connection';
import { errorMessage } from '../shared/util/errors';
import { TEAM_CLOSED } from '../shared/contract/failures';
import { redactAddress, redactUrlCredentials } from '../shared/text/redact';
import { runBefore } from '../client/deadlines';
import { LEAD_ANSWER_TIMEOUT, TEAM_ALREADY_STARTED, TEAM_CALL_TIMED_OUT, TeamCallTimedOut, TeamClient, healthAdvice } from '../client/teamClient';
import {
  DEFAULT_TASK_QUEUE,
  PROFILE_NAMES,
  type ConversationEntry,
  type LeadAgentOptions,
  type LeadAgentView,
  type ProfileName,
  type TeamModels,
  type BudgetLimits,
  parseBudgetText,
  TEAM_BUDGET,
  TEAM_BUDGET_DIMENSIONS,
  type TeamLimits,
  parseDeploymentModels,
  resolveModel,
  checkTeamId,
} from '../shared/contract';
import type { JsonValue } from '../shared/contract/json';
import { LEAD, OPERATOR } from '../shared/contract/callers';
import type { TaskMutationResult } from '../shared/contract/team';
import type { TaskStatus } from '../shared/contract/vocabulary';
import { terminalJson, terminalText } from '../shared/text/inertText';
import {
  describeBudget,
  formatAgentView,
  formatConversation,
  formatEdge,
  formatHealth,
  formatInbox,
  formatRoster,
  formatUsage,
  formatTasks,
  progressLine,
  webUiLink,
  webUiTeamLink,
} from './format';
import { PANEL_BIND_ADDRESS_INVALID, PANEL_TOKEN_REQUIRED, allowedHostName, isBindAddress, isLoopback, startPanel } from './panel/server';
import { DEFAULT_TIMEOUT_S, cliTimeoutMessage, commandPlan, parseSeconds, type CommandKind } from './timeouts';
import { checkoutRootFromEnv } from '../activities/tools/paths';
import { formatReview, review } from './review';

interface GlobalOptions {
  address?: string;
  namespace?: string;
  as: string;
  json?: boolean;
  /** Seconds: the command's deadline (with --wait: how long to wait for the answer; watch: each wait's margin). */
  timeout?: number;
}

/** Where the CLI is connected (for Web UI links and messages). */
interface Target {
  address: string;
  namespace: string;
}

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

/**
 * Connects, attaches to the Team with the command's deadlines (see commandPlan) and runs the
 * command within its deadline. `answerBy` (epoch ms): when a --wait command stops waiting.
 */
async function withTeam<T>(
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
async function connect(options: GlobalOptions, timeoutMs: number): Promise<Target & { connection: Connection }> {
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
function failure(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/**
 * The CLI's print boundary: everything it shows of a Team goes through here (stdout) or `warn`
 * (stderr). Models and callers wrote much of it, so no control character reaches the terminal:
 * tables and lines come from cli/format.ts on one line each, and this replaces whatever else is
 * left but line breaks and tabs (terminalText); JSON keeps every value, C1 and bidi controls
 * escaped as \uXXXX (terminalJson), as JSON.stringify does with C0.
 */
function print(options: GlobalOptions, value: unknown, human: () => string): void {
  console.log(options.json ? terminalJson(value) : terminalText(human(), 'block'));
}

/** stderr's side of the print boundary: progress, errors (a rejection's message may quote Team text). */
function warn(text: string): void {
  console.error(terminalText(text, 'block'));
}

/** Message text: JSON when it parses as JSON, otherwise the text itself. */
function messageContent(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

function profileName(value: string): ProfileName {
  if ((PROFILE_NAMES as readonly string[]).includes(value)) return value as ProfileName;
  throw new InvalidArgumentError(`unknown tool profile "${value}"; use one of: ${PROFILE_NAMES.join(', ')} (default: no Team tools; team: the Team tools)`);
}

interface AgentFlags {
  prompt?: string;
  profile?: ProfileName;
  model?: string;
  cwd?: string;
  checkoutQueue?: string;
  wait?: boolean;
}

/** Adds the Lead-agent options (start, fork). */
function withAgentOptions(command: Command): Command {
  return command
    .option('--prompt <text>', 'make the Lead an agent: the opening message of its first turn (without it the Team is operator-driven)')
    .option('--profile <default|team>', `the Lead's tool profile: ${PROFILE_NAMES.join(' | ')} (default: default)`, profileName)
    .option(
      '--model <name>',
      "the Lead's model (and the teammates' default), one of AGENT_TEAMS_MODELS when set; default: that list's first, else the worker's configured model",
    )
    .option('--cwd <dir>', 'directory the Lead (and every member) starts in, relative to the checkout root (default: .)')
    .option('--checkout-queue <taskQueue>', "task queue of the worker holding the checkout, where work tools run (default: the Team's task queue)")
    .option('--wait', "wait for the Lead agent's final answer (progress on stderr), then print it; --timeout: for how long (default 1800s)");
}

/** The Lead-agent options from the flags; agent-only flags without --prompt are an error. */
function agentOptions(flags: AgentFlags, requirePromptFor: string[]): LeadAgentOptions | undefined {
  if (flags.prompt === undefined) {
    const given: Record<string, boolean> = {
      '--profile': flags.profile !== undefined,
      '--model': flags.model !== undefined,
      '--cwd': flags.cwd !== undefined,
      '--checkout-queue': flags.checkoutQueue !== undefined,
      '--wait': flags.wait === true,
    };
    const stray = requirePromptFor.filter((flag) => given[flag]);
    if (stray.length > 0) {
      throw new InvalidArgumentError(
        `${stray.join(', ')} configure${stray.length === 1 ? 's' : ''} the Lead agent and need${stray.length === 1 ? 's' : ''} --prompt <text>; ` +
          `add a prompt, or drop ${stray.length === 1 ? 'it' : 'them'} for an operator-driven Team`,
      );
    }
    return undefined;
  }
  if (flags.prompt.trim() === '') throw new InvalidArgumentError('--prompt is empty; give the Lead something to do');
  return {
    prompt: flags.prompt,
    ...(flags.profile !== undefined ? { profile: flags.profile } : {}),
    ...(flags.model !== undefined ? { model: flags.model } : {}),
    ...(flags.cwd !== undefined ? { cwd: flags.cwd } : {}),
    ...(flags.checkoutQueue !== undefined ? { checkoutTaskQueue: flags.checkoutQueue } : {}),
  };
}

/** The deployment's model list and prices (AGENT_TEAMS_MODELS, AGENT_TEAMS_PRICES), recorded in every Team this CLI starts; absent when unset. */
function deploymentModels(): TeamModels | undefined {
  try {
    return parseDeploymentModels(process.env.AGENT_TEAMS_MODELS, process.env.AGENT_TEAMS_PRICES);
  } catch (error) {
    throw failure('InvalidModelList', errorMessage(error));
  }
}

/** A budget flag's value, or the typed InvalidBudget saying what to write. */
function budgetFlag(text: string): BudgetLimits {
  try {
    return parseBudgetText(text);
  } catch (error) {
    throw failure('InvalidBudget', errorMessage(error));
  }
}

function teamBudgetFlag(text: string): TeamLimits {
  const limits = budgetFlag(text);
  const other = Object.keys(limits).find((dimension) => !(TEAM_BUDGET_DIMENSIONS as readonly string[]).includes(dimension));
  if (other)
    throw failure(
      'InvalidBudget',
      `a Team budget caps calls, tokens and cost, not ${other === 'activeSeconds' ? 'active' : other}; give that per member (--member-budget)`,
    );
  return limits;
}

/** `inheritFrom`: a fork, whose profile and cwd default to the source Lead's. */
function describeAgent(agent: LeadAgentOptions | undefined, models: TeamModels | undefined, inheritFrom?: string): string {
  if (!agent) return 'operator-driven (no Lead agent)';
  const inherited = inheritFrom ? `as in ${inheritFrom}` : undefined;
  return (
    `Lead agent with profile ${agent.profile ?? inherited ?? 'default'}, model ${resolveModel(models, agent.model) ?? "the worker's default"}, ` +
    `cwd ${agent.cwd ?? inherited ?? '.'}${agent.checkoutTaskQueue ? `, checkout on ${agent.checkoutTaskQueue}` : ''}`
  );
}

/** The Web UI line after start/fork (human output only; --json carries `webUi`). */
function printWebUi(options: GlobalOptions, target: Target, teamId: string, link: string | null): void {
  if (options.json) return;
  const team = webUiTeamLink(target.address, target.namespace, teamId);
  print(options, null, () =>
    [
      link ? `Web UI: ${link}` : `Web UI: set TEMPORAL_UI_URL to print a link (workflow id ${teamId}, namespace ${target.namespace})`,
      ...(team ? [`Web UI, the whole Team: ${team}`] : []),
    ].join('\n'),
  );
}

/** After start/fork: what was started and the Web UI link, then (with --wait) the Lead's answer. */
async function announceStarted(
  team: TeamClient,
  options: GlobalOptions,
  target: Target,
  opts: { wait?: boolean },
  answerBy: number,
  payload: { teamId: string } & Record<string, unknown>,
  line: () => string,
): Promise<void> {
  const link = webUiLink(target.address, target.namespace, payload.teamId);
  if (!(options.json && opts.wait)) print(options, { ...payload, webUi: link }, line);
  printWebUi(options, target, payload.teamId, link);
  if (opts.wait) await waitAndPrintAnswer(team, options, answerBy);
}

/**
 * Waits until `answerBy` (epoch ms) for the Lead agent's final answer, printing progress to
 * stderr, then prints the answer (the LeadAgentView with --json). A timeout says how to carry on.
 */
async function waitAndPrintAnswer(team: TeamClient, options: GlobalOptions, answerBy: number, afterMessageId?: string): Promise<LeadAgentView> {
  const last: { status?: string; turns?: number } = {};
  const timeoutMs = Math.max(1, answerBy - Date.now());
  warn(`waiting for ${team.teamId}'s Lead agent to answer (up to ${Math.round(timeoutMs / 1000)}s; Ctrl-C stops waiting, not the Team)…`);
  let view: LeadAgentView;
  try {
    view = await team.waitForAnswer({
      timeoutMs,
      ...(afterMessageId !== undefined ? { afterMessageId } : {}),
      onProgress: (current, edge) => {
        const line = progressLine(current, edge, last);
        if (line) warn(line);
      },
    });
  } catch (error) {
    if (error instanceof ApplicationFailure && error.type === LEAD_ANSWER_TIMEOUT) {
      throw ApplicationFailure.create({
        type: LEAD_ANSWER_TIMEOUT,
        message:
          `${error.message.replace(/: wait again, or read its conversation$/, '')}; ` +
          `wait again: agent-teams answer ${team.teamId} --wait [--timeout <seconds>], or read it: agent-teams conversation ${team.teamId}`,
        details: error.details ?? [],
        nonRetryable: true,
      });
    }
    throw error;
  }
  print(options, view, () => formatAgentView(team.teamId, view));
  return view;
}

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
    await withTeam(teamId, opts.wait ? 'wait' : 'change', async (team, options, target, answerBy) => {
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
    await withTeam(teamId, opts.wait ? 'wait' : 'change', async (team, options, _target, answerBy) => {
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
    await withTeam(teamId, opts.wait ? 'wait' : 'read', async (team, options, _target, answerBy) => {
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
    await withTeam(teamId, 'read', async (team, options) => {
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
  await withTeam(newTeamId, opts.wait ? 'wait' : 'change', async (team, options, target, answerBy) => {
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
    await withTeam(teamId, 'read', async (team, options, target) => {
      const health = await team.health();
      const link = webUiLink(target.address, target.namespace, teamId);
      print(options, { ...health, advice: healthAdvice(health, 'status'), webUi: link }, () => formatHealth(health, healthAdvice(health, 'status'), link));
    });
  });

program
  .command('spawn <teamId> <name> <message>')
  .description('spawn a teammate (Lead only); the message is its first inbox item (JSON or text)')
  .option('--fork', 'fork context instead of fresh')
  .option('--model <model>', 'model for this teammate')
  .action(async (teamId: string, name: string, message: string, opts: { fork?: boolean; model?: string }) => {
    await withTeam(teamId, 'change', async (team, options) => {
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
    await withTeam(teamId, 'change', async (team, options) => {
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
    await withTeam(teamId, 'read', async (team, options) => {
      // Usage is a column, not the roster's job: a worker too old to answer getTeamUsage leaves it empty.
      const [view, live, usage] = await Promise.all([team.view(), team.liveStatus(), team.usage().catch(() => null)]);
      print(options, { lead: view.lead, members: view.members, live, usage }, () => formatRoster(view, live, usage));
    });
  });

program
  .command('budget <teamId> <name> <budget>')
  .description(
    "replace a teammate's budget, the Lead agent's (name lead) or the Team's (name @team): calls=N,tokens=N,cost=USD,turns=N,active=SECONDS; " +
      'the operator may raise, the Lead only lower',
  )
  .action(async (teamId: string, name: string, text: string) => {
    const budget = budgetFlag(text);
    await withTeam(teamId, 'change', async (team, options) => {
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
    await withTeam(teamId, 'read', async (team, options) => {
      const usage = await team.usage();
      print(options, usage, () => formatUsage(usage));
    });
  });

program
  .command('tasks <teamId>')
  .description('list the task board (non-deleted tasks, readiness, write-scope overlaps)')
  .action(async (teamId: string) => {
    await withTeam(teamId, 'read', async (team, options) => {
      const view = await team.view();
      print(options, view.tasks, () => formatTasks(view.tasks));
    });
  });

const task = program.command('task').description('task board mutations (Updates checked against expectedRevision)');
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

task
  .command('create <teamId> <subject>')
  .option('--description <text>', 'description', '')
  .option('--deps <ids>', 'comma-separated task ids this depends on', ids, [] as number[])
  .option('--scopes <paths>', 'comma-separated advisory write scopes', list, [] as string[])
  .action(async (teamId: string, subject: string, opts: { description: string; deps: number[]; scopes: string[] }) => {
    await withTeam(teamId, 'change', async (team, options) =>
      printTask(options, await team.createTask({ subject, description: opts.description, dependencies: opts.deps, writeScopes: opts.scopes })),
    );
  });
task.command('claim <teamId> <taskId> <expectedRevision>').action(async (teamId: string, taskId: string, revision: string) => {
  await withTeam(teamId, 'change', async (team, options) =>
    printTask(options, await team.claimTask({ taskId: Number(taskId), expectedRevision: Number(revision) })),
  );
});
task
  .command('status <teamId> <taskId> <expectedRevision> <status>')
  .description('pending | in_progress | completed | cancelled (see the status table in README)')
  .action(async (teamId: string, taskId: string, revision: string, status: TaskStatus) => {
    await withTeam(teamId, 'change', async (team, options) =>
      printTask(options, await team.transitionTask({ taskId: Number(taskId), expectedRevision: Number(revision), status })),
    );
  });
task
  .command('assign <teamId> <taskId> <expectedRevision> <owner>')
  .description('Lead only; owner "none" releases the task')
  .action(async (teamId: string, taskId: string, revision: string, owner: string) => {
    await withTeam(teamId, 'change', async (team, options) =>
      printTask(options, await team.assignTask({ taskId: Number(taskId), expectedRevision: Number(revision), owner: owner === 'none' ? null : owner })),
    );
  });

program
  .command('inbox <teamId>')
  .description("take the messages waiting in the Lead's inbox (Lead only)")
  .action(async (teamId: string) => {
    await withTeam(teamId, 'change', async (team, options) => {
      const messages = await team.readLeadInbox();
      print(options, messages, () => formatInbox(messages));
    });
  });

program
  .command('watch <teamId>')
  .description('print roster, mailbox, task and status edges as they happen (durable waits, no polling)')
  .option('--for <seconds>', 'stop after this long (default: until Ctrl-C); each wait ends within its length plus --timeout (default 30s)', parseSeconds)
  .action(async (teamId: string, opts: { for?: number }) => {
    await withTeam(
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

program
  .command('interrupt <teamId> <name>')
  .description("cancel a teammate's current turn (Lead only); its inbox and tasks are untouched")
  .action(async (teamId: string, name: string) => {
    await withTeam(teamId, 'change', async (team, options) => {
      const result = await team.interruptTeammate(name);
      print(options, result, () => `interrupted ${name} (was ${result.statusAtInterrupt})`);
    });
  });

program
  .command('dispose <teamId>')
  .description('close admission, stop every teammate and finish the Team (Lead only)')
  .action(async (teamId: string) => {
    await withTeam(teamId, 'dispose', async (team, options) => {
      warn(`disposing ${teamId}: stopping teammates…`);
      const view = await team.dispose();
      print(options, view, () => `disposed ${teamId}: ${view.members.map((m) => `${m.name} ${m.phase}`).join(', ') || 'no teammates'}`);
    });
  });

program
  .command('cancel <teamId>')
  .description("request cancellation, as the Web UI's button and `temporal workflow cancel` do: the Lead disposes of the Team, then ends CANCELLED (Lead only)")
  .action(async (teamId: string) => {
    await withTeam(teamId, 'dispose', async (team, options) => {
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

program
  .command('panel')
  .description("serve the live web panel: each Team's roster, board and Lead, updated as they change (Server-Sent Events, no polling)")
  .option('--port <port>', 'port to listen on (default 8299; 0 picks a free one)', (value: string) => parsePort(value), 8299)
  .option('--host <host>', 'address to bind: an IP address or localhost (default 127.0.0.1; a non-loopback one needs --token)', '127.0.0.1')
  .option('--token <secret>', 'required to bind a non-loopback address: every request must carry it (default: $PANEL_TOKEN)')
  .option(
    '--allowed-host <name>',
    'also answer requests whose Host is this name (repeatable; loopback names and the bound address are always answered)',
    (value: string, previous: string[]) => [...previous, parseAllowedHost(value)],
    [] as string[],
  )
  .action(async (opts: { port: number; host: string; token?: string; allowedHost: string[] }) => {
    const options = program.opts<GlobalOptions>();
    const token = opts.token ?? process.env.PANEL_TOKEN;
    // Checked before connecting, and before the token: a name is refused whatever it resolves to.
    if (!isBindAddress(opts.host)) {
      throw failure(
        PANEL_BIND_ADDRESS_INVALID,
        `--host ${opts.host} is not an IP address or localhost: bind an address (e.g. 127.0.0.1, 0.0.0.0, ::1); ` +
          'to open the panel by a name, also pass --allowed-host <name>',
      );
    }
    if (!isLoopback(opts.host) && !token) {
      throw failure(
        PANEL_TOKEN_REQUIRED,
        `--host ${opts.host} is not loopback: pass --token <secret> (or set PANEL_TOKEN), then share the URL the panel prints`,
      );
    }
    const { connection, address, namespace } = await connect(options, 5_000);
    const client = new Client({ connection, namespace });
    const panel = await startPanel({
      client,
      host: opts.host,
      port: opts.port,
      ...(token ? { token } : {}),
      allowedHosts: opts.allowedHost,
      webUiLink: (teamId) => webUiLink(address, namespace, teamId),
    });
    // panel.url carries the panel's own ?token= on purpose: it is the URL to share (docs/cli.md).
    console.log(`panel: ${panel.url} (Teams in namespace ${namespace} at ${redactAddress(address)}; Ctrl-C to stop)`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await panel.close();
    await connection.close();
  });

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

function parseAllowedHost(value: string): string {
  try {
    return allowedHostName(value);
  } catch (error) {
    throw new InvalidArgumentError(errorMessage(error));
  }
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError(`"${value}" is not a port (0-65535)`);
  return port;
}

program.parseAsync(process.argv).catch((error: unknown) => {
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
});
