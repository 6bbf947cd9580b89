/**
 * The Lead agent on the command line (team.ts): the flags that make start's and fork's Lead an
 * agent, what those two print once the Team runs, and the wait for the Lead's answer (--wait).
 */
import { ApplicationFailure } from '@temporalio/common';
import { InvalidArgumentError, type Command } from 'commander';
import { LEAD_ANSWER_TIMEOUT, type TeamClient } from '../../client/teamClient';
import {
  PROFILE_NAMES,
  parseDeploymentModels,
  resolveModel,
  type LeadAgentOptions,
  type LeadAgentView,
  type ProfileName,
  type TeamModels,
} from '../../shared/contract';
import { errorMessage } from '../../shared/util/errors';
import { failure, print, warn, type GlobalOptions, type Target } from '../common';
import { formatAgentView, progressLine, webUiLink, webUiTeamLink } from '../format';

function profileName(value: string): ProfileName {
  if ((PROFILE_NAMES as readonly string[]).includes(value)) return value as ProfileName;
  throw new InvalidArgumentError(`unknown tool profile "${value}"; use one of: ${PROFILE_NAMES.join(', ')} (default: no Team tools; team: the Team tools)`);
}

export interface AgentFlags {
  prompt?: string;
  profile?: ProfileName;
  model?: string;
  cwd?: string;
  checkoutQueue?: string;
  wait?: boolean;
}

/** Adds the Lead-agent options (start, fork). */
export function withAgentOptions(command: Command): Command {
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
export function agentOptions(flags: AgentFlags, requirePromptFor: string[]): LeadAgentOptions | undefined {
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
export function deploymentModels(): TeamModels | undefined {
  try {
    return parseDeploymentModels(process.env.AGENT_TEAMS_MODELS, process.env.AGENT_TEAMS_PRICES);
  } catch (error) {
    throw failure('InvalidModelList', errorMessage(error));
  }
}

/** `inheritFrom`: a fork, whose profile and cwd default to the source Lead's. */
export function describeAgent(agent: LeadAgentOptions | undefined, models: TeamModels | undefined, inheritFrom?: string): string {
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
export async function announceStarted(
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
export async function waitAndPrintAnswer(team: TeamClient, options: GlobalOptions, answerBy: number, afterMessageId?: string): Promise<LeadAgentView> {
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
