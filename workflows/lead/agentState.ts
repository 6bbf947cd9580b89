/**
 * The Lead agent's durable state: its conversation, turn count, working directory, status, final
 * answer and the ordinary subagents it started. Plain data, carried across continue-as-new. No
 * Temporal calls here; agent.ts runs the turns.
 */
import type { ConversationEntry, LeadAgentOptions, LeadAgentView, ProfileName } from '../../shared/contract';
import type { CarriedLeadAgent, LeadRunInput } from '../../shared/lead/carried';
import type { InboxMessage } from '../../shared/inbox';
import { PROMPT_SENDER } from '../../shared/lead';
import { LEAD } from '../../shared/team';
import { QUERIED_CONVERSATION_BUDGET_BYTES, compactConversation, compactConversationOrDrop } from '../../shared/agent/budget';
import { completedTurnPrefix } from '../../shared/agent/prompt';
import { inboxEntry } from '../../shared/agent/steer';

/** Messages from members are records of this Team; the operator's prompts are not. */
export function teamIdOfLeadMail(message: InboxMessage, teamId: string): string | undefined {
  return message.from === PROMPT_SENDER ? undefined : teamId;
}

export class LeadAgentState {
  readonly options: LeadAgentOptions | null;
  /** Everything carried across continue-as-new, as one value. */
  state: CarriedLeadAgent;
  /** The turn in progress, if any: a fork spawned now excludes it. */
  currentTurn: number | null = null;

  constructor(input: LeadRunInput) {
    this.options = input.agent ?? null;
    const conversation = [...(input.forkOf?.conversation ?? [])];
    this.state = input.carried?.agent ?? {
      conversation,
      turns: Math.max(0, ...conversation.map((e) => e.turn)),
      cwd: input.agent?.cwd ?? '.',
      status: 'idle',
      finalAnswer: null,
      openTasksAtAnswer: [],
      nudges: 0,
      lastError: null,
      subagents: {},
      nextSubagent: 0,
    };
  }

  get enabled(): boolean {
    return this.options !== null;
  }

  get profile(): ProfileName {
    return this.options?.profile ?? 'default';
  }

  /** Takes the inbox messages into the conversation as the next turn's user entries. */
  beginTurn(messages: InboxMessage[], teamId: string): number {
    this.state.turns += 1;
    this.currentTurn = this.state.turns;
    this.record(messages, teamId);
    return this.state.turns;
  }

  /** Steer: messages taken at a step boundary of the running turn (the current turn), as its user entries. */
  takeIntoRunningTurn(take: { messages: InboxMessage[]; entries: ConversationEntry[] }): void {
    this.noteSenders(take.messages);
    this.state.conversation.push(...take.entries);
  }

  private record(messages: InboxMessage[], teamId: string): void {
    this.noteSenders(messages);
    for (const m of messages) this.state.conversation.push(inboxEntry(m, this.state.turns, teamIdOfLeadMail(m, teamId)));
  }

  /** Word from anyone but the Lead itself (its own nudges) starts the nudge budget over. */
  private noteSenders(messages: InboxMessage[]): void {
    if (messages.some((m) => m.from !== LEAD)) this.state.nudges = 0;
  }

  note(content: ConversationEntry['content']): void {
    this.state.conversation.push({ role: 'system', content, turn: this.state.turns });
  }

  /** The Lead's completed-turn prefix, captured once as a fork teammate's seed. */
  forkSeed(): ConversationEntry[] {
    return compactConversation(completedTurnPrefix(this.state.conversation, this.currentTurn));
  }

  lastReply(): string | null {
    const last = this.state.conversation[this.state.conversation.length - 1];
    return last?.role === 'assistant' && typeof last.content === 'string' ? last.content : null;
  }

  carry(conversationBudget?: number): CarriedLeadAgent {
    return { ...this.state, conversation: compactConversationOrDrop(this.state.conversation, conversationBudget) };
  }

  view(): LeadAgentView {
    return {
      enabled: this.enabled,
      profile: this.profile,
      status: this.state.status,
      turns: this.state.turns,
      cwd: this.state.cwd,
      finalAnswer: this.state.finalAnswer,
      openTasksAtAnswer: this.state.openTasksAtAnswer,
      lastError: this.state.lastError ?? null,
      subagents: Object.values(this.state.subagents).map(({ workflowId, closed }) => ({ workflowId, closed })),
      // A query result is a payload too: long old contents are elided to stay within its limit.
      conversation: compactConversationOrDrop(this.state.conversation, QUERIED_CONVERSATION_BUDGET_BYTES),
    };
  }
}
