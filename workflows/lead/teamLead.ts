/**
 * The Lead workflow. Its workflow id is the Team's root SessionId and it owns the Team's durable
 * state, one value (shared/lead/state.ts) changed only by applying events. This file only wires
 * handlers and waits: the operations table (operations.ts) backs every Update, roster.ts and
 * mailbox.ts carry out effects, and agent.ts runs the Lead's own agent turns when the Team was
 * started with a prompt.
 */
import {
  CancelledFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  log,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { carriedWithinPayloadLimit } from '../../shared/agent/conversationSize';
import * as contract from '../../shared/contract';
import type { TeamLeadInput, TeamLeadResult, TeamLeadWorkflow } from '../../shared/contract';
import type { LeadRunInput } from '../../shared/lead/carried';
import {
  PROMPT_SENDER,
  decideRejectionReport,
  decideStatusReport,
  decideUnwatch,
  decideWatch,
  emptyLeadState,
  receiveForLead,
  upgradeCarriedLeadState,
  type SignalDecision,
} from '../../shared/lead';
import { PAYLOAD_MAX_BYTES } from '../../shared/contract/limits';
import { own } from '../../shared/util/own';
import { AgentTeamProjector, projectionInputs } from '../../shared/projection/agentTeamView';
import { LEAD_SIGNALS } from '../../shared/contract/signalRegistry';
import { taskKey, teamView } from '../../shared/team';
import { guardedSignal, guardedUpdate, ignoreUnknownSignals, type SignalGuard, type SignalOutcome } from '../common/handlerGuards';
import { parseLeadInput } from '../common/workflowInputs';
import { CANCEL_IN_WIND_DOWN_PATCH, CANCEL_IS_DISPOSAL_PATCH, TYPED_UPDATE_FAILURES_PATCH } from '../../shared/contract/patches';
import { keepIdentitySearchAttributes, keepSearchAttribute } from '../common/searchAttributes';
import { AGENT_TEAM_ID, AGENT_TEAM_MEMBER, AGENT_TEAM_PHASE, AGENT_TEAM_ROLE } from '../../shared/contract/searchAttributes';
import { LeadAgentRunner } from './agent';
import { LeadAgentState } from './agentState';
import { LeadDetails } from './leadDetails';
import type { LeadContext } from './context';
import { LeadRun } from './leadRun';
import { createMailbox } from './mailbox';
import { createLeadOperations, type Gate, type LeadOperationTable, synchronous } from './operations';
import type { LeadUpdateName } from '../../shared/contract/updates';
import { createRoster } from './roster';
import { createBudgets } from './budgets';
import { completionBytes, roomToClose, useCompletionSizeLimit } from '../common/completionSize';
import { continueAsNewSuggested, useTracedSuggestion } from '../common/rolloverSuggestion';
import { teamUsageView } from '../../shared/lead/usageView';
import { CANCELLED_AFTER_DISPOSAL, disposeOnCancel, shieldFromCancel, whenCancelRequested } from './cancellation';
import { LEAD } from '../../shared/contract';

export const teamLead: TeamLeadWorkflow = async (rawInput: TeamLeadInput): Promise<TeamLeadResult> => {
  const input = parseLeadInput(rawInput, workflowInfo().workflowId);
  const typed = patched(TYPED_UPDATE_FAILURES_PATCH);
  // Runs recorded before this patch keep the root scope (a cancel request rejects what it holds).
  const cancelIsDisposal = patched(CANCEL_IS_DISPOSAL_PATCH);
  // Every workflow task's completion within its size limit (runs recorded before it keep one completion per item).
  useCompletionSizeLimit();
  // The rollover suggestion as every replay sees it (runs recorded before it read workflowInfo()).
  useTracedSuggestion();
  const shield = shieldFromCancel(cancelIsDisposal);
  let cancelRequested = false;
  if (cancelIsDisposal) whenCancelRequested(() => void (cancelRequested = true));
  return shield(() => leadRun(input, typed, cancelIsDisposal, () => cancelRequested, shield));
};

/** The Lead's body: under CANCEL_IS_DISPOSAL_PATCH it runs in a non-cancellable scope, and a cancel request is a disposal. */
async function leadRun(
  input: ReturnType<typeof parseLeadInput>,
  typed: boolean,
  cancelIsDisposal: boolean,
  cancelRequested: () => boolean,
  shield: <T>(fn: () => T | Promise<T>) => T | Promise<T>,
): Promise<TeamLeadResult> {
  const now = (): string => new Date().toISOString();
  const { agent: carriedAgent, ...carriedLead } = input.carried ?? {};
  const run = new LeadRun(
    input.carried
      ? upgradeCarriedLeadState(carriedLead as Parameters<typeof upgradeCarriedLeadState>[0])
      : emptyLeadState(input.teamId, input.maxMembers, input.legacyMailbox),
    now,
  );
  const agent = new LeadAgentState({ ...input, ...(input.carried ? { carried: { ...input.carried, agent: carriedAgent } } : {}) });
  const teamId = input.teamId;
  const details = new LeadDetails(run, agent);
  // Found by its Team id and role however it was started (a raw start may set none of them).
  keepIdentitySearchAttributes([
    { key: AGENT_TEAM_ID, value: teamId },
    { key: AGENT_TEAM_ROLE, value: 'lead' },
    { key: AGENT_TEAM_MEMBER, value: LEAD },
  ]);
  keepSearchAttribute(AGENT_TEAM_PHASE, 'active');
  let closingNow = false;
  // Evaluated in validators too, so an Update arriving in the same activation as the decision to
  // roll over is refused with a retriable TeamRollingOver instead of racing continue-as-new.
  const closing = (): boolean => closingNow || run.disposeRequested || run.mustRollOver(continueAsNewSuggested());
  const gateClosed = (gate: Gate): boolean => (gate === 'team' ? closing() : gate === 'board' ? run.disposeRequested || run.pastHardUpdateCap() : false);
  const updateId = (): string => currentUpdateInfo()?.id ?? '';

  const ctx: LeadContext = {
    run,
    input,
    teamId,
    now,
    // A disposal in progress (new runs only: run.disposing is set under the disposal patch) wakes waits too.
    closingNow: () => closingNow || run.disposing,
    forkSeed: () => agent.forkSeed(),
    memberCheckout: () => ({
      cwd: agent.state.cwd,
      ...(input.agent?.checkoutTaskQueue !== undefined ? { checkoutTaskQueue: input.agent.checkoutTaskQueue } : {}),
    }),
    leadStatus: () => (agent.enabled ? agent.state.status : null),
  };
  const roster = createRoster(ctx);
  const mailbox = createMailbox(ctx, roster);
  // The runner is created below; disposal (the only caller of these hooks) comes after.
  const budgets = createBudgets(ctx, agent, agent.enabled ? agent.model : undefined);
  const operations = createLeadOperations(ctx, roster, mailbox, budgets, {
    agentEnabled: agent.enabled,
    cancelTurn: () => leadAgent.cancelTurn(),
    stopSubagents: () => leadAgent.subagents.stopAll(),
  });
  const leadAgent = new LeadAgentRunner({
    run,
    agent,
    operations,
    teamId,
    now,
    closing: () => closingNow || run.disposeRequested || run.disposing,
    yieldForRollover: () => closingNow && !run.disposeRequested,
    stopChild: roster.stopChild,
    onStep: (step) => details.onStep(step),
    budget: budgets.leadBudget,
    teamStop: budgets.teamStop,
  });

  // ---- every Update, from one table -----------------------------------------------------------
  /** One Update's handler and validator, typed by its registry entry (no cast between the wire and the table). */
  const wire = <K extends LeadUpdateName>(name: K): void => {
    const operation: LeadOperationTable[K] = operations.table[name];
    guardedUpdate(
      operation.definition,
      // Shielded: a cancel request must not cut short a spawn, a send or a wait the Lead admitted.
      (request) => shield(() => operations.execute(operation, request, updateId())),
      (request) => operations.validate(operation, request, updateId(), gateClosed),
      typed,
      operation.read
        ? {
            admit: (request) => operations.admit(operation, request, updateId()),
            produce: (request) => synchronous(name, operations.reproduce(operation, request, '')),
          }
        : undefined,
    );
  };
  // In the table's order, which is the order handlers are registered in (operations.ts).
  for (const operation of operations.operations) wire(operation.definition.name);

  // ---- signals: untrusted, parsed, never thrown from ----------------------------------------
  const applySignal = (decision: SignalDecision): SignalOutcome => {
    if (!decision.ok) return decision.ignored;
    run.apply(decision.events);
    return 'applied';
  };
  const guard: SignalGuard = { ignore: (reason) => run.countIgnored(reason), onSignal: () => run.countSignal() };
  guardedSignal(guard, LEAD_SIGNALS.watchEdges, (watch) => applySignal(decideWatch(run.state, watch)));
  guardedSignal(guard, LEAD_SIGNALS.unwatchEdges, ({ name, waitId }) => applySignal(decideUnwatch(run.state, name, waitId)));
  guardedSignal(guard, LEAD_SIGNALS.reportMemberStatus, (report) => {
    const outcome = applySignal(decideStatusReport(run.state, report, now()));
    // A member that exited on its own (an operator cancelled it) is recorded stopped once the server confirms it closed.
    if (outcome === 'applied' && report.status === 'exited' && cancelIsDisposal) void shield(() => roster.recordExit(report.name));
    return outcome;
  });
  const operationNames: ReadonlySet<string> = new Set(operations.operations.map((operation) => operation.definition.name));
  guardedSignal(guard, LEAD_SIGNALS.reportRejection, (report) => applySignal(decideRejectionReport(run.state, report, operationNames, now())));
  guardedSignal(guard, LEAD_SIGNALS.subagentAnswer, (answer) => leadAgent.subagents.recordAnswer(answer));
  guardedSignal(guard, LEAD_SIGNALS.modelCallRequest, (request) => budgets.requestCall(request));
  ignoreUnknownSignals(guard);

  // ---- queries -------------------------------------------------------------------------------
  setHandler(contract.getAgentStateQuery, () => agent.view());
  setHandler(contract.getTeamViewQuery, () => teamView(run.state.team, ctx.leadStatus()));
  const projector = new AgentTeamProjector();
  setHandler(contract.getAgentTeamViewQuery, () =>
    projector.view(projectionInputs(run.state, ctx.leadStatus(), agent.enabled ? agent.state.finalAnswer : null)),
  );
  setHandler(contract.getTaskQuery, (request?: { taskId: number }) => {
    const taskId: unknown = typeof request === 'object' && request !== null ? Object.getOwnPropertyDescriptor(request, 'taskId')?.value : undefined;
    return typeof taskId === 'number' && Number.isSafeInteger(taskId) ? (own(run.state.team.tasks, taskKey(taskId)) ?? null) : null;
  });
  setHandler(contract.getLiveStatusQuery, () => run.state.liveStatus);
  setHandler(contract.getTeamUsageQuery, () =>
    teamUsageView({ state: run.state, agent: agent.state, leadModel: agent.model, prices: agent.models?.prices, teamLimits: budgets.teamLimits() }),
  );
  setHandler(contract.getLegacyMailboxQuery, () => run.state.legacyMailbox);
  setHandler(contract.getLeadRunInfoQuery, () => ({
    runId: workflowInfo().runId,
    acceptedUpdatesThisRun: run.acceptedUpdates,
    historyLength: workflowInfo().historyLength,
    continuedRuns: run.state.continuedRuns,
    rollingOver: closingNow,
    ignoredSignals: run.ignored,
  }));

  // Recovery: provisioning records this run did not create (continue-as-new, reset) are settled
  // from the child's own persisted state.
  const recovery = roster.recoverProvisioning();

  // The operator's opening prompt is the first message in the Lead's inbox (first run only).
  if (agent.enabled && !input.carried) {
    run.apply(receiveForLead({ messageId: `${teamId}/prompt`, from: PROMPT_SENDER, content: input.agent!.prompt, sentAt: now() }));
  }
  const agentLoop = agent.enabled ? leadAgent.run() : Promise.resolve();
  const notifier = mailbox.notifyWatchers();

  await condition(() => run.disposeRequested || cancelRequested() || run.mustRollOver(continueAsNewSuggested()));
  if (cancelRequested() && !run.disposeRequested) await disposeOnCancel(run, operations);
  closingNow = true;
  // A cancel request while the run winds down for continue-as-new (the Lead's turn may still run)
  // disposes at once too, and the run then ends cancelled instead of continuing. No command unless
  // it comes; runs recorded before CANCEL_IN_WIND_DOWN_PATCH ended cancelled after the wind-down.
  const windDownDisposal =
    cancelIsDisposal && !cancelRequested()
      ? condition(cancelRequested).then(() => (patched(CANCEL_IN_WIND_DOWN_PATCH) ? disposeOnCancel(run, operations) : undefined))
      : null;
  await recovery;
  // The Lead's own turn finishes first (its waits wake on closingNow), then handlers settle.
  await agentLoop;
  await notifier;
  if (roster.exitsInFlight() > 0) await condition(() => roster.exitsInFlight() === 0);
  // Team budget answers going out: a member waits for its answer before it calls (none without a Team budget, so no command moves).
  if (budgets.answersInFlight() > 0) await condition(() => budgets.answersInFlight() === 0);
  await condition(allHandlersFinished);
  // A cancel request ends the run as cancelled, after the disposal: what the Web UI, the CLI and the client report.
  if (cancelRequested()) {
    if (windDownDisposal) await windDownDisposal;
    throw new CancelledFailure(CANCELLED_AFTER_DISPOSAL);
  }
  if (!run.disposeRequested) {
    return await continueAsNew<TeamLeadWorkflow>(nextRunInput(input, run, agent));
  }
  const result: TeamLeadResult = { view: teamView(run.state.team, ctx.leadStatus()) };
  // The final result is a payload of the last completion too.
  const room = roomToClose(completionBytes(result));
  if (room) await room;
  return result;
}

/**
 * The next run's input: everything the run owned, within the payload limit. The first run's
 * imports (legacy mailbox, fork seed) and the opening prompt are carried as state from now on.
 * Every carried part is bounded by its own cap; the measured whole is checked here too, and if
 * it were ever over, the conversation (the only part that can be shortened without losing Team
 * state) is compacted harder rather than letting the server terminate the Lead.
 */
function nextRunInput(input: LeadRunInput, run: LeadRun, agent: LeadAgentState): LeadRunInput {
  const { legacyMailbox: _imported, forkOf: _forked, ...rest } = input;
  const next = (conversationMaxBytes?: number): LeadRunInput => ({
    ...rest,
    ...(rest.agent ? { agent: { ...rest.agent, prompt: DELIVERED_PROMPT } } : {}),
    maxMembers: run.state.team.maxMembers,
    carried: { ...run.state, continuedRuns: run.state.continuedRuns + 1, ...(agent.enabled ? { agent: agent.carry(conversationMaxBytes) } : {}) },
  });
  return carriedWithinPayloadLimit(next, (bytes) =>
    log.warn('carried state over its budget; compacting the conversation harder', { bytes, budget: PAYLOAD_MAX_BYTES }),
  );
}

/** Stands in for the opening prompt on continued runs: it was delivered to the Lead's inbox on the first run. */
const DELIVERED_PROMPT = '[delivered on the first run]';
