/**
 * The ordinary subagents a Lead on the default profile starts: child sessions outside the roster
 * (workflow type `subagent`), with their answers signalled back and the legacy continuable
 * controls (send_input, wait_agent, close_agent) over them. Records are part of the Lead agent's
 * carried state.
 */
import {
  ApplicationFailure,
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  condition,
  getExternalWorkflowHandle,
  startChild,
} from '@temporalio/workflow';
import type { SubagentAnswer, SubagentToolContext } from '../shared/agent/subagentTools';
import * as defs from '../shared/definitions';
import { LEAD } from '../shared/team';
import type { LeadAgentState } from './leadAgentState';
import type { LeadOperations } from './leadOperations';
import type { subagent } from './subagent';

export interface LeadSubagentDeps {
  agent: LeadAgentState;
  ops: LeadOperations;
  teamId: string;
  now: () => string;
  closing: () => boolean;
}

export class LeadSubagents {
  constructor(private readonly deps: LeadSubagentDeps) {}

  context(opId: string): SubagentToolContext {
    const { agent, teamId, now } = this.deps;
    const record = (agentId: string): defs.SubagentRecord => {
      const found = agent.subagents[agentId];
      if (!found || found.closed) {
        throw ApplicationFailure.create({ type: 'UnknownAgent', message: `no open subagent "${agentId}"; use an agentId returned by subagent or subagent_fork`, nonRetryable: true });
      }
      return found;
    };
    return {
      startSubagent: async ({ prompt, context, model }): Promise<SubagentAnswer> => {
        agent.nextSubagent += 1;
        const agentId = `${teamId}/subagent/${agent.nextSubagent}`;
        const name = `subagent-${agent.nextSubagent}`;
        agent.subagents = { ...agent.subagents, [agentId]: { workflowId: agentId, answers: [], closed: false } };
        await startChild<typeof subagent>(defs.SUBAGENT_WORKFLOW_TYPE, {
          workflowId: agentId,
          args: [
            {
              descriptor: { teamId, name, context, initialMessageId: `${agentId}/initial` },
              model: model ?? agent.options?.model ?? null,
              seed: context === 'fork' ? agent.forkSeed() : [],
              initialMessage: { messageId: `${agentId}/initial`, from: LEAD, content: prompt, sentAt: now() },
              cwd: agent.cwd,
              ...(agent.options?.checkoutTaskQueue !== undefined ? { checkoutTaskQueue: agent.options.checkoutTaskQueue } : {}),
            },
          ],
          // Survives the Lead's continue-as-new; close_agent and disposal stop it.
          parentClosePolicy: ParentClosePolicy.ABANDON,
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        });
        await condition(() => (agent.subagents[agentId]?.answers.length ?? 0) > 0 || this.deps.closing());
        return agent.subagents[agentId]?.answers[0] ?? { agentId, turn: 0, answer: null };
      },
      sendInput: async (agentId, message) => {
        const target = record(agentId);
        await getExternalWorkflowHandle(target.workflowId).signal(defs.deliverMessageSignal, { messageId: opId, from: LEAD, content: message, sentAt: now() });
        return { agentId, messageId: opId };
      },
      waitAgent: async (agentId, timeoutMs) => {
        const since = record(agentId).answers.length;
        await condition(() => (agent.subagents[agentId]?.answers.length ?? 0) > since || this.deps.closing(), timeoutMs);
        return agent.subagents[agentId]?.answers[since] ?? null;
      },
      closeAgent: async (agentId) => {
        const target = record(agentId);
        await this.deps.ops.stopChild(target.workflowId);
        agent.subagents = { ...agent.subagents, [agentId]: { ...target, closed: true } };
        return { agentId, closed: true };
      },
    };
  }

  /** A subagent's answer, signalled by the child. */
  recordAnswer(answer: SubagentAnswer): void {
    const { agent } = this.deps;
    const record = agent.subagents[answer.agentId];
    if (!record || record.answers.some((a) => a.turn === answer.turn)) return;
    agent.subagents = { ...agent.subagents, [answer.agentId]: { ...record, answers: [...record.answers, answer] } };
  }

  /** Open subagents to stop at disposal. */
  async stopAll(): Promise<void> {
    const { agent, ops } = this.deps;
    for (const [agentId, record] of Object.entries(agent.subagents)) {
      if (record.closed) continue;
      await ops.stopChild(record.workflowId);
      agent.subagents = { ...agent.subagents, [agentId]: { ...record, closed: true } };
    }
  }

  /** One turn over the Lead's inbox; false when it failed for good (the model call gave up). */
}
