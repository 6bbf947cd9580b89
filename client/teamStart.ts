/**
 * Starting a Team: the Lead workflow's start (its input, search attributes and Web UI metadata),
 * and the input of a new root forked from another root's Lead conversation. TeamClient.start and
 * TeamClient.forkRoot put these together and return the client of the new Team.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import * as defs from '../shared/contract';
import { AGENT_TEAM_ID, AGENT_TEAM_MEMBER, AGENT_TEAM_ROLE } from '../shared/contract/searchAttributes';
import { leadContext, startMetadata } from '../shared/text/webUi';
import { unpricedBudget, unpricedTeamBudget } from '../shared/agent/spend';
import type { TeamDeadlines } from './deadlines';
import { FORK_TOO_LARGE, NO_LEAD_AGENT, TEAM_ALREADY_STARTED, TEAM_NOT_FOUND } from './failures';
import type { TeamCalls } from './teamCalls';
import { LEAD } from '../shared/contract';

export interface StartTeamOptions {
  teamId: string;
  taskQueue?: string;
  maxMembers?: number;
  teammateMaxTurnsPerRun?: number;
  /** Historical Lead-log mailbox records to keep readable (never delivered). */
  legacyMailbox?: unknown[];
  /** Makes the Lead an agent (opening prompt, profile, model, cwd, checkout queue); absent = operator-driven. */
  agent?: defs.LeadAgentOptions;
  /** The models the Team may use and its default, recorded in its start input (the CLI reads AGENT_TEAMS_MODELS); absent: any. */
  models?: defs.TeamModels;
  /** Spend budgets: the Lead agent's own and each member's (docs/agent-runtime.md, "Budgets"); absent: none. */
  budgets?: defs.TeamBudgets;
  /** The returned client's deadlines (and the start call's), over the defaults. */
  deadlines?: Partial<TeamDeadlines>;
}

export interface ForkRootOptions {
  /** The root whose Lead conversation is forked (read once with `getAgentState`). */
  sourceTeamId: string;
  /** The new root's id (a new Team). */
  teamId: string;
  taskQueue?: string;
  /**
   * The fork's Lead agent. `profile` and `cwd` default to the source Lead's; without `agent` the
   * new Lead gets only the forked conversation (what it does then is the workflow's rule).
   */
  agent?: defs.LeadAgentOptions;
  /** The new root's model list (a fork is a new Team; nothing is inherited from the source's). */
  models?: defs.TeamModels;
  /** The deadlines of the source read, the start and the returned client, over the defaults. */
  deadlines?: Partial<TeamDeadlines>;
}

export type ForkOf = NonNullable<defs.TeamLeadInput['forkOf']>;

/** The server rejects payloads over 2 MB (default blob size limit); stay well below. */
const MAX_FORK_INPUT_BYTES = 1_500_000;

/**
 * Starts the Team's Lead workflow (workflow id = the Team's root SessionId) as one call of `calls`
 * (the new Team's engine, deadline `callMs`). A Lead already running at that id is
 * TeamAlreadyStarted.
 */
export async function startLeadWorkflow(calls: TeamCalls, options: StartTeamOptions, forkOf?: ForkOf): Promise<void> {
  const { client } = calls.team;
  // Refused here, before anything starts; the Lead refuses the same input from a raw start.
  defs.checkTeamId(options.teamId);
  if (forkOf !== undefined) defs.checkTeamId(forkOf.teamId);
  const modelProblem = defs.modelNotAllowed(options.models, options.agent?.model);
  if (modelProblem) throw ApplicationFailure.create({ type: defs.MODEL_NOT_ALLOWED, message: `the Lead's ${modelProblem}`, nonRetryable: true });
  const unpriced = options.agent ? unpricedBudget(options.budgets?.lead, defs.resolveModel(options.models, options.agent.model), options.models?.prices) : null;
  if (unpriced) throw ApplicationFailure.create({ type: defs.BUDGET_UNPRICED, message: `the Lead's ${unpriced}`, nonRetryable: true });
  const teamUnpriced = unpricedTeamBudget(options.budgets?.team, options.models);
  if (teamUnpriced) throw ApplicationFailure.create({ type: defs.BUDGET_UNPRICED, message: teamUnpriced, nonRetryable: true });
  try {
    await calls.call('start', calls.team.deadlines.callMs, () =>
      client.workflow.start<defs.TeamLeadWorkflow>(defs.TEAM_LEAD_WORKFLOW_TYPE, {
        workflowId: options.teamId,
        taskQueue: options.taskQueue ?? defs.DEFAULT_TASK_QUEUE,
        args: [
          {
            teamId: options.teamId,
            ...(options.maxMembers !== undefined ? { maxMembers: options.maxMembers } : {}),
            ...(options.teammateMaxTurnsPerRun !== undefined ? { teammateMaxTurnsPerRun: options.teammateMaxTurnsPerRun } : {}),
            ...(options.legacyMailbox !== undefined ? { legacyMailbox: options.legacyMailbox } : {}),
            ...(options.agent !== undefined ? { agent: options.agent } : {}),
            ...(forkOf !== undefined ? { forkOf } : {}),
            ...(options.models !== undefined ? { models: options.models } : {}),
            ...(options.budgets !== undefined ? { budgets: options.budgets } : {}),
          },
        ],
        typedSearchAttributes: [
          { key: AGENT_TEAM_ID, value: options.teamId },
          { key: AGENT_TEAM_ROLE, value: 'lead' },
          { key: AGENT_TEAM_MEMBER, value: LEAD },
        ],
        ...startMetadata({
          teamId: options.teamId,
          name: LEAD,
          role: 'lead',
          context: leadContext(options.agent, forkOf?.teamId),
          model: defs.resolveModel(options.models, options.agent?.model),
        }),
      }),
    );
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      throw ApplicationFailure.create({
        type: TEAM_ALREADY_STARTED,
        message: `Team ${options.teamId} is already running; attach to it with TeamClient.attach(client, "${options.teamId}") or pick another session id`,
        nonRetryable: true,
      });
    }
    throw error;
  }
}

/**
 * What a fork of a root starts with: the source Lead's conversation, read once through
 * `readSourceState` (its `getAgentState`) and passed as `forkOf`, and the new root's start options.
 * The source is untouched.
 */
export async function forkRootStart(
  options: ForkRootOptions,
  readSourceState: () => Promise<defs.LeadAgentView>,
): Promise<{ start: StartTeamOptions; forkOf: ForkOf }> {
  defs.checkTeamId(options.sourceTeamId);
  defs.checkTeamId(options.teamId);
  if (options.sourceTeamId === options.teamId) {
    throw new Error(`a fork needs a new team id; ${options.teamId} is the source itself`);
  }
  let view: defs.LeadAgentView;
  try {
    view = await readSourceState();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      throw ApplicationFailure.create({
        type: TEAM_NOT_FOUND,
        message: `no source Team ${options.sourceTeamId} to fork (${error.message}); check the id and namespace`,
        nonRetryable: true,
      });
    }
    throw error;
  }
  if (!view.enabled) {
    throw ApplicationFailure.create({
      type: NO_LEAD_AGENT,
      message:
        `Team ${options.sourceTeamId}'s Lead is not an agent (started without a prompt), so it has no conversation to fork; ` +
        `start a new Team with a prompt instead`,
      nonRetryable: true,
    });
  }
  const forkOf = { teamId: options.sourceTeamId, conversation: view.conversation };
  const bytes = Buffer.byteLength(JSON.stringify(forkOf));
  if (bytes > MAX_FORK_INPUT_BYTES) {
    throw ApplicationFailure.create({
      type: FORK_TOO_LARGE,
      message:
        `Team ${options.sourceTeamId}'s conversation is ${bytes} bytes, too large for a workflow input (limit ~${MAX_FORK_INPUT_BYTES}); ` +
        `start a new Team and pass a summary in its prompt`,
      nonRetryable: true,
    });
  }
  const agent = options.agent ? { profile: view.profile, cwd: view.cwd, ...options.agent } : undefined;
  const start: StartTeamOptions = {
    teamId: options.teamId,
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
    ...(agent ? { agent } : {}),
    ...(options.models ? { models: options.models } : {}),
    ...(options.deadlines ? { deadlines: options.deadlines } : {}),
  };
  return { start, forkOf };
}
