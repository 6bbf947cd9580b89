/**
 * The Lead's roster, mailbox, interrupt, wait and disposal operations. Both the Update handlers
 * (operators, teammates' tool activities) and the Lead's own agent (its Team tools run inside this
 * workflow) call them, so every path runs the same decisions and produces the same history.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ApplicationFailure,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  startChild,
} from '@temporalio/workflow';
import type { ReconcileOutcome, TeamActivities } from '../activities';
import * as defs from '../shared/definitions';
import { own } from '../shared/own';
import { MAX_STATUS_TEXT_LENGTH, PAYLOAD_BUDGET_BYTES, jsonBytes } from '../shared/limits';
import type { ConversationEntry, InboxAcceptance, TeamLeadInput, TeammateDescriptor, WaitResult } from '../shared/definitions';
import { DISPOSAL_FAILED, MEMBER_UNAVAILABLE, PROVISIONING_CONFLICT } from '../shared/failures';
import type { InboxMessage } from '../shared/inbox';
import { AGENT_TEAM_ID, AGENT_TEAM_MEMBER, AGENT_TEAM_ROLE } from '../shared/searchAttributes';
import type { MemberRecord, TeamView } from '../shared/team';
import { LEAD, teamView } from '../shared/team';
import { firstEdgeAfter } from '../shared/teamEdges';
import type { TeamLeadRun } from './teamLeadRun';
import { messageBytes } from './teamLeadRun';
import type { teammate } from './teammate';

const control = proxyActivities<TeamActivities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '20 seconds', retry: { maximumAttempts: 5 } });

export interface LeadEnvironment {
  lead: TeamLeadRun;
  input: TeamLeadInput;
  now(): string;
  /** True once this run stopped taking new work (rolling over or disposed): waits wake. */
  closingNow(): boolean;
  /** The Lead's completed-turn prefix, the durable seed of a fork teammate. */
  forkSeed(): ConversationEntry[];
  /** Where members' work tools run and the directory they start in. */
  memberCheckout(): { cwd: string; checkoutTaskQueue?: string };
}

export type LeadOperations = ReturnType<typeof createLeadOperations>;

export function createLeadOperations(env: LeadEnvironment) {
  const { lead, input } = env;
  const teamId = input.teamId;

  const descriptorOf = (member: MemberRecord): TeammateDescriptor => ({
    teamId,
    name: member.name,
    context: member.context,
    initialMessageId: `${member.workflowId}/initial`,
  });

  /** Settles a record; a creator/recovery disagreement drains the child so no orphan survives. */
  const settle = async (member: MemberRecord, outcome: ReconcileOutcome, initialMessageBytes?: number): Promise<void> => {
    const result = lead.settleProvisioning(member.name, outcome.phase === 'active' ? { phase: 'active' } : { phase: 'failed', reason: outcome.reason.slice(0, MAX_STATUS_TEXT_LENGTH) }, env.now(), initialMessageBytes);
    if (result === 'conflict') {
      await control.stopTeammate({ workflowId: member.workflowId });
      throw ApplicationFailure.create({
        type: PROVISIONING_CONFLICT,
        message: `teammate "${member.name}" was settled as ${lead.member(member.name).phase} by recovery while its creation reported ${outcome.phase}; the child was drained, spawn under a new name`,
        nonRetryable: true,
      });
    }
  };

  /** Provisioning record first, then the child with the initial message in its inbox, then active or failed. */
  const spawn = async (request: unknown, operationId: string): Promise<defs.SpawnTeammateResult> => {
    const remembered = lead.recentResult(operationId);
    if (remembered !== undefined) return remembered as defs.SpawnTeammateResult;
    const { request: spawnRequest, member } = lead.beginSpawn(request, env.now());
    lead.operationsInFlight += 1;
    try {
      const descriptor = descriptorOf(member);
      // The initial message is the first relayed message (relaySeq 1): the member settles it in its first turn.
      const initialMessage: InboxMessage = { messageId: descriptor.initialMessageId, from: LEAD, content: spawnRequest.message, sentAt: env.now(), relaySeq: 1 };
      const checkout = env.memberCheckout();
      let outcome: ReconcileOutcome;
      try {
        const args: Parameters<typeof teammate> = [
          {
            descriptor,
            model: spawnRequest.model ?? input.agent?.model ?? null,
            // Fresh children inherit nothing; a fork captures the Lead's completed turns once.
            seed: spawnRequest.context === 'fork' ? env.forkSeed() : [],
            initialMessage,
            cwd: checkout.cwd,
            ...(checkout.checkoutTaskQueue !== undefined ? { checkoutTaskQueue: checkout.checkoutTaskQueue } : {}),
            ...(input.teammateMaxTurnsPerRun !== undefined ? { maxTurnsPerRun: input.teammateMaxTurnsPerRun } : {}),
          },
        ];
        // Measured before the child starts: an input over budget fails this spawn, never the Lead.
        const bytes = jsonBytes(args);
        if (bytes > PAYLOAD_BUDGET_BYTES) throw new StartInputTooLarge(`the child's start input would be ${bytes} bytes, over the ${PAYLOAD_BUDGET_BYTES}-byte payload budget`);
        await startChild<typeof teammate>(defs.TEAMMATE_WORKFLOW_TYPE, {
          workflowId: member.workflowId,
          args,
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
      await settle(member, outcome, messageBytes(spawnRequest.message));
      const result = { member: lead.member(member.name), initialMessageId: descriptor.initialMessageId };
      lead.remember(operationId, result);
      return result;
    } finally {
      delete lead.creating[member.name];
      lead.operationsInFlight -= 1;
    }
  };

  /** Into the target's inbox (a signal, recorded once per message id by the target), or the Lead's own. */
  const send = async (request: unknown, operationId: string): Promise<InboxAcceptance> => {
    const remembered = lead.recentResult(operationId);
    if (remembered !== undefined) return remembered as InboxAcceptance;
    const checked = lead.validateSend(request, operationId, false);
    const message: InboxMessage = { messageId: checked.messageId ?? operationId, from: checked.caller, content: checked.content, sentAt: env.now() };
    lead.operationsInFlight += 1;
    try {
      let acceptance: InboxAcceptance;
      if (checked.to === LEAD) {
        lead.receiveForLead(message, env.now());
        acceptance = { messageId: message.messageId, to: LEAD, targetPhase: 'lead', targetStatus: 'running' };
      } else {
        const target = lead.member(checked.to);
        const bytes = messageBytes(message.content);
        // Unsettled from now until the target says it took or dropped it (its status reports).
        const relaySeq = lead.beginRelay(checked.to, bytes);
        try {
          // Resolves once the signal is in the target's history: its inbox has it, running or cold.
          await getExternalWorkflowHandle(target.workflowId).signal(defs.deliverMessageSignal, { ...message, relaySeq });
        } catch (error) {
          lead.abandonRelay(checked.to, bytes);
          throw ApplicationFailure.create({
            type: MEMBER_UNAVAILABLE,
            message: `teammate "${checked.to}" could not take the message (${error instanceof Error ? error.message : String(error)}); read the roster`,
            nonRetryable: true,
          });
        }
        lead.recordSent(message.messageId, env.now());
        acceptance = { messageId: message.messageId, to: checked.to, targetPhase: lead.member(checked.to).phase, targetStatus: own(lead.liveStatus, checked.to) ?? 'starting' };
      }
      lead.remember(operationId, acceptance);
      return acceptance;
    } finally {
      lead.operationsInFlight -= 1;
    }
  };

  const interrupt = async (request: unknown): Promise<defs.InterruptResult> => {
    const { name } = lead.validateInterrupt(request, false);
    const statusAtInterrupt = own(lead.liveStatus, name) ?? 'starting';
    lead.countAccepted();
    await getExternalWorkflowHandle(lead.member(name).workflowId).signal(defs.interruptTurnSignal, { requestedBy: LEAD });
    return { name, statusAtInterrupt };
  };

  const wait = async (request: unknown): Promise<WaitResult> => {
    const { timeoutMs, kinds } = lead.validateWait(request, false);
    lead.countAccepted();
    const since = lead.edges.lastSeq;
    const woke = await condition(() => env.closingNow() || firstEdgeAfter(lead.edges, since, kinds) !== undefined, timeoutMs);
    const edge = firstEdgeAfter(lead.edges, since, kinds);
    if (edge) return { woke: 'edge', edge };
    return woke ? { woke: 'rollover' } : { woke: 'timeout' };
  };

  /** Closes admission, awaits admitted spawns and sends, then stops every recorded child until it has exited. */
  const dispose = async (): Promise<TeamView> => {
    lead.closeAdmission(env.now());
    await condition(() => lead.operationsInFlight === 0);
    const failures: string[] = [];
    for (const member of lead.childrenToStop()) {
      try {
        await control.stopTeammate({ workflowId: member.workflowId });
        lead.markStopped(member.name, env.now());
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
  };

  /** Recovery: provisioning records this run did not create (continue-as-new, reset), settled from the child's own state. */
  const recoverProvisioning = (): Promise<unknown> =>
    Promise.all(
      lead.unsettledProvisioning().map(async (member) => {
        const outcome = await control.reconcileTeammate({ workflowId: member.workflowId, descriptor: descriptorOf(member) });
        // Only a record still unsettled is recovery's to settle. If a creator in this run settled it
        // meanwhile, the creator owns any disagreement (it drains and reports ProvisioningConflict).
        if (lead.member(member.name).phase === 'provisioning') await settle(member, outcome);
      }),
    );

  /**
   * Notifies teammates whose wait_agent watch has seen its edge. Runs until the run closes; watches
   * still pending then are carried across continue-as-new and served by the next run.
   */
  const notifyWatchers = async (): Promise<void> => {
    for (;;) {
      await condition(() => env.closingNow() || lead.dueNotifications().length > 0);
      const due = lead.dueNotifications();
      if (due.length === 0) return; // closing
      for (const notification of due) {
        lead.clearWatch(notification.name, notification.waitId);
        try {
          await getExternalWorkflowHandle(notification.workflowId).signal(defs.edgeNotificationSignal, { waitId: notification.waitId, edge: notification.edge });
        } catch {
          // The teammate has exited: nobody is waiting any more.
        }
      }
    }
  };

  return { spawn, send, interrupt, wait, dispose, recoverProvisioning, notifyWatchers, stopChild: (workflowId: string) => control.stopTeammate({ workflowId }) };
}

/** A spawn whose child start input would be over budget: the record fails with this reason. */
class StartInputTooLarge extends Error {}
