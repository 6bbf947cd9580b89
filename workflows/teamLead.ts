/**
 * The Lead workflow. Its workflow id is the Team's root SessionId and it owns the Team's durable
 * state. This file only wires handlers and waits; the logic lives in TeamLeadRun (state and
 * validation), leadOperations (roster, mailbox, wait, disposal) and LeadAgentRunner (the Lead's
 * own agent turns, when the Team was started with a prompt).
 */
import type { UpdateDefinition } from '@temporalio/common';
import { allHandlersFinished, condition, continueAsNew, currentUpdateInfo, log, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import * as defs from '../shared/definitions';
import type { InboxAcceptance, TeamLeadInput, TeamLeadResult } from '../shared/definitions';
import { rollingOverFailure } from '../shared/failures';
import type { TaskCommandKind, TaskMutationResult } from '../shared/team';
import { LEAD, taskKey, teamView } from '../shared/team';
import { LeadAgentRunner } from './leadAgent';
import { LeadAgentState, OPERATOR } from './leadAgentState';
import { createLeadOperations } from './leadOperations';
import { TeamLeadRun } from './teamLeadRun';
import { TYPED_UPDATE_FAILURES_PATCH, guardedSignal, guardedUpdate as guardUpdate, ignoreUnknownSignals, type SignalGuard } from './handlerGuards';
import { parseLeadInput } from './workflowInputs';
import { PAYLOAD_BUDGET_BYTES } from '../shared/limits';
import { carriedWithinBudget } from '../shared/agent/budget';
import { edgeUnwatchSchema, edgeWatchSchema, memberStatusReportSchema, subagentAnswerSchema } from '../shared/signalPayloads';
import { own } from '../shared/own';

export async function teamLead(rawInput: TeamLeadInput): Promise<TeamLeadResult> {
  const input = parseLeadInput(rawInput, workflowInfo().workflowId);
  const typed = patched(TYPED_UPDATE_FAILURES_PATCH);
  const guardedUpdate = <Ret, Args extends unknown[]>(definition: UpdateDefinition<Ret, Args>, handler: (...args: Args) => Ret | Promise<Ret>, validator: (...args: Args) => void): void =>
    guardUpdate(definition, handler, validator, typed);
  const lead = new TeamLeadRun(input.teamId, input.maxMembers, input.carried, input.legacyMailbox);
  const agent = new LeadAgentState(input);
  const teamId = input.teamId;
  let closingNow = false;
  // Evaluated in validators too, so an Update arriving in the same activation as the decision to
  // roll over is refused with a retriable TeamRollingOver instead of racing continue-as-new.
  const closing = (): boolean => closingNow || lead.disposeRequested || lead.mustRollOver(workflowInfo().continueAsNewSuggested);
  // Synchronous task Updates complete in the activation that accepts them, so they hold nothing a
  // rollover waits for: they stay open while the run winds down, until the hard per-run cap.
  const closingForTasks = (): boolean => lead.disposeRequested || lead.pastHardUpdateCap();
  const now = (): string => new Date().toISOString();
  const updateId = (): string => currentUpdateInfo()?.id ?? '';
  const ops = createLeadOperations({
    lead,
    input,
    now,
    closingNow: () => closingNow,
    forkSeed: () => agent.forkSeed(),
    memberCheckout: () => ({ cwd: agent.cwd, ...(input.agent?.checkoutTaskQueue !== undefined ? { checkoutTaskQueue: input.agent.checkoutTaskQueue } : {}) }),
  });
  const runner = new LeadAgentRunner({ lead, agent, ops, teamId, now, closing: () => closingNow || lead.disposeRequested, yieldForRollover: () => closingNow && !lead.disposeRequested });

  // ---- tasks ---------------------------------------------------------------------------------
  const wireTaskCommand = (kind: TaskCommandKind, definition: UpdateDefinition<TaskMutationResult, [defs.Attributed]>): void => {
    guardedUpdate(definition, (request): TaskMutationResult => lead.applyTaskCommand(kind, request, updateId(), now()), (request): void =>
      lead.validateTaskCommand(kind, request, updateId(), closingForTasks(), now()),
    );
  };
  wireTaskCommand('createTask', defs.createTaskUpdate);
  wireTaskCommand('editTask', defs.editTaskUpdate);
  wireTaskCommand('claimTask', defs.claimTaskUpdate);
  wireTaskCommand('assignTask', defs.assignTaskUpdate);
  wireTaskCommand('releaseTask', defs.releaseTaskUpdate);
  wireTaskCommand('transitionTask', defs.transitionTaskUpdate);
  wireTaskCommand('deleteTask', defs.deleteTaskUpdate);
  guardedUpdate(defs.readTaskUpdate, (request) => lead.readTask(request), (request): void => void lead.validateReadTask(request, closingForTasks()));
  guardedUpdate(defs.listTasksUpdate, (_request) => lead.listTasks(), (request): void => lead.validateRead(request, closingForTasks()));

  // ---- roster, mailbox, interrupt, wait ------------------------------------------------------
  guardedUpdate(defs.spawnTeammateUpdate, (request) => ops.spawn(request, updateId()), (request): void => void lead.validateSpawn(request, updateId(), closing(), now()));
  guardedUpdate(defs.sendMessageUpdate, (request) => ops.send(request, updateId()), (request): void => void lead.validateSend(request, updateId(), closing()));
  guardedUpdate(
    defs.readLeadInboxUpdate,
    (_request) => lead.takeLeadInbox(),
    (request): void => {
      if (closing()) throw rollingOverFailure();
      lead.validateLeadOnly('readLeadInbox', request);
    },
  );
  guardedUpdate(defs.interruptTeammateUpdate, (request) => ops.interrupt(request), (request): void => void lead.validateInterrupt(request, closing()));
  guardedUpdate(defs.waitForEdgeUpdate, (request) => ops.wait(request), (request): void => void lead.validateWait(request, closing()));

  // ---- signals: untrusted, parsed, never thrown from ----------------------------------------
  const guard: SignalGuard = { ignored: lead.ignored, onSignal: () => void (lead.signalsThisRun += 1) };
  guardedSignal(guard, defs.watchEdgesSignal, edgeWatchSchema, (watch) => lead.watch(watch));
  guardedSignal(guard, defs.unwatchEdgesSignal, edgeUnwatchSchema, ({ name, waitId }) => lead.unwatch(name, waitId));
  guardedSignal(guard, defs.reportMemberStatusSignal, memberStatusReportSchema, (report) => lead.reportStatus(report, now()));
  guardedSignal(guard, defs.subagentAnswerSignal, subagentAnswerSchema, (answer) => runner.subagents.recordAnswer(answer));
  ignoreUnknownSignals(guard);

  // ---- the Lead agent ------------------------------------------------------------------------
  const validatePrompt = (request: unknown): defs.PromptLeadRequest => lead.validatePrompt(request, closing(), agent.enabled);
  guardedUpdate(
    defs.promptLeadUpdate,
    (request): InboxAcceptance => {
      const id = updateId();
      const remembered = lead.recentResult(id);
      if (remembered !== undefined) return remembered as InboxAcceptance;
      const prompt = validatePrompt(request);
      const messageId = prompt.messageId ?? id;
      lead.receiveForLead({ messageId, from: OPERATOR, content: prompt.content, sentAt: now() }, now());
      const acceptance: InboxAcceptance = { messageId, to: LEAD, targetPhase: 'lead', targetStatus: 'running' };
      lead.remember(id, acceptance);
      return acceptance;
    },
    (request): void => void (lead.recentResult(updateId()) === undefined && validatePrompt(request)),
  );
  setHandler(defs.getAgentStateQuery, () => agent.view());

  // ---- lifecycle -----------------------------------------------------------------------------
  guardedUpdate(
    defs.disposeTeamUpdate,
    async (_request) => {
      runner.cancelTurn();
      await runner.subagents.stopAll();
      return ops.dispose();
    },
    (request): void => lead.validateLeadOnly('disposeTeam', request),
  );

  setHandler(defs.getTeamViewQuery, () => teamView(lead.state));
  setHandler(defs.getTaskQuery, (request?: { taskId: number }) => {
    const taskId: unknown = typeof request === 'object' && request !== null ? Object.getOwnPropertyDescriptor(request, 'taskId')?.value : undefined;
    return Number.isSafeInteger(taskId) ? (own(lead.state.tasks, taskKey(taskId as number)) ?? null) : null;
  });
  setHandler(defs.getLiveStatusQuery, () => lead.liveStatus);
  setHandler(defs.getLegacyMailboxQuery, () => lead.legacyMailbox);
  setHandler(defs.getLeadRunInfoQuery, () => ({
    runId: workflowInfo().runId,
    acceptedUpdatesThisRun: lead.acceptedUpdatesThisRun,
    historyLength: workflowInfo().historyLength,
    continuedRuns: lead.continuedRuns,
    rollingOver: closingNow,
    ignoredSignals: lead.ignored,
  }));

  // Recovery: provisioning records this run did not create (continue-as-new, reset) are settled
  // from the child's own persisted state.
  const recovery = ops.recoverProvisioning();

  // The operator's opening prompt is the first message in the Lead's inbox (first run only).
  if (agent.enabled && !input.carried) {
    lead.receiveForLead({ messageId: `${teamId}/prompt`, from: OPERATOR, content: input.agent!.prompt, sentAt: now() }, now());
  }
  const agentLoop = agent.enabled ? runner.run() : Promise.resolve();
  const notifier = ops.notifyWatchers();

  await condition(() => lead.disposeRequested || lead.mustRollOver(workflowInfo().continueAsNewSuggested));
  closingNow = true;
  await recovery;
  // The Lead's own turn finishes first (its waits wake on closingNow), then handlers settle.
  await agentLoop;
  await notifier;
  await condition(allHandlersFinished);
  if (!lead.disposeRequested) {
    return await continueAsNew<typeof teamLead>(nextRunInput(input, lead, agent));
  }
  return { view: teamView(lead.state) };
}

/**
 * The next run's input: everything the run owned, within the payload budget. The first run's
 * imports (legacy mailbox, fork seed) and the opening prompt are carried as state from now on.
 * Every carried part is bounded by its own cap; the measured whole is checked here too, and if
 * it were ever over, the conversation (the only part that can be shortened without losing Team
 * state) is compacted harder rather than letting the server terminate the Lead.
 */
function nextRunInput(input: TeamLeadInput, lead: TeamLeadRun, agent: LeadAgentState): TeamLeadInput {
  const { legacyMailbox: _imported, forkOf: _forked, ...rest } = input;
  const next = (conversationBudget?: number): TeamLeadInput => ({
    ...rest,
    ...(rest.agent ? { agent: { ...rest.agent, prompt: DELIVERED_PROMPT } } : {}),
    maxMembers: lead.state.maxMembers,
    carried: { ...lead.carry(), ...(agent.enabled ? { agent: agent.carry(conversationBudget) } : {}) },
  });
  return carriedWithinBudget(next, (bytes) => log.warn('carried state over its budget; compacting the conversation harder', { bytes, budget: PAYLOAD_BUDGET_BYTES }));
}

/** Stands in for the opening prompt on continued runs: it was delivered to the Lead's inbox on the first run. */
const DELIVERED_PROMPT = '[delivered on the first run]';
