/**
 * One small decide function per Lead command: from the state and a typed request (parse.ts), the
 * events to apply, or a typed rejection. Validators call these only; handlers call them again
 * against the state at that moment and apply the events once, so a handler never applies intent
 * that another Update made stale in between. Signals decide the same way but are ignored, never
 * refused.
 */
import { modelNotAllowed, resolveModel, type TeamModels } from '../contract/modelNames';
import type { BudgetExhaustion, BudgetLimits } from '../contract/budgets';
import { exhaustionText, unpricedBudget } from '../agent/spend';
import { own } from '../util/own';
import type { LiveStatus, UsageTotals, InboxMessage, EdgeKind } from '../contract';
import type { JsonValue } from '../contract/json';
import { LEAD_INBOX_MAX_BYTES, MAX_ID_LENGTH, MEMBER_INBOX_MAX_BYTES, jsonBytes } from '../contract/limits';
import type { Decision, ProvisioningOutcome } from '../team';
import {
  decideCloseAdmission,
  decideProvisioningOutcome,
  decideSend,
  decideSpawn,
  decideStopped,
  isLivePhase,
  mayAct,
  notFoundMessage,
  taskKey,
} from '../team';
import type { LeadEvent } from './events';
import type { PromptRequest, SendRequest, SpawnRequest } from './parse';
import type { LeadState } from './state';
import { LEAD, hasLeadAuthority, MEMBER_EDGE_KINDS } from '../contract';
import { type TeamRejection, type TeamRejectionType, isTeamRejectionType, reject } from '../contract/rejections';

export type LeadDecision = { ok: true; events: LeadEvent[] } | { ok: false; rejection: TeamRejection };
/** A signal is never refused: what it would change, or why it is ignored (counted by the handler). */
export type SignalDecision = { ok: true; events: LeadEvent[] } | { ok: false; ignored: 'nonMember' | 'unknownKey' };

const accept = (...events: LeadEvent[]): LeadDecision => ({ ok: true, events });
const refuse = (type: TeamRejectionType, message: string): LeadDecision => ({ ok: false, rejection: reject(type, message) });
const fromTeam = (decision: Decision): LeadDecision => decision;

// ---- board ---------------------------------------------------------------------------------

export function decideRead(state: LeadState, caller: string): LeadDecision {
  return mayAct(state.team, caller) ? accept() : refuse('NotATeamMember', `"${caller}" is not an active member of Team ${state.team.teamId}`);
}

export function decideReadTask(state: LeadState, request: { caller: string; taskId: number }): LeadDecision {
  const member = decideRead(state, request.caller);
  if (!member.ok) return member;
  return own(state.team.tasks, taskKey(request.taskId)) ? accept() : refuse('TaskNotFound', notFoundMessage(state.team, request.taskId));
}

// ---- roster --------------------------------------------------------------------------------

/**
 * Under a model list (`models`, the Team's start input's) the model must be on it, and the record
 * names the model the teammate runs: its own, else the Lead's, else the list's default. Without a
 * list the record keeps the name asked for, as Teams started before the list did.
 */
export function decideSpawnTeammate(
  state: LeadState,
  request: SpawnRequest,
  now: string,
  models?: { list: TeamModels | undefined; leadModel: string | null | undefined; memberBudget?: BudgetLimits | undefined },
): LeadDecision {
  const modelProblem = modelNotAllowed(models?.list, request.model);
  if (modelProblem) return refuse('ModelNotAllowed', `the teammate's ${modelProblem}`);
  const unpriced = unpricedBudget(models?.memberBudget, resolveModel(models?.list, request.model, models?.leadModel), models?.list?.prices);
  if (unpriced) return refuse('BudgetUnpriced', `the teammate's ${unpriced}`);
  const model = models?.list ? resolveModel(models.list, request.model, models.leadModel) : request.model;
  return fromTeam(decideSpawn(state.team, { name: request.name, context: request.context, model }, { caller: request.caller, now }));
}

/**
 * Settles a provisioning record (its creator or recovery). An active member's inbox opens with its
 * initial message as relay 1. `conflict` when the record was already settled the other way: the
 * caller then drains the child and reports it.
 */
export function decideSettle(
  state: LeadState,
  name: string,
  outcome: ProvisioningOutcome,
  now: string,
  initialMessageBytes = 0,
): LeadDecision | { ok: false; conflict: true } {
  const decision = decideProvisioningOutcome(state.team, name, outcome, now);
  if (!decision.ok) return decision.rejection.type === 'ProvisioningConflict' ? { ok: false, conflict: true } : decision;
  const opens = outcome.phase === 'active' && (own(state.liveStatus, name) === undefined || own(state.delivered, name) === undefined);
  return accept(...decision.events, ...(opens ? [{ type: 'memberInboxOpened' as const, name, initialMessageBytes }] : []));
}

export function decideStop(state: LeadState, name: string, now: string): LeadDecision {
  return fromTeam(decideStopped(state.team, name, now));
}

export function decideCloseTeam(state: LeadState, now: string): LeadDecision {
  return fromTeam(decideCloseAdmission(state.team, now));
}

// ---- mailbox -------------------------------------------------------------------------------

/** What a message adds to an inbox, as counted against its size limit: the content's JSON plus a bound on the envelope (ids, sender, time). */
export function messageBytes(content: JsonValue): number {
  return jsonBytes(content) + 2 * MAX_ID_LENGTH;
}

/** Who may send to whom, whether the update id can serve as the message id, and whether the target's unread mail has room. */
export function decideSendMessage(state: LeadState, request: SendRequest, updateId: string): LeadDecision {
  const allowed = fromTeam(decideSend(state.team, request.caller, request.to));
  if (!allowed.ok) return allowed;
  if (request.messageId === undefined && updateId.length > MAX_ID_LENGTH) {
    return refuse(
      'InvalidTeamCommand',
      `sendMessage: the update id (${updateId.length} characters) is too long to serve as the message id; ` +
        `pass a messageId of at most ${MAX_ID_LENGTH} characters`,
    );
  }
  return decideInboxRoom(state, request.to, messageBytes(request.content));
}

/** InboxFull when a message would take the target's unread mail past its size limit (the rejection's words stay as recorded). */
export function decideInboxRoom(state: LeadState, to: string, bytes: number): LeadDecision {
  const [waiting, maxBytes] =
    to === LEAD ? [jsonBytes(state.leadInbox.pending), LEAD_INBOX_MAX_BYTES] : [sum(own(state.unsettledBytes, to) ?? []), MEMBER_INBOX_MAX_BYTES];
  if (waiting + bytes <= maxBytes) return accept();
  return refuse(
    'InboxFull',
    `${to} has ${waiting} bytes of messages it has not taken yet (budget ${maxBytes}); this one is ${bytes} bytes: ` +
      `wait until ${to} reads its inbox (wait_agent on mailbox/status edges), or send less, then retry`,
  );
}

/** A message into the Lead's own inbox (recorded once per id; a duplicate still makes a mailbox edge). */
export function receiveForLead(message: InboxMessage): LeadEvent[] {
  return [{ type: 'leadMailReceived', message }];
}

/** promptLead: the operator (or a caller acting as the Lead), and only for a Team whose Lead runs an agent. */
export function decidePrompt(state: LeadState, request: PromptRequest, agentEnabled: boolean): LeadDecision {
  if (!hasLeadAuthority(request.caller)) return refuse('LeadOnly', 'only the operator (or the Lead) prompts the Lead agent');
  if (!agentEnabled) {
    return refuse(
      'AgentNotEnabled',
      `Team ${state.team.teamId} was started without a prompt, so its Lead runs no agent; start a Team with a prompt to talk to its Lead`,
    );
  }
  return accept();
}

// ---- live status, interrupt, wait, lifecycle -----------------------------------------------

export function decideStatusReport(
  state: LeadState,
  report: {
    name: string;
    status: LiveStatus;
    turn?: number;
    consumed?: number | undefined;
    settled?: number | undefined;
    usage?: UsageTotals | undefined;
    exhausted?: BudgetExhaustion | undefined;
  },
  now = '',
): SignalDecision {
  if (!own(state.team.members, report.name)) return { ok: false, ignored: 'nonMember' };
  const { exhausted, ...status } = report;
  const told = exhausted ? receiveForLead(budgetNote(state.team.teamId, report.name, report.turn ?? 0, exhausted, now)) : [];
  return { ok: true, events: [{ type: 'memberStatusReported', ...status }, ...told] };
}

/** The runtime's word to the Lead that a budget stopped a teammate (the member reports it once per stop). */
function budgetNote(teamId: string, name: string, turn: number, exhausted: BudgetExhaustion, now: string): InboxMessage {
  return {
    messageId: `${teamId}/lead/budget-${name}-${turn}-${exhausted.scope === 'team' ? 'team-' : ''}${exhausted.budget}`,
    from: LEAD,
    content: {
      event: exhausted.scope === 'team' ? 'teammate stopped by the Team budget' : 'teammate stopped by its budget',
      teammate: name,
      type: exhausted.type,
      budget: exhausted.budget,
      ...(exhausted.scope ? { scope: exhausted.scope } : {}),
      used: exhausted.used,
      limit: exhausted.limit,
      hint:
        `${exhaustionText(name, exhausted)}; it keeps its mail, tasks and conversation. ` +
        'Reassign its tasks or wrap up; only the operator can raise a budget',
    },
    sentAt: now,
  };
}

/**
 * A refused operation as its caller reported it: kept when the caller is the operator, the Lead or
 * on the roster, the operation is one of the Lead's Updates and the type one of the Team's rejections.
 */
export function decideRejectionReport(
  state: LeadState,
  report: { caller: string; operation: string; type: string; message: string },
  operations: ReadonlySet<string>,
  at: string,
): SignalDecision {
  if (!hasLeadAuthority(report.caller) && !own(state.team.members, report.caller)) return { ok: false, ignored: 'nonMember' };
  if (!operations.has(report.operation) || !isTeamRejectionType(report.type)) return { ok: false, ignored: 'unknownKey' };
  return { ok: true, events: [{ type: 'operationRejected', failure: { ...report, at } }] };
}

/** A teammate's wait_agent: remembered until an edge of its kinds is recorded since its call began (or, without that time, after now). */
export function decideWatch(
  state: LeadState,
  request: { name: string; waitId: string; kinds?: EdgeKind[] | undefined; callStartedAt?: string | undefined },
): SignalDecision {
  const { name, waitId, kinds, callStartedAt } = request;
  const member = own(state.team.members, name);
  if (!member || !isLivePhase(member.phase)) return { ok: false, ignored: 'nonMember' };
  return { ok: true, events: [{ type: 'watchRegistered', name, waitId, kinds: kinds ?? [...MEMBER_EDGE_KINDS], ...(callStartedAt ? { callStartedAt } : {}) }] };
}

export function decideUnwatch(state: LeadState, name: string, waitId: string): SignalDecision {
  if (own(state.watchers, name)?.waitId !== waitId) return { ok: false, ignored: 'unknownKey' };
  return { ok: true, events: [{ type: 'watchCleared', name }] };
}

export function decideInterrupt(state: LeadState, request: { caller: string; name: string }): LeadDecision {
  if (!hasLeadAuthority(request.caller)) return refuse('LeadOnly', 'only the Lead (or the operator) interrupts teammates');
  const member = own(state.team.members, request.name);
  if (!member) return refuse('UnknownMember', `there is no teammate "${request.name}"`);
  if (!isLivePhase(member.phase)) return refuse('UnknownMember', `teammate "${request.name}" is ${member.phase}`);
  return accept();
}

export function decideLeadOnly(caller: string, updateName: string): LeadDecision {
  return hasLeadAuthority(caller) ? accept() : refuse('LeadOnly', `only the Lead (or the operator) may call ${updateName}`);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
