/**
 * Activities, built by a factory over their dependencies (a Temporal client), so workflows import
 * only their types.
 */
import { Context } from '@temporalio/activity';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { TeamClient } from '../client/teamClient';
import type { ReconcileOutcome, ReconcileTeammateInput, RunTeamToolInput, TeamActivities, TeammateDescriptor } from '../shared/contract';
import { getTeammateStateQuery, TEAMMATE_WORKFLOW_TYPE } from '../shared/contract';
import { runTeamToolCall } from '../shared/agent/dispatch';
import type { DispatchResult } from '../shared/agent/loop';

export interface ActivityDependencies {
  client: Client;
}

export function createActivities({ client }: ActivityDependencies): TeamActivities {
  /** Waits until a workflow has closed (any status); false if it does not exist. */
  async function awaitClosed(workflowId: string): Promise<boolean> {
    const handle = client.workflow.getHandle(workflowId);
    try {
      for (;;) {
        const description = await handle.describe();
        if (description.status.name !== 'RUNNING') return true;
        Context.current().heartbeat();
        await Context.current().sleep(250);
      }
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }

  /** Cancels a teammate and waits until it has exited, so no orphan survives. */
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

  return {
    /**
     * A teammate's Team tool call: the tool runs here against a client attributed to the calling
     * member (from its own workflow identity, never from model input), as exactly one Lead Update
     * whose id is the workflow's deterministic operation id, so a retried activity applies once.
     * It heartbeats while a wait_agent blocks, and gives up promptly when the turn is cancelled.
     */
    async runTeamTool(input: RunTeamToolInput): Promise<DispatchResult> {
      const ctx = Context.current();
      const team = TeamClient.attach(client, input.teamId, input.caller);
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
      let description;
      try {
        description = await handle.describe();
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { phase: 'failed', reason: 'absent: no child workflow with the reserved id', drained: false };
        throw error;
      }
      const fail = async (reason: string): Promise<ReconcileOutcome> => {
        await drain(input.workflowId);
        return { phase: 'failed', reason, drained: true };
      };
      if (description.type !== TEAMMATE_WORKFLOW_TYPE) return fail(`mismatched workflow type ${description.type}`);
      if (description.parentExecution?.workflowId !== input.descriptor.teamId) return fail('mismatched parent: not a direct child of this Lead');
      const memo = description.memo?.agentTeam as Partial<TeammateDescriptor> | undefined;
      const d = input.descriptor;
      if (!memo || memo.teamId !== d.teamId || memo.name !== d.name || memo.context !== d.context || memo.initialMessageId !== d.initialMessageId) {
        return fail('corrupt or mismatched teammate descriptor');
      }
      // A genuine child that has already closed (cancelled by a drain or disposal, terminated by an
      // operator, failed) is none of the seed's failure causes. It proves its creation was admitted
      // (the initial message is part of its start input) but not a member: a closed execution takes
      // no message, and its reserved id is never started again. So the record fails, with the close
      // status as the reason; nothing is drained, because nothing is left running.
      if (description.status.name !== 'RUNNING') {
        const status = description.status.name.toLowerCase();
        return { phase: 'failed', reason: `genuine child already ${status}: admitted once, but a closed child can take no message`, drained: false };
      }
      const state = await handle.query(getTeammateStateQuery);
      if (!state.seenMessageIds.includes(d.initialMessageId)) return fail('initial message missing from the child');
      return { phase: 'active' };
    },

    /** Disposal and conflict cleanup: cancel the child and wait until it has exited. */
    async stopTeammate(input: { workflowId: string }): Promise<void> {
      await drain(input.workflowId);
    },
  };
}
