/**
 * Activities, built by a factory over their dependencies (a Temporal client), so workflows import
 * only their types.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { type Client, WorkflowNotFoundError, isGrpcServiceError } from '@temporalio/client';
import type { SignalDefinition } from '@temporalio/common';
import { TeamClient } from '../client/teamClient';
import type {
  ReconcileOutcome,
  ReconcileTeammateInput,
  ReportMemberStatusInput,
  RequestModelCallInput,
  RunTeamToolInput,
  TeamActivities,
} from '../shared/contract';
import { getTeammateStateQuery, modelCallRequestSignal, reportMemberStatusSignal, TEAMMATE_WORKFLOW_TYPE } from '../shared/contract';
import { TEAM_CLOSED } from '../shared/contract/failures';
import { runTeamToolCall } from '../shared/agent/dispatch';
import type { DispatchResult } from '../shared/agent/loop';
import { errorMessage } from '../shared/util/errors';
import { descriptorProblem } from '../shared/session/descriptor';
import { memberNameProblem } from '../shared/team/roster';
import { reservedIdTakenMessage } from '../shared/contract/reservedIds';
import { ownershipOf } from './ownership';

/** temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING (the proto package is not a dependency here). */
const WORKFLOW_EXECUTION_STATUS_RUNNING = 1;
/** The gRPC status of a describe for an id that holds no workflow. */
const GRPC_NOT_FOUND = 5;
/** How long one attempt of reportMemberStatus or requestModelCall gives its signal: half the attempt's 10 s (workflows/common/agentActivities.ts). */
const LEAD_SIGNAL_DEADLINE_MS = 5_000;
/** How long memberClosed waits for a member that reported its exit to close (it closes in its next workflow task). */
const MEMBER_CLOSE_WAIT_MS = 10_000;

export interface ActivityDependencies {
  client: Client;
}

export function createActivities({ client }: ActivityDependencies): TeamActivities {
  /** The raw description: describe() also decodes the memo, and an impostor's memo may not decode. Null if absent. */
  async function rawDescription(workflowId: string) {
    try {
      return await client.workflowService.describeWorkflowExecution({ namespace: client.options.namespace, execution: { workflowId } });
    } catch (error) {
      if (isGrpcServiceError(error) && Number(error.code) === GRPC_NOT_FOUND) return null;
      throw error;
    }
  }

  /** Waits until a workflow has closed (any status); false if it does not exist. */
  async function awaitClosed(workflowId: string): Promise<boolean> {
    for (;;) {
      const raw = await rawDescription(workflowId);
      if (raw === null) return false;
      if (Number(raw.workflowExecutionInfo?.status) !== WORKFLOW_EXECUTION_STATUS_RUNNING) return true;
      Context.current().heartbeat();
      await Context.current().sleep(250);
    }
  }

  /** The Lead whose control activity this is: the workflow that scheduled it, never a value from an input. */
  function callingLead(): string {
    const leadId = Context.current().info.workflowExecution?.workflowId;
    if (!leadId) throw ApplicationFailure.nonRetryable('a control activity acts only for the Lead that scheduled it, and none did', 'InvalidCaller');
    return leadId;
  }

  /** Cancels a teammate and waits until it has exited, so no orphan survives. Only ever called on the calling Lead's own child. */
  async function drain(workflowId: string): Promise<void> {
    try {
      await client.workflow.getHandle(workflowId).cancel();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return;
      // Already closed: cancel is refused, which is fine.
      if (!/already completed|not found/i.test(String(error))) throw error;
    }
    await awaitClosed(workflowId);
  }

  /**
   * A member's signal to its Lead, sent by the worker (workflows/common/agentActivities.ts
   * `leadSignals` says why). An attempt gives up its signal well before the attempt times out,
   * rather than leave it in flight while a retry, and then the member's next signal, go out after
   * it. 'closed': the Lead has closed, or never was.
   */
  async function signalLead<Payload>(teamId: string, signal: SignalDefinition<[Payload]>, payload: Payload): Promise<'sent' | 'closed'> {
    try {
      await client.withDeadline(Date.now() + LEAD_SIGNAL_DEADLINE_MS, () => client.workflow.getHandle(teamId).signal(signal, payload));
      return 'sent';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return 'closed';
      throw error;
    }
  }

  /** The memo entry that does not decode (its key and the error), or null when every entry decodes. */
  async function undecodableMemo(workflowId: string): Promise<string | null> {
    const raw = await rawDescription(workflowId);
    for (const [key, payload] of Object.entries(raw?.workflowExecutionInfo?.memo?.fields ?? {})) {
      try {
        client.options.loadedDataConverter.payloadConverter.fromPayload(payload);
      } catch (error) {
        return `${key}: ${errorMessage(error)}`.slice(0, 300);
      }
    }
    return null;
  }

  return {
    async reportMemberStatus({ teamId, report }: ReportMemberStatusInput): Promise<void> {
      // The Lead has closed (or never was): live status is advisory, and nobody is left to tell.
      if ((await signalLead(teamId, reportMemberStatusSignal, report)) === 'closed') return;
    },

    async requestModelCall({ teamId, request }: RequestModelCallInput): Promise<void> {
      if ((await signalLead(teamId, modelCallRequestSignal, request)) === 'closed') {
        throw ApplicationFailure.create({
          type: TEAM_CLOSED,
          message: `the Team ${teamId} has finished: nobody is left to answer a model call request`,
          nonRetryable: true,
        });
      }
    },

    /**
     * A teammate's Team tool call: the tool runs here against a client attributed to the calling
     * member (from its own workflow identity, never from model input), as exactly one Lead Update
     * whose id is the workflow's deterministic operation id, so a retried activity applies once.
     * It heartbeats while a wait_agent blocks, and gives up promptly when the turn is cancelled.
     */
    async runTeamTool(input: RunTeamToolInput): Promise<DispatchResult> {
      assertTeammateCaller(input.caller);
      const ctx = Context.current();
      // A refused tool call shows in the Team's views (one reportRejection signal on the Lead).
      const team = TeamClient.attach(client, input.teamId, input.caller).reportingRejections();
      const beat = setInterval(() => ctx.heartbeat(), 5_000);
      try {
        return await Promise.race([
          runTeamToolCall(input.call, {
            caller: input.caller,
            update: (definition, body) => team.update(definition, body, input.opId),
            roster: async () => ({ view: await team.view(), liveStatus: await team.liveStatus() }),
          }),
          ctx.cancelled,
        ]);
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * Recovery of an unterminated provisioning record from the child's independently persisted
     * state: direct parent, workflow type and descriptor must match, the child must be running and
     * the initial message must be recorded; otherwise the record fails (a running impostor is
     * drained). If this activity exhausts its retries, the Lead fails the record itself.
     */
    async reconcileTeammate(input: ReconcileTeammateInput): Promise<ReconcileOutcome> {
      const handle = client.workflow.getHandle(input.workflowId);
      // Ownership first, from the raw description: a workflow that is not provably this Lead's own
      // child (type, parent, AgentTeamId) is never drained, queried or signalled. The spawn fails
      // with ReservedIdTaken, naming it.
      const leadId = callingLead();
      const ownership = await ownershipOf(client, input.workflowId, leadId);
      if (ownership.kind === 'absent') return { phase: 'failed', reason: 'absent: no child workflow with the reserved id', drained: false };
      if (ownership.kind === 'foreign') {
        return { phase: 'failed', reason: reservedIdTakenMessage(ownership.holder, leadId, ownership.problem), drained: false, holder: ownership.holder };
      }
      // From here on the holder is this Lead's own child: draining it touches nothing of anyone else.
      const fail = async (reason: string): Promise<ReconcileOutcome> => {
        await drain(input.workflowId);
        return { phase: 'failed', reason, drained: true };
      };
      let description;
      try {
        description = await handle.describe();
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { phase: 'failed', reason: 'absent: no child workflow with the reserved id', drained: false };
        // A memo whose bytes do not decode fails describe() itself: corruption, not a transient error
        // to retry. No worker can run that workflow either (its tasks fail decoding the memo), so it
        // cannot take a cancellation: it is not drained here, and stays cleanup-owned by the record.
        const undecodable = await undecodableMemo(input.workflowId);
        if (undecodable !== null) return { phase: 'failed', reason: `corrupt teammate descriptor: the memo does not decode (${undecodable})`, drained: false };
        throw error;
      }
      if (description.type !== TEAMMATE_WORKFLOW_TYPE) return fail(`mismatched workflow type ${description.type}`);
      if (description.parentExecution?.workflowId !== input.descriptor.teamId) return fail('mismatched parent: not a direct child of this Lead');
      const problem = descriptorProblem(description.memo?.agentTeam, input.descriptor);
      if (problem !== null) return fail(problem);
      // A genuine child that has already closed (cancelled by a drain or disposal, terminated by an
      // operator, failed) is none of the seed's failure causes. It proves its creation was admitted
      // (the initial message is part of its start input) but not a member: a closed execution takes
      // no message, and its reserved id is never started again. So the record fails, with the close
      // status as the reason; nothing is drained, because nothing is left running.
      if (description.status.name !== 'RUNNING') {
        const status = description.status.name.toLowerCase();
        return {
          phase: 'failed',
          reason: `genuine child already ${status}: admitted once, but a closed child can take no message; spawn the teammate under another name`,
          drained: false,
        };
      }
      // Seen covers both cases the seed recognizes: still pending in the inbox, or already taken into the conversation.
      const state = await handle.query(getTeammateStateQuery);
      if (!state.seenMessageIds.includes(input.descriptor.initialMessageId)) return fail('initial message missing from the child');
      return { phase: 'active' };
    },

    /**
     * Disposal, close_agent, a taken subagent id and conflict cleanup: cancel the child and wait
     * until it has exited. Only the calling Lead's own child is touched: a workflow at the id that
     * is not (a failed record's holder, say) is left as it is, and there is nothing of the Lead's
     * there to stop.
     */
    async stopTeammate(input: { workflowId: string }): Promise<void> {
      const leadId = callingLead();
      const ownership = await ownershipOf(client, input.workflowId, leadId);
      if (ownership.kind === 'absent') return;
      if (ownership.kind === 'foreign') {
        Context.current().log.warn(`stopTeammate: ${reservedIdTakenMessage(ownership.holder, leadId, ownership.problem)}; not stopped`);
        return;
      }
      await drain(input.workflowId);
    },

    /** A member's exit report, checked against the server: it closes within a moment of the report, or the report was not true. */
    async memberClosed(input: { workflowId: string }): Promise<boolean> {
      const giveUpAt = Date.now() + MEMBER_CLOSE_WAIT_MS;
      for (;;) {
        const raw = await rawDescription(input.workflowId);
        if (raw === null) return false;
        if (Number(raw.workflowExecutionInfo?.status) !== WORKFLOW_EXECUTION_STATUS_RUNNING) return true;
        if (Date.now() >= giveUpAt) return false;
        Context.current().heartbeat();
        await Context.current().sleep(250);
      }
    },
  };
}

/**
 * runTeamTool acts for a teammate, and only under a teammate's name: never as "lead" or the
 * operator ("@operator"), whatever reached its input. The session workflow fills the caller in from
 * its own identity, so this never trips in a working deployment; it keeps the Lead's authority out
 * of reach of every teammate activity by construction, not by the workflow's good behaviour.
 */
export function assertTeammateCaller(caller: string): void {
  const problem = memberNameProblem(caller);
  if (problem) throw ApplicationFailure.nonRetryable(`runTeamTool acts only under a teammate's own name: ${problem}`, 'InvalidCaller');
}
