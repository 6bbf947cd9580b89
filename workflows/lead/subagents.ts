/**
 * The ordinary subagents a Lead on the default profile starts: child sessions outside the roster
 * (workflow type `subagent`), with their answers signalled back and the legacy continuable
 * controls (send_input, wait_agent, close_agent) over them. Records are part of the Lead agent's
 * carried state.
 */
import { ApplicationFailure, condition, getExternalWorkflowHandle } from '@temporalio/workflow';
import type { SubagentToolContext } from '../../shared/agent/subagentTools';
import * as contract from '../../shared/contract';
import type { SubagentAnswer } from '../../shared/contract';
import type { SubagentRecord } from '../../shared/lead/carried';
import { own } from '../../shared/own';
import { MAX_SUBAGENTS, SUBAGENT_ANSWERS_KEPT, SUBAGENT_ANSWER_MAX_BYTES, utf8Length } from '../../shared/contract/limits';
import { LEAD } from '../../shared/team';
import type { SignalOutcome } from '../common/handlerGuards';
import type { LeadAgentState } from './agentState';
import { memberSearchAttributes, startSessionChild } from './children';

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
      const found = own(agent.state.subagents, agentId);
      if (!found || found.closed) {
        throw ApplicationFailure.create({
          type: 'UnknownAgent',
          message: `no open subagent "${agentId}"; use an agentId returned by subagent or subagent_fork`,
          nonRetryable: true,
        });
      }
      return found;
    };
    return {
      startSubagent: async ({ prompt, context, model }): Promise<SubagentAnswer> => {
        this.makeRoomForSubagent();
        agent.state.nextSubagent += 1;
        const agentId = `${teamId}/subagent/${agent.state.nextSubagent}`;
        const name = `subagent-${agent.state.nextSubagent}`;
        agent.state.subagents = { ...agent.state.subagents, [agentId]: { workflowId: agentId, answers: [], closed: false } };
        // Survives the Lead's continue-as-new; close_agent and disposal stop it.
        await startSessionChild({
          workflowType: contract.SUBAGENT_WORKFLOW_TYPE,
          workflowId: agentId,
          input: {
            descriptor: { teamId, name, context, initialMessageId: `${agentId}/initial` },
            model: model ?? agent.options?.model ?? null,
            seed: context === 'fork' ? agent.forkSeed() : [],
            initialMessage: { messageId: `${agentId}/initial`, from: LEAD, content: prompt, sentAt: now() },
            cwd: agent.state.cwd,
            ...(agent.options?.checkoutTaskQueue !== undefined ? { checkoutTaskQueue: agent.options.checkoutTaskQueue } : {}),
          },
          typedSearchAttributes: memberSearchAttributes({ teamId, name, role: 'subagent' }),
          identity: { teamId, name, role: 'subagent', context, model: model ?? agent.options?.model ?? null },
        });
        await condition(() => (own(agent.state.subagents, agentId)?.answers.length ?? 0) > 0 || this.deps.closing());
        return own(agent.state.subagents, agentId)?.answers[0] ?? { agentId, turn: 0, answer: null };
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
        agent.state.subagents = { ...agent.state.subagents, [agentId]: { ...target, closed: true } };
        return { agentId, closed: true };
      },
    };
  }

  /** A subagent's answer (a parsed signal). Long answers are cut to SUBAGENT_ANSWER_MAX_BYTES with a note. */
  recordAnswer(answer: SubagentAnswer): SignalOutcome {
    const { agent } = this.deps;
    const record = own(agent.state.subagents, answer.agentId);
    if (!record) return 'unknownKey';
    if (record.answers.some((a) => a.turn === answer.turn)) return 'applied';
    const kept: SubagentAnswer = { ...answer, answer: answer.answer === null ? null : clip(answer.answer, SUBAGENT_ANSWER_MAX_BYTES) };
    // The newest answers only: waits look for an answer of a later turn, never by position.
    agent.state.subagents = { ...agent.state.subagents, [answer.agentId]: { ...record, answers: [...record.answers, kept].slice(-SUBAGENT_ANSWERS_KEPT) } };
    return 'applied';
  }

  /** Forgets the oldest closed subagents past MAX_SUBAGENTS; refuses a new one when that many are open. */
  private makeRoomForSubagent(): void {
    const { agent } = this.deps;
    const entries = Object.entries(agent.state.subagents);
    if (entries.length < MAX_SUBAGENTS) return;
    const closed = entries.filter(([, r]) => r.closed).map(([id]) => id);
    if (closed.length === 0) {
      throw ApplicationFailure.create({
        type: 'TooManySubagents',
        message: `${MAX_SUBAGENTS} subagents are open; close one (close_agent) before starting another`,
        nonRetryable: true,
      });
    }
    const forget = new Set(closed.slice(0, entries.length - MAX_SUBAGENTS + 1));
    const kept: typeof agent.state.subagents = {};
    for (const [id, r] of entries) if (!forget.has(id)) kept[id] = r;
    agent.state.subagents = kept;
  }

  /** Open subagents to stop at disposal. */
  async stopAll(): Promise<void> {
    const { agent } = this.deps;
    for (const [agentId, record] of Object.entries(agent.state.subagents)) {
      if (record.closed) continue;
      await this.deps.stopChild(record.workflowId);
      agent.state.subagents = { ...agent.state.subagents, [agentId]: { ...record, closed: true } };
    }
  }
}

/** Cuts text to at most `maxBytes` of UTF-8 (on a character boundary) and says how much was cut. */
export function clip(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text;
  const note = (cut: number): string => `\n[cut ${cut} characters to stay within the size budget; ask for a shorter answer]`;
  let keep = Math.min(text.length, maxBytes);
  while (keep > 0 && utf8Length(text.slice(0, keep)) + utf8Length(note(text.length - keep)) > maxBytes) keep = Math.floor(keep * 0.9);
  return text.slice(0, keep) + note(text.length - keep);
}
