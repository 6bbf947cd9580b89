/**
 * The ordinary subagents a Lead on the default profile starts: child sessions outside the roster
 * (workflow type `subagent`), with their answers signalled back and the legacy continuable
 * controls (send_input, wait_agent, close_agent) over them. Records are part of the Lead agent's
 * carried state.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ApplicationFailure, condition, getExternalWorkflowHandle, patched } from '@temporalio/workflow';
import type { SubagentToolContext } from '../../shared/agent/subagentTools';
import * as contract from '../../shared/contract';
import type { SubagentAnswer } from '../../shared/contract';
import type { LeadAgentRejection } from '../../shared/lead';
import { decideCloseSubagent, decideOpenSubagent, decideSubagentAnswer, findOpenSubagent, subagentId } from '../../shared/lead';
import type { SubagentRecord } from '../../shared/lead/carried';
import { own } from '../../shared/util/own';
import type { SignalOutcome } from '../common/handlerGuards';
import type { LeadAgentState } from './agentState';
import { memberSearchAttributes, startSessionChild } from './children';
import { memberBudget, withBudget } from '../../shared/agent/spend';
import { SUBAGENT_ID_TAKEN_PATCH } from '../../shared/contract/patches';
import { LEAD } from '../../shared/contract';

export interface LeadSubagentDeps {
  agent: LeadAgentState;
  teamId: string;
  /** Stops a child and waits until it has exited. */
  stopChild(workflowId: string): Promise<void>;
  now: () => string;
  closing: () => boolean;
}

export class LeadSubagents {
  constructor(private readonly deps: LeadSubagentDeps) {}

  context(opId: string): SubagentToolContext {
    const { agent, teamId, now } = this.deps;
    const record = (agentId: string): SubagentRecord => {
      const found = findOpenSubagent(agent.state, agentId);
      if (!found.ok) throw agentFailure(found.rejection);
      return found.record;
    };
    return {
      startSubagent: async ({ prompt, context, model }): Promise<SubagentAnswer> => {
        for (;;) {
          // Forgets the oldest closed subagents past MAX_SUBAGENTS; refuses a new one when that many are open.
          const opened = decideOpenSubagent(agent.state, teamId, {
            models: agent.models,
            requested: model,
            inherited: agent.model,
            budget: agent.budgets?.member,
          });
          if (!opened.ok) throw agentFailure(opened.rejection);
          agent.apply(opened.events);
          const agentId = subagentId(teamId, agent.state.nextSubagent);
          const name = `subagent-${agent.state.nextSubagent}`;
          try {
            // Survives the Lead's continue-as-new; close_agent and disposal stop it.
            await startSessionChild({
              workflowType: contract.SUBAGENT_WORKFLOW_TYPE,
              workflowId: agentId,
              input: {
                descriptor: { teamId, name, context, initialMessageId: `${agentId}/initial` },
                model: model ?? agent.model,
                seed: context === 'fork' ? agent.forkSeed() : [],
                initialMessage: { messageId: `${agentId}/initial`, from: LEAD, content: prompt, sentAt: now() },
                cwd: agent.state.cwd,
                ...(agent.options?.checkoutTaskQueue !== undefined ? { checkoutTaskQueue: agent.options.checkoutTaskQueue } : {}),
                ...withBudget(memberBudget(agent.budgets?.member, model ?? agent.model, agent.models?.prices), agent.budgets),
              },
              typedSearchAttributes: memberSearchAttributes({ teamId, name, role: 'subagent' }),
              identity: { teamId, name, role: 'subagent', context, model: model ?? agent.model },
            });
          } catch (error) {
            if (!(error instanceof WorkflowExecutionAlreadyStartedError) || !patched(SUBAGENT_ID_TAKEN_PATCH)) throw error;
            // Taken by a start this Lead no longer remembers: a reset discarded it, or an earlier Lead of
            // this Team id made it. Nothing of this run waits on it: stop it, and start this one as the next.
            await this.deps.stopChild(agentId);
            this.closed(agentId);
            continue;
          }
          await condition(() => (own(agent.state.subagents, agentId)?.answers.length ?? 0) > 0 || this.deps.closing());
          return own(agent.state.subagents, agentId)?.answers[0] ?? { agentId, turn: 0, answer: null };
        }
      },
      sendInput: async (agentId, message) => {
        const target = record(agentId);
        await getExternalWorkflowHandle(target.workflowId).signal(contract.deliverMessageSignal, {
          messageId: opId,
          from: LEAD,
          content: message,
          sentAt: now(),
        });
        return { agentId, messageId: opId };
      },
      waitAgent: async (agentId, timeoutMs) => {
        const since = Math.max(0, ...record(agentId).answers.map((a) => a.turn));
        const next = (): SubagentAnswer | undefined => own(agent.state.subagents, agentId)?.answers.find((a) => a.turn > since);
        await condition(() => next() !== undefined || this.deps.closing(), timeoutMs);
        return next() ?? null;
      },
      closeAgent: async (agentId) => {
        const target = record(agentId);
        await this.deps.stopChild(target.workflowId);
        this.closed(agentId);
        return { agentId, closed: true };
      },
    };
  }

  /** A subagent's answer (a parsed signal). Long answers are cut to SUBAGENT_ANSWER_MAX_BYTES with a note. */
  recordAnswer(answer: SubagentAnswer): SignalOutcome {
    const decision = decideSubagentAnswer(this.deps.agent.state, answer);
    if (!decision.ok) return decision.ignored;
    this.deps.agent.apply(decision.events);
    return 'applied';
  }

  /** A subagent whose child has stopped is closed (decided against the state now: another call may have closed it meanwhile). */
  private closed(agentId: string): void {
    const decision = decideCloseSubagent(this.deps.agent.state, agentId);
    if (decision.ok) this.deps.agent.apply(decision.events);
  }

  /** Open subagents to stop at disposal. */
  async stopAll(): Promise<void> {
    const { agent } = this.deps;
    for (const [agentId, record] of Object.entries(agent.state.subagents)) {
      if (record.closed) continue;
      await this.deps.stopChild(record.workflowId);
      this.closed(agentId);
    }
  }
}

function agentFailure(rejection: LeadAgentRejection): ApplicationFailure {
  return ApplicationFailure.create({ type: rejection.type, message: rejection.message, nonRetryable: true });
}
