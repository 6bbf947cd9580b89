/**
 * The Lead workflow. Its workflow id is the Team's root SessionId and it owns the Team's durable
 * state. This file only wires handlers and waits; the logic lives in TeamLeadRun (state and
 * validation), leadOperations (roster, mailbox, wait, disposal) and LeadAgentRunner (the Lead's
 * own agent turns, when the Team was started with a prompt).
 */
import type { UpdateDefinition } from '@temporalio/common';
import { allHandlersFinished, condition, continueAsNew, currentUpdateInfo, setHandler, workflowInfo } from '@temporalio/workflow';
import * as defs from '../shared/definitions';
import type { InboxAcceptance, TeamLeadInput, TeamLeadResult } from '../shared/definitions';
import { rollingOverFailure } from '../shared/failures';
import type { TaskCommandKind, TaskMutationResult } from '../shared/team';
import { LEAD, teamView } from '../shared/team';
import { LeadAgentRunner } from './leadAgent';
import { LeadAgentState, OPERATOR } from './leadAgentState';
import { createLeadOperations } from './leadOperations';
import { TeamLeadRun } from './teamLeadRun';

export async function teamLead(input: TeamLeadInput): Promise<TeamLeadResult> {
  const lead = new TeamLeadRun(input.teamId, input.maxMembers, input.carried, input.legacyMailbox);
  const agent = new LeadAgentState(input);
  const teamId = input.teamId;
  let closingNow = false;
  // Evaluated in validators too, so an Update arriving in the same activation as the decision to
  // roll over is refused with a retriable TeamRollingOver instead of racing continue-as-new.
  const closing = (): boolean => closingNow || lead.disposeRequested || lead.mustRollOver(workflowInfo().continueAsNewSuggested);
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
  const runner = new LeadAgentRunner({ lead, agent, ops, teamId, now, closing: () => closingNow || lead.disposeRequested });

  // ---- tasks ---------------------------------------------------------------------------------
  const wireTaskCommand = (kind: TaskCommandKind, definition: UpdateDefinition<TaskMutationResult, [defs.Attributed]>): void => {
    setHandler(definition, (request): TaskMutationResult => lead.applyTaskCommand(kind, request, updateId(), now()), {
      validator: (request): void => lead.validateTaskCommand(kind, request, updateId(), closing(), now()),
    });
  };
  wireTaskCommand('createTask', defs.createTaskUpdate);
  wireTaskCommand('editTask', defs.editTaskUpdate);
  wireTaskCommand('claimTask', defs.claimTaskUpdate);
  wireTaskCommand('assignTask', defs.assignTaskUpdate);
  wireTaskCommand('releaseTask', defs.releaseTaskUpdate);
  wireTaskCommand('transitionTask', defs.transitionTaskUpdate);
  wireTaskCommand('deleteTask', defs.deleteTaskUpdate);
  setHandler(defs.readTaskUpdate, (request) => lead.readTask(request), { validator: (request): void => void lead.validateReadTask(request, closing()) });
  setHandler(defs.listTasksUpdate, () => lead.listTasks(), { validator: (request): void => lead.validateRead(request, closing()) });

  // ---- roster, mailbox, interrupt, wait ------------------------------------------------------
  setHandler(defs.spawnTeammateUpdate, (request) => ops.spawn(request, updateId()), {
    validator: (request): void => void lead.validateSpawn(request, updateId(), closing(), now()),
  });
  setHandler(defs.sendMessageUpdate, (request) => ops.send(request, updateId()), {
    validator: (request): void => void lead.validateSend(request, updateId(), closing()),
  });
  setHandler(defs.readLeadInboxUpdate, () => lead.takeLeadInbox(), {
    validator: (request): void => {
      if (closing()) throw rollingOverFailure();
      lead.validateLeadOnly('readLeadInbox', request);
    },
  });
  setHandler(defs.watchEdgesSignal, (watch) => lead.watch(watch));
  setHandler(defs.unwatchEdgesSignal, ({ name, waitId }) => lead.unwatch(name, waitId));
  setHandler(defs.reportMemberStatusSignal, ({ name, status, consumed }) => lead.reportStatus(name, status, now(), consumed));
  setHandler(defs.interruptTeammateUpdate, (request) => ops.interrupt(request), { validator: (request): void => void lead.validateInterrupt(request, closing()) });
  setHandler(defs.waitForEdgeUpdate, (request) => ops.wait(request), { validator: (request): void => void lead.validateWait(request, closing()) });

  // ---- the Lead agent ------------------------------------------------------------------------
  const validatePrompt = (request: unknown): defs.PromptLeadRequest => lead.validatePrompt(request, closing(), agent.enabled);
  setHandler(
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
    { validator: (request): void => void (lead.recentResult(updateId()) === undefined && validatePrompt(request)) },
  );
  setHandler(defs.subagentAnswerSignal, (answer) => {
    lead.signalsThisRun += 1;
    runner.subagents.recordAnswer(answer);
  });
  setHandler(defs.getAgentStateQuery, () => agent.view());

  // ---- lifecycle -----------------------------------------------------------------------------
  setHandler(
    defs.disposeTeamUpdate,
    async () => {
      runner.cancelTurn();
      await runner.subagents.stopAll();
      return ops.dispose();
    },
    { validator: (request): void => lead.validateLeadOnly('disposeTeam', request) },
  );

  setHandler(defs.getTeamViewQuery, () => teamView(lead.state));
  setHandler(defs.getTaskQuery, ({ taskId }) => lead.state.tasks[String(taskId)] ?? null);
  setHandler(defs.getLiveStatusQuery, () => lead.liveStatus);
  setHandler(defs.getLegacyMailboxQuery, () => lead.legacyMailbox);
  setHandler(defs.getLeadRunInfoQuery, () => ({
    runId: workflowInfo().runId,
    acceptedUpdatesThisRun: lead.acceptedUpdatesThisRun,
    historyLength: workflowInfo().historyLength,
    continuedRuns: lead.continuedRuns,
    rollingOver: closingNow,
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
    const { legacyMailbox: _imported, forkOf: _forked, ...rest } = input; // carried from now on
    return await continueAsNew<typeof teamLead>({ ...rest, maxMembers: lead.state.maxMembers, carried: { ...lead.carry(), ...(agent.enabled ? { agent: agent.carry() } : {}) } });
  }
  return { view: teamView(lead.state) };
}
