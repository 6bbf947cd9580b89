/**
 * What the Temporal Web UI shows for a Team: each workflow's static summary and details (who it
 * is), its current details (what it does now), and each activity's summary (what this call is).
 * Pure text functions, bundled into workflow code; every text is one bounded string and carries no
 * tool arguments beyond a short command prefix, so nothing secret lands in the history's metadata.
 *
 * The Web UI renders all of these as Markdown, and a model or a caller chose every name in them
 * (team id, member, model, tool name, bash command, workflow id): each such piece goes through
 * markdownText (shared/text/inertText.ts), so it renders as the text it is and forms no link, image or
 * HTML; only this module's fixed templates carry Markdown (`**Team**`, list items). Escape first,
 * then cut (cutMarkdown), so a bound holds on what is stored and no cut splits an escape.
 */
import { cutMarkdown, markdownText } from './inertText';
import type { AgentStatus, LiveStatus, TeamUsageView, MemberContext, TaskStatus } from '../contract';
import type { LeadState } from '../lead/state';
import { isLivePhase } from '../team';
import type { ToolCall } from '../contract/model';

/** The Web UI shows a summary on one line; the server keeps more, the table does not. */
export const MAX_SUMMARY_LENGTH = 200;
/** Static and current details: a few markdown lines. */
export const MAX_DETAILS_LENGTH = 1_000;
/** A bash command in an activity summary or a current step: at most this many characters of its first words. */
export const COMMAND_PREFIX_LENGTH = 40;

export type SessionKind = 'lead' | 'teammate' | 'subagent';

export interface WorkflowIdentity {
  teamId: string;
  /** `lead`, the teammate's name, or `subagent-<n>`. */
  name: string;
  role: SessionKind;
  /** A teammate's or subagent's context; the Lead's is how it is driven (see leadContext). */
  context: MemberContext | 'operator-driven' | `agent, ${string} profile` | `fork of ${string}`;
  /** null: the worker's default model. */
  model: string | null;
}

/** The static summary and details a workflow start carries (WorkflowStartOptions / ChildWorkflowOptions). */
export interface StartMetadata {
  staticSummary: string;
  staticDetails: string;
}

/** The Lead's context line: operator-driven, an agent of a profile, or a fork of another root. */
export function leadContext(agent: { profile?: string } | undefined, forkOf?: string): WorkflowIdentity['context'] {
  if (forkOf !== undefined) return `fork of ${forkOf}`;
  return agent ? `agent, ${agent.profile ?? 'default'} profile` : 'operator-driven';
}

export function startMetadata(who: WorkflowIdentity): StartMetadata {
  const model = who.model ?? 'worker default';
  const [teamId, name, context] = [markdownText(who.teamId), markdownText(who.name), markdownText(who.context)];
  const summary = `${name} · ${who.role} of Team ${teamId} · ${context} · model ${markdownText(model)}`;
  // Plain escaped text, not code spans: a code span shows backslashes literally, so it could not
  // hold an escaped `{workflowId}`, which the Web UI would replace even inside one.
  const details = [
    `- **Team**: ${teamId}`,
    `- **Member**: ${name}`,
    `- **Role**: ${who.role}`,
    `- **Context**: ${context}`,
    `- **Model**: ${markdownText(model)}`,
  ].join('\n');
  return { staticSummary: oneLine(summary, MAX_SUMMARY_LENGTH), staticDetails: cutMarkdown(details, MAX_DETAILS_LENGTH) };
}

// ---- current details -------------------------------------------------------------------------

/** The step a running turn is at: `calling model`, `bash: npm test`, `task\_update`. Markdown, escaped already. */
export const MODEL_STEP = 'calling model';

/** A tool call's step: the tool's name (the model chose it), or `bash: ` and the command's prefix; escaped Markdown. */
export function toolStep(call: ToolCall): string {
  if (call.name !== 'bash') return oneLine(markdownText(call.name), MAX_SUMMARY_LENGTH);
  const prefix = commandPrefix(call.argumentsJson);
  return oneLine(prefix ? `bash: ${markdownText(prefix)}` : 'bash', MAX_SUMMARY_LENGTH);
}

export interface MemberActivity {
  status: LiveStatus | AgentStatus;
  /** The turn running or last run; 0 before the first. */
  turn: number;
  /** What the running turn does now (MODEL_STEP or a toolStep: Markdown, escaped already); ignored unless running. */
  step: string | null;
}

/** A member's (or the Lead agent's) current details: `running turn 3 · calling model`, `idle`. */
export function memberDetails(activity: MemberActivity): string {
  if (activity.status === 'running') {
    return oneLine(`running turn ${activity.turn}${activity.step ? ` · ${activity.step}` : ''}`, MAX_SUMMARY_LENGTH);
  }
  return activity.turn > 0 ? `${activity.status} · ${activity.turn} turn${activity.turn === 1 ? '' : 's'} so far` : activity.status;
}

/**
 * The Lead's current details: a roster and board summary on the first line
 * (`2 members active · tasks: 1 pending, 1 in progress, 3 completed · admission open`), and the Lead
 * agent's own activity below it when the Lead is an agent.
 */
export function leadDetails(
  state: Pick<LeadState, 'team' | 'liveStatus'>,
  agent: MemberActivity | null,
  usage?: Pick<TeamUsageView, 'total' | 'costUsd'>,
): string {
  const members = Object.values(state.team.members);
  const live = members.filter((m) => isLivePhase(m.phase));
  const running = live.filter((m) => Object.prototype.hasOwnProperty.call(state.liveStatus, m.name) && state.liveStatus[m.name] === 'running');
  const counts: Record<TaskStatus, number> = { pending: 0, in_progress: 0, completed: 0, cancelled: 0 };
  for (const task of Object.values(state.team.tasks)) if (!task.deleted) counts[task.status] += 1;
  const tasks = (Object.keys(counts) as TaskStatus[]).filter((status) => counts[status] > 0).map((status) => `${counts[status]} ${status.replace('_', ' ')}`);
  const roster = `${live.length} member${live.length === 1 ? '' : 's'} active${running.length > 0 ? ` (${running.length} running)` : ''}`;
  const line = `${roster} · tasks: ${tasks.length > 0 ? tasks.join(', ') : 'none'} · admission ${state.team.admission}`;
  const parts = [line, ...(agent ? [`lead: ${memberDetails(agent)}`] : []), ...(usage && usage.total.calls > 0 ? [usageLine(usage)] : [])];
  return cutMarkdown(parts.join('\n\n'), MAX_DETAILS_LENGTH);
}

/** `usage: 12 model calls · 15737 tokens in (0 from cache), 25 out · $0.0185` (the cost only when a price applies). */
export function usageLine({ total, costUsd }: Pick<TeamUsageView, 'total' | 'costUsd'>): string {
  const calls = `${total.calls} model call${total.calls === 1 ? '' : 's'}`;
  const tokens = `${total.inputTokens} tokens in (${total.cacheReadTokens} from cache), ${total.outputTokens} out`;
  return `usage: ${calls} · ${tokens}${costUsd === null ? '' : ` · $${costUsd.toFixed(4)}`}`;
}

// ---- activity summaries ----------------------------------------------------------------------

/** `lead · callModel turn 3 step 2`. */
export function modelCallSummary(name: string, turn: number, step: number): string {
  return oneLine(`${markdownText(name)} · callModel turn ${turn} step ${step + 1}`, MAX_SUMMARY_LENGTH);
}

/** `parser-dev · bash: npm test`, `parser-dev · task_update`. */
export function toolCallSummary(name: string, call: ToolCall): string {
  return oneLine(`${markdownText(name)} · ${toolStep(call)}`, MAX_SUMMARY_LENGTH);
}

/** A member's status report to its Lead: `parser-dev · reportMemberStatus running turn 2`. */
export function statusReportSummary(name: string, status: LiveStatus, turn: number): string {
  return oneLine(`${markdownText(name)} · reportMemberStatus ${status} turn ${turn}`, MAX_SUMMARY_LENGTH);
}

/** Under a Team budget, a member's ask before a model call: `parser-dev · requestModelCall call 3`. */
export function modelCallRequestSummary(name: string, call: number): string {
  return oneLine(`${markdownText(name)} · requestModelCall call ${call}`, MAX_SUMMARY_LENGTH);
}

/** The Lead's control activities: `lead · stopTeammate parser-dev`. */
export function controlSummary(activity: 'stopTeammate' | 'reconcileTeammate' | 'memberClosed', workflowId: string): string {
  return oneLine(`lead · ${activity} ${markdownText(workflowId)}`, MAX_SUMMARY_LENGTH);
}

/**
 * The first words of a bash command, for a summary: at most three, stopping before the first
 * that looks like an assignment, a URL or a credential (`=`, `:`, `@`), each cut short, at most
 * COMMAND_PREFIX_LENGTH characters in all. Empty when the arguments are not a command. Plain
 * text, not Markdown: callers escape it (toolStep).
 */
export function commandPrefix(argumentsJson: string): string {
  let command: unknown;
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    command = typeof parsed === 'object' && parsed !== null ? Object.getOwnPropertyDescriptor(parsed, 'command')?.value : undefined;
  } catch {
    return '';
  }
  if (typeof command !== 'string') return '';
  const words: string[] = [];
  for (const word of (command.split('\n')[0] ?? '').trim().split(/\s+/)) {
    if (word === '' || words.length === 3 || /[=:@]/.test(word)) break;
    words.push(word.length > 24 ? `${word.slice(0, 23)}…` : word);
  }
  const prefix = words.join(' ');
  return prefix.length > COMMAND_PREFIX_LENGTH ? `${prefix.slice(0, COMMAND_PREFIX_LENGTH - 1)}…` : prefix;
}

// ---- text bounds -----------------------------------------------------------------------------

/**
 * Control characters and line breaks become spaces; cut to `max` characters with an ellipsis,
 * never inside an escape. `text` is Markdown built from markdownText pieces and fixed templates.
 */
export function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  return cutMarkdown(text.replace(/[\u0000-\u001f\u007f]+/g, ' '), max);
}
