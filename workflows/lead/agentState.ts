/**
 * The Lead agent's durable state: its conversation, turn count, working directory, status, final
 * answer and the ordinary subagents it started. Plain data, carried across continue-as-new. No
 * Temporal calls here; agent.ts runs the turns.
 */
import type { AgentStatus, ConversationEntry, LeadAgentOptions, LeadAgentView, ProfileName } from '../../shared/contract';
import type { CarriedLeadAgent, LeadRunInput, SubagentRecord } from '../../shared/lead/carried';
import type { InboxMessage } from '../../shared/inbox';
import { OPERATOR } from '../../shared/lead';
import { LEAD } from '../../shared/team';
import { QUERIED_CONVERSATION_BUDGET_BYTES, compactConversation, compactConversationOrDrop } from '../../shared/agent/budget';
import { completedTurnPrefix } from '../../shared/agent/prompt';

export class LeadAgentState {
  readonly options: LeadAgentOptions | null;
  conversation: ConversationEntry[];
  turns: number;
  cwd: string;
  status: AgentStatus;
  finalAnswer: string | null;
  openTasksAtAnswer: number[];
  nudges: number;
  lastError: string | null;
  subagents: Record<string, SubagentRecord>;
  nextSubagent: number;
  /** The turn in progress, if any: a fork spawned now excludes it. */
  currentTurn: number | null = null;
  /** A turn that yielded at a step boundary when the previous run rolled over; the next run finishes it first. */
  resumeTurn: { turn: number; step: number } | null;

  constructor(input: LeadRunInput) {
    const carried: CarriedLeadAgent | undefined = input.carried?.agent;
    this.options = input.agent ?? null;
    this.conversation = carried?.conversation ?? [...(input.forkOf?.conversation ?? [])];
    this.turns = carried?.turns ?? Math.max(0, ...this.conversation.map((e) => e.turn));
    this.cwd = carried?.cwd ?? input.agent?.cwd ?? '.';
    this.status = carried?.status ?? 'idle';
    this.finalAnswer = carried?.finalAnswer ?? null;
    this.openTasksAtAnswer = carried?.openTasksAtAnswer ?? [];
    this.nudges = carried?.nudges ?? 0;
    this.lastError = carried?.lastError ?? null;
    this.subagents = carried?.subagents ?? {};
    this.nextSubagent = carried?.nextSubagent ?? 0;
    this.resumeTurn = carried?.resumeTurn ?? null;
  }

  get enabled(): boolean {
    return this.options !== null;
  }

  get profile(): ProfileName {
    return this.options?.profile ?? 'default';
  }

  /** Takes the inbox messages into the conversation as the next turn's user entries. */
  beginTurn(messages: InboxMessage[], teamId: string): number {
    this.turns += 1;
    this.currentTurn = this.turns;
    if (messages.some((m) => m.from !== LEAD)) this.nudges = 0;
    for (const m of messages) {
      // Messages from members are records of this Team; the operator's prompts are not.
      this.conversation.push({ role: 'user', messageId: m.messageId, from: m.from, content: m.content, turn: this.turns, ...(m.from === OPERATOR ? {} : { teamId }) });
    }
    return this.turns;
  }

  note(content: ConversationEntry['content']): void {
    this.conversation.push({ role: 'system', content, turn: this.turns });
  }

  /** The Lead's completed-turn prefix, captured once as a fork teammate's seed. */
  forkSeed(): ConversationEntry[] {
    return compactConversation(completedTurnPrefix(this.conversation, this.currentTurn));
  }

  lastReply(): string | null {
    const last = this.conversation[this.conversation.length - 1];
    return last?.role === 'assistant' && typeof last.content === 'string' ? last.content : null;
  }

  carry(conversationBudget?: number): CarriedLeadAgent {
    return {
      subagents: this.subagents,
      nextSubagent: this.nextSubagent,
      conversation: compactConversationOrDrop(this.conversation, conversationBudget),
      turns: this.turns,
      cwd: this.cwd,
      status: this.status,
      finalAnswer: this.finalAnswer,
      openTasksAtAnswer: this.openTasksAtAnswer,
      nudges: this.nudges,
      lastError: this.lastError,
      ...(this.resumeTurn ? { resumeTurn: this.resumeTurn } : {}),
    };
  }

  view(): LeadAgentView {
    return {
      enabled: this.enabled,
      profile: this.profile,
      status: this.status,
      turns: this.turns,
      cwd: this.cwd,
      finalAnswer: this.finalAnswer,
      openTasksAtAnswer: this.openTasksAtAnswer,
      lastError: this.lastError,
      // A query result is a payload too: long old contents are elided to stay within its limit.
      conversation: compactConversationOrDrop(this.conversation, QUERIED_CONVERSATION_BUDGET_BYTES),
    };
  }
}
