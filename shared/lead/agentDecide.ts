/**
 * One small decide function per Lead agent command (its status, turn bookkeeping, nudges, working
 * directory, subagents): from the agent's state and the command, the events to apply
 * (agentEvents.ts), or a typed rejection. Pure: bundled into workflow code. The workflow
 * (workflows/lead/agent.ts, subagents.ts, agentState.ts) carries out the effects and applies the
 * events through LeadAgentState.apply only.
 */
import type { AgentStatus, ConversationEntry, SubagentAnswer, InboxMessage } from '../contract';
import { MAX_SUBAGENTS, SUBAGENT_ANSWER_MAX_BYTES, utf8Length } from '../contract/limits';
import { own } from '../util/own';
import type { LeadAgentEvent } from './agentEvents';
import type { CarriedLeadAgent, SubagentRecord } from './carried';
import { MODEL_NOT_ALLOWED, modelNotAllowed, resolveModel, type TeamModels } from '../contract/modelNames';
import { BUDGET_EXHAUSTED, BUDGET_UNPRICED, type BudgetExhaustion, type BudgetLimits } from '../contract/budgets';
import { exhaustionText, unpricedBudget } from '../agent/spend';
import type { ModelUsage } from '../contract/model';
import { callUsage } from '../agent/usage';
import { LEAD } from '../contract';

const NO_MODEL = { models: undefined, requested: null, inherited: null };

export type LeadAgentRejectionType = 'TooManySubagents' | 'UnknownAgent' | typeof MODEL_NOT_ALLOWED | typeof BUDGET_UNPRICED;
export interface LeadAgentRejection {
  type: LeadAgentRejectionType;
  message: string;
}
export type LeadAgentDecision = { ok: true; events: LeadAgentEvent[] } | { ok: false; rejection: LeadAgentRejection };

const accept = (...events: LeadAgentEvent[]): LeadAgentDecision => ({ ok: true, events });
const refuse = (type: LeadAgentRejectionType, message: string): LeadAgentDecision => ({ ok: false, rejection: { type, message } });

// ---- status --------------------------------------------------------------------------------

/** Nothing when the status is already that one (no edge, no search attribute update). */
export function decideStatus(state: CarriedLeadAgent, status: AgentStatus): LeadAgentEvent[] {
  return state.status === status ? [] : [{ type: 'statusChanged', status }];
}

// ---- usage -------------------------------------------------------------------------------------

/** One of the Lead's model calls came back with this usage (undefined: the provider reported none; the call still counts). */
export function decideModelCall(state: CarriedLeadAgent, usage: ModelUsage | undefined): LeadAgentEvent[] {
  return [{ type: 'modelCallCompleted', turn: state.turns, usage: callUsage(usage) }];
}

/** The Lead's turn took `ms` of workflow time (nothing when it took none). */
export function decideActiveTime(_state: CarriedLeadAgent, ms: number): LeadAgentEvent[] {
  return ms > 0 ? [{ type: 'activeTimeAdded', ms }] : [];
}

// ---- turn bookkeeping ----------------------------------------------------------------------

/** A new turn over the inbox's messages (the workflow records them as the turn's user entries). */
export function decideBeginTurn(state: CarriedLeadAgent, messages: readonly InboxMessage[]): LeadAgentEvent[] {
  return [{ type: 'turnBegan' }, ...decideTake(state, messages)];
}

/** Messages taken into the conversation (a turn's opening messages, or Steer's take into the running turn). */
export function decideTake(state: CarriedLeadAgent, messages: readonly InboxMessage[]): LeadAgentEvent[] {
  // Word from anyone but the Lead itself (its own nudges) starts the nudge count over.
  return state.nudges !== 0 && messages.some((m) => m.from !== LEAD) ? [{ type: 'nudgesReset' }] : [];
}

/** A turn (new or resumed) is about to run. */
export function decideStartTurn(_state: CarriedLeadAgent): LeadAgentEvent[] {
  return [{ type: 'turnStarted' }];
}

/** The turn stopped at a step boundary for the rollover. */
export function decideYield(_state: CarriedLeadAgent, turn: number, step: number): LeadAgentEvent[] {
  return [{ type: 'turnYielded', turn, step }];
}

/** The run goes on with the turn the previous run yielded, if there is one. */
export function decideResume(state: CarriedLeadAgent): LeadAgentEvent[] {
  return state.resumeTurn !== undefined ? [{ type: 'turnResumed' }] : [];
}

/** A turn failed with `message` (already redacted and bounded). */
export function decideTurnFailed(_state: CarriedLeadAgent, message: string): LeadAgentEvent[] {
  return [{ type: 'turnFailed', error: `${message}; fix the cause (e.g. the worker's model configuration), then prompt the Lead again` }];
}

/** A nudge after a reply (shared/lead/nextStep.ts): counted only when it counts against MAX_COMPLETION_NUDGES. */
export function decideNudge(_state: CarriedLeadAgent, countsAgainstNudgeLimit: boolean): LeadAgentEvent[] {
  return countsAgainstNudgeLimit ? [{ type: 'nudgeCounted' }] : [];
}

/** The last reply becomes the final answer, with the tasks open at that moment. */
export function decideAnswer(state: CarriedLeadAgent, openTasks: readonly number[]): LeadAgentEvent[] {
  return [{ type: 'answered', finalAnswer: lastReply(state.conversation), openTasks: [...openTasks] }];
}

/** A budget stopped the Lead's turn: its final answer says which, with the tasks still open. */
export function decideBudgetAnswer(_state: CarriedLeadAgent, exhausted: BudgetExhaustion, openTasks: readonly number[]): LeadAgentEvent[] {
  const finalAnswer =
    `${BUDGET_EXHAUSTED}: ${exhaustionText('the Lead', exhausted)}. ` +
    (exhausted.scope === 'team'
      ? 'The Lead stopped before its next model call; the operator can raise the Team budget (setBudget "@team") for the Team to go on.'
      : 'The Lead stopped before its next model call; the operator can raise its budget (setBudget) for it to go on.');
  return [{ type: 'answered', finalAnswer, openTasks: [...openTasks] }];
}

/** Entries appended to the conversation (a turn's opening messages, Steer's take, the agent loop's entries, a note). */
export function decideAppend(_state: CarriedLeadAgent, ...entries: ConversationEntry[]): LeadAgentEvent[] {
  return entries.length === 0 ? [] : [{ type: 'conversationAppended', entries }];
}

/** A work tool reported the session's directory after it ran (bash's `cd`). */
export function decideCwd(state: CarriedLeadAgent, cwd: string): LeadAgentEvent[] {
  return state.cwd === cwd ? [] : [{ type: 'cwdChanged', cwd }];
}

export function lastReply(conversation: readonly ConversationEntry[]): string | null {
  const last = conversation[conversation.length - 1];
  return last?.role === 'assistant' && typeof last.content === 'string' ? last.content : null;
}

// ---- subagents -----------------------------------------------------------------------------

export function subagentId(teamId: string, n: number): string {
  return `${teamId}/subagent/${n}`;
}

/**
 * A new subagent, numbered next. Past MAX_SUBAGENTS records the oldest closed ones are forgotten
 * first; when that many are open, TooManySubagents.
 */
export function decideOpenSubagent(
  state: CarriedLeadAgent,
  teamId: string,
  model: { models: TeamModels | undefined; requested: string | null; inherited: string | null; budget?: BudgetLimits | undefined } = NO_MODEL,
): LeadAgentDecision {
  const modelProblem = modelNotAllowed(model.models, model.requested);
  if (modelProblem) return refuse(MODEL_NOT_ALLOWED, `a subagent's ${modelProblem}`);
  const unpriced = unpricedBudget(model.budget, resolveModel(model.models, model.requested, model.inherited), model.models?.prices);
  if (unpriced) return refuse(BUDGET_UNPRICED, `a subagent's ${unpriced}`);
  const entries = Object.entries(state.subagents);
  const pruned: LeadAgentEvent[] = [];
  if (entries.length >= MAX_SUBAGENTS) {
    const closed = entries.filter(([, r]) => r.closed).map(([id]) => id);
    if (closed.length === 0) return refuse('TooManySubagents', `${MAX_SUBAGENTS} subagents are open; close one (close_agent) before starting another`);
    pruned.push({ type: 'subagentsPruned', agentIds: closed.slice(0, entries.length - MAX_SUBAGENTS + 1) });
  }
  return accept(...pruned, { type: 'subagentOpened', agentId: subagentId(teamId, state.nextSubagent + 1), model: model.requested ?? model.inherited });
}

/** The open subagent a tool call names (send_input, wait_agent, close_agent), or UnknownAgent. */
export function findOpenSubagent(
  state: CarriedLeadAgent,
  agentId: string,
): { ok: true; record: SubagentRecord } | { ok: false; rejection: LeadAgentRejection } {
  const record = own(state.subagents, agentId);
  if (record && !record.closed) return { ok: true, record };
  return { ok: false, rejection: { type: 'UnknownAgent', message: `no open subagent "${agentId}"; use an agentId returned by subagent or subagent_fork` } };
}

/**
 * close_agent and disposal: an open subagent is closed once its child has stopped. Checked before
 * the stop (UnknownAgent) and decided again after it, against the state then.
 */
export function decideCloseSubagent(state: CarriedLeadAgent, agentId: string): LeadAgentDecision {
  const found = findOpenSubagent(state, agentId);
  return found.ok ? accept({ type: 'subagentClosed', agentId }) : found;
}

/**
 * A subagent's answer (a signal: never refused, ignored for an unknown subagent). A turn already
 * answered changes nothing; a long answer is cut to SUBAGENT_ANSWER_MAX_BYTES with a note.
 */
export function decideSubagentAnswer(
  state: CarriedLeadAgent,
  answer: SubagentAnswer,
): { ok: true; events: LeadAgentEvent[] } | { ok: false; ignored: 'unknownKey' } {
  const record = own(state.subagents, answer.agentId);
  if (!record) return { ok: false, ignored: 'unknownKey' };
  const { usage, ...said } = answer;
  const usageEvents: LeadAgentEvent[] = usage ? [{ type: 'subagentUsageReported', agentId: answer.agentId, usage }] : [];
  if (record.answers.some((a) => a.turn === said.turn)) return { ok: true, events: usageEvents };
  const kept: SubagentAnswer = { ...said, answer: said.answer === null ? null : clip(said.answer, SUBAGENT_ANSWER_MAX_BYTES) };
  return { ok: true, events: [{ type: 'subagentAnswered', answer: kept }, ...usageEvents] };
}

/** Cuts text to at most `maxBytes` of UTF-8 (on a character boundary) and says how much was cut (the note's words are recorded in history). */
export function clip(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text;
  const note = (cut: number): string => `\n[cut ${cut} characters to stay within the size budget; ask for a shorter answer]`;
  let keep = Math.min(text.length, maxBytes);
  while (keep > 0 && utf8Length(text.slice(0, keep)) + utf8Length(note(text.length - keep)) > maxBytes) keep = Math.floor(keep * 0.9);
  return text.slice(0, keep) + note(text.length - keep);
}
