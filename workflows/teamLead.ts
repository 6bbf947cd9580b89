/**
 * The Lead workflow. Its workflow id is the Team's root SessionId and it owns the Team's durable
 * state. This file only wires handlers and waits; the logic lives in TeamLeadRun and shared/team.
 */
import { WorkflowExecutionAlreadyStartedError, type UpdateDefinition } from '@temporalio/common';
import {
  ApplicationFailure,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { ReconcileOutcome, TeamActivities } from '../activities';
import * as defs from '../shared/definitions';
import type { InboxAcceptance, TeamLeadInput, TeamLeadResult, TeammateDescriptor, WaitResult } from '../shared/definitions';
import { DISPOSAL_FAILED, MEMBER_UNAVAILABLE, PROVISIONING_CONFLICT, rollingOverFailure } from '../shared/failures';
import type { InboxMessage } from '../shared/inbox';
import { AGENT_TEAM_ID, AGENT_TEAM_MEMBER, AGENT_TEAM_ROLE } from '../shared/searchAttributes';
import type { MemberRecord, TaskCommandKind, TaskMutationResult } from '../shared/team';
import { LEAD, teamView } from '../shared/team';
import { firstEdgeAfter } from '../shared/teamEdges';
import { TeamLeadRun } from './teamLeadRun';
import type { teammate } from './teammate';

const control = proxyActivities<TeamActivities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '20 seconds', retry: { maximumAttempts: 5 } });

export async function teamLead(input: TeamLeadInput): Promise<TeamLeadResult> {
  const lead = new TeamLeadRun(input.teamId, input.maxMembers, input.carried, input.legacyMailbox);
  const teamId = input.teamId;
  let closingNow = false;
  // Evaluated in validators too, so an Update arriving in the same activation as the decision to
  // roll over is refused with a retriable TeamRollingOver instead of racing continue-as-new.
  const closing = (): boolean => closingNow || lead.disposeRequested || lead.mustRollOver(workflowInfo().continueAsNewSuggested);
  const now = (): string => new Date().toISOString();
  const updateId = (): string => currentUpdateInfo()?.id ?? '';

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

  // ---- roster --------------------------------------------------------------------------------
  const descriptorOf = (member: MemberRecord): TeammateDescriptor => ({
    teamId,
    name: member.name,
    context: member.context,
    initialMessageId: `${member.workflowId}/initial`,
  });

  /** Settles a record; a creator/recovery disagreement drains the child so no orphan survives. */
  const settle = async (member: MemberRecord, outcome: ReconcileOutcome): Promise<void> => {
    const result = lead.settleProvisioning(member.name, outcome.phase === 'active' ? { phase: 'active' } : { phase: 'failed', reason: outcome.reason }, now());
    if (result === 'conflict') {
      await control.stopTeammate({ workflowId: member.workflowId });
      throw ApplicationFailure.create({
        type: PROVISIONING_CONFLICT,
        message: `teammate "${member.name}" was settled as ${lead.member(member.name).phase} by recovery while its creation reported ${outcome.phase}; the child was drained, spawn under a new name`,
        nonRetryable: true,
      });
    }
  };

  setHandler(
    defs.spawnTeammateUpdate,
    async (request): Promise<defs.SpawnTeammateResult> => {
      const remembered = lead.recentResult(updateId());
      if (remembered !== undefined) return remembered as defs.SpawnTeammateResult;
      const id = updateId();
      const { request: spawn, member } = lead.beginSpawn(request, now());
      lead.operationsInFlight += 1;
      try {
        const descriptor = descriptorOf(member);
        const initialMessage: InboxMessage = { messageId: descriptor.initialMessageId, from: LEAD, content: spawn.message, sentAt: now() };
        let outcome: ReconcileOutcome;
        try {
          await startChild<typeof teammate>(defs.TEAMMATE_WORKFLOW_TYPE, {
            workflowId: member.workflowId,
            args: [
              {
                descriptor,
                model: spawn.model,
                seed: [],
                initialMessage,
                ...(input.teammateMaxTurnsPerRun !== undefined ? { maxTurnsPerRun: input.teammateMaxTurnsPerRun } : {}),
              },
            ],
            // Children must outlive each Lead run (continue-as-new); disposal stops them explicitly.
            parentClosePolicy: ParentClosePolicy.ABANDON,
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            memo: { agentTeam: descriptor },
            typedSearchAttributes: [
              { key: AGENT_TEAM_ID, value: teamId },
              { key: AGENT_TEAM_ROLE, value: 'teammate' },
              { key: AGENT_TEAM_MEMBER, value: member.name },
            ],
          });
          outcome = { phase: 'active' };
        } catch (error) {
          // The reserved id is taken (e.g. this Lead was reset after starting it): ask the child.
          outcome =
            error instanceof WorkflowExecutionAlreadyStartedError
              ? await control.reconcileTeammate({ workflowId: member.workflowId, descriptor })
              : { phase: 'failed', reason: error instanceof Error ? error.message : String(error), drained: false };
        }
        await settle(member, outcome);
        const result = { member: lead.member(member.name), initialMessageId: descriptor.initialMessageId };
        lead.remember(id, result);
        return result;
      } finally {
        delete lead.creating[member.name];
        lead.operationsInFlight -= 1;
      }
    },
    { validator: (request): void => void lead.validateSpawn(request, updateId(), closing(), now()) },
  );

  // ---- mailbox -------------------------------------------------------------------------------
  setHandler(
    defs.sendMessageUpdate,
    async (request): Promise<InboxAcceptance> => {
      const id = updateId();
      const remembered = lead.recentResult(id);
      if (remembered !== undefined) return remembered as InboxAcceptance;
      const send = lead.validateSend(request, id, false);
      const message: InboxMessage = { messageId: send.messageId ?? id, from: send.caller, content: send.content, sentAt: now() };
      lead.operationsInFlight += 1;
      try {
        let acceptance: InboxAcceptance;
        if (send.to === LEAD) {
          lead.receiveForLead(message, now());
          acceptance = { messageId: message.messageId, to: LEAD, targetPhase: 'lead', targetStatus: 'running' };
        } else {
          const target = lead.member(send.to);
          try {
            // Resolves once the signal is in the target's history: its inbox has it, running or cold.
            await getExternalWorkflowHandle(target.workflowId).signal(defs.deliverMessageSignal, message);
          } catch (error) {
            throw ApplicationFailure.create({
              type: MEMBER_UNAVAILABLE,
              message: `teammate "${send.to}" could not take the message (${error instanceof Error ? error.message : String(error)}); read the roster`,
              nonRetryable: true,
            });
          }
          lead.recordSent(message.messageId, now());
          acceptance = { messageId: message.messageId, to: send.to, targetPhase: lead.member(send.to).phase, targetStatus: lead.liveStatus[send.to] ?? 'starting' };
        }
        lead.remember(id, acceptance);
        return acceptance;
      } finally {
        lead.operationsInFlight -= 1;
      }
    },
    { validator: (request): void => void lead.validateSend(request, updateId(), closing()) },
  );
  setHandler(defs.readLeadInboxUpdate, () => lead.takeLeadInbox(), {
    validator: (request): void => {
      if (closing()) throw rollingOverFailure();
      lead.validateLeadOnly('readLeadInbox', request);
    },
  });
  setHandler(defs.reportMemberStatusSignal, ({ name, status }) => lead.reportStatus(name, status, now()));

  // ---- interrupt and wait --------------------------------------------------------------------
  setHandler(
    defs.interruptTeammateUpdate,
    async (request) => {
      const { name } = lead.validateInterrupt(request, false);
      const statusAtInterrupt = lead.liveStatus[name] ?? 'starting';
      lead.countAccepted();
      await getExternalWorkflowHandle(lead.member(name).workflowId).signal(defs.interruptTurnSignal, { requestedBy: LEAD });
      return { name, statusAtInterrupt };
    },
    { validator: (request): void => void lead.validateInterrupt(request, closing()) },
  );
  setHandler(
    defs.waitForEdgeUpdate,
    async (request): Promise<WaitResult> => {
      const { timeoutMs, kinds } = lead.validateWait(request, false);
      lead.countAccepted();
      const since = lead.edges.lastSeq;
      const woke = await condition(() => closingNow || firstEdgeAfter(lead.edges, since, kinds) !== undefined, timeoutMs);
      const edge = firstEdgeAfter(lead.edges, since, kinds);
      if (edge) return { woke: 'edge', edge };
      return woke ? { woke: 'rollover' } : { woke: 'timeout' };
    },
    { validator: (request): void => void lead.validateWait(request, closing()) },
  );

  // ---- lifecycle -----------------------------------------------------------------------------
  setHandler(
    defs.disposeTeamUpdate,
    async () => {
      lead.closeAdmission(now());
      await condition(() => lead.operationsInFlight === 0);
      const failures: string[] = [];
      for (const member of lead.childrenToStop()) {
        try {
          await control.stopTeammate({ workflowId: member.workflowId });
          lead.markStopped(member.name, now());
        } catch (error) {
          failures.push(`${member.name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (failures.length > 0) {
        throw ApplicationFailure.create({
          type: DISPOSAL_FAILED,
          message: `could not stop ${failures.join('; ')}; admission stays closed, retry disposeTeam`,
          nonRetryable: true,
        });
      }
      lead.disposeRequested = true;
      return teamView(lead.state);
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
  const recovery = Promise.all(
    lead.unsettledProvisioning().map(async (member) => {
      const outcome = await control.reconcileTeammate({ workflowId: member.workflowId, descriptor: descriptorOf(member) });
      // Only a record still unsettled is recovery's to settle. If a creator in this run settled it
      // meanwhile, the creator owns any disagreement (it drains and reports ProvisioningConflict).
      if (lead.member(member.name).phase === 'provisioning') await settle(member, outcome);
    }),
  );

  await condition(() => lead.disposeRequested || lead.mustRollOver(workflowInfo().continueAsNewSuggested));
  closingNow = true;
  await recovery;
  // Every accepted Update has been applied; let handlers (and waits, woken above) settle first.
  await condition(allHandlersFinished);
  if (!lead.disposeRequested) {
    const { legacyMailbox: _imported, ...rest } = input; // carried from now on
    return await continueAsNew<typeof teamLead>({ ...rest, maxMembers: lead.state.maxMembers, carried: lead.carry() });
  }
  return { view: teamView(lead.state) };
}
