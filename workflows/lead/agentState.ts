/**
 * The Lead agent's durable state: its conversation, turn count, working directory, status, final
 * answer and the ordinary subagents it started. Plain data, carried across continue-as-new. No
 * Temporal calls here; agent.ts runs the turns.
 */
import type { ConversationEntry, LeadAgentOptions, LeadAgentView, ProfileName } from '../../shared/contract';
import type { CarriedLeadAgent, LeadRunInput } from '../../shared/lead/carried';
import type { InboxMessage } from '../../shared/inbox';
import { OPERATOR } from '../../shared/lead';
import { LEAD } from '../../shared/team';
import { QUERIED_CONVERSATION_BUDGET_BYTES, compactConversation, compactConversationOrDrop } from '../../shared/agent/budget';
import { completedTurnPrefix } from '../../shared/agent/prompt';

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
    if (messages.some((m) => m.from !== LEAD)) this.state.nudges = 0;
    for (const m of messages) {
      // Messages from members are records of this Team; the operator's prompts are not.
      this.state.conversation.push({
        role: 'user',
        messageId: m.messageId,
        from: m.from,
        content: m.content,
        turn: this.state.turns,
        ...(m.from === OPERATOR ? {} : { teamId }),
      });
    }
    return this.state.turns;
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
      // A query result is a payload too: long old contents are elided to stay within its limit.
      conversation: compactConversationOrDrop(this.state.conversation, QUERIED_CONVERSATION_BUDGET_BYTES),
    };
  }
}
