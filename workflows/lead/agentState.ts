/**
 * The Lead agent's durable state: its conversation, turn count, working directory, status, final
 * answer and the ordinary subagents it started. Plain data, carried across continue-as-new. It
 * changes only through `apply` (events from the decide functions in shared/lead/agentDecide.ts,
 * applied by applyLeadAgent), the conversation too (the agent loop appends through `append`). No
 * Temporal calls here; agent.ts runs the turns.
 */
import type { ConversationEntry, LeadAgentOptions, LeadAgentView, ProfileName, InboxMessage } from '../../shared/contract';
import type { CarriedLeadAgent, LeadRunInput } from '../../shared/lead/carried';
import type { LeadAgentEvent } from '../../shared/lead';
import { PROMPT_SENDER, applyLeadAgentAll, decideAppend, decideBeginTurn, decideCwd, decideTake } from '../../shared/lead';
import { QUERIED_CONVERSATION_MAX_BYTES, compactConversation, compactConversationOrDrop } from '../../shared/agent/conversationSize';
import { completedTurnPrefix } from '../../shared/agent/prompt';
import { inboxEntry } from '../../shared/agent/steer';
import { workingDirectory } from '../common/workingDirectory';
import { resolveModel, type TeamModels } from '../../shared/contract/modelNames';
import { NO_MEMBER_USAGE } from '../../shared/agent/usage';
import type { TeamBudgets } from '../../shared/contract/budgets';

/** Messages from members are records of this Team; the operator's prompts are not. */
export function teamIdOfLeadMail(message: InboxMessage, teamId: string): string | undefined {
  return message.from === PROMPT_SENDER ? undefined : teamId;
}

export class LeadAgentState {
  readonly options: LeadAgentOptions | null;
  /** The Team's model list (its start input's), and the model the Lead runs: its own, else the list's default. */
  readonly models: TeamModels | undefined;
  readonly model: string | null;
  /** The Team's budgets (its start input's). */
  readonly budgets: TeamBudgets | undefined;
  /** Everything carried across continue-as-new, as one value; replaced only by `apply`. */
  private value: CarriedLeadAgent;
  /** The turn in progress, if any: a fork spawned now excludes it. Not carried; set by beginTurn and resumeTurn, cleared by turnDone. */
  private runningTurn: number | null = null;
  /** The Lead's working directory as a running turn's work tools see it (a `cd` is applied as an event). */
  readonly session: { cwd: string };

  constructor(input: LeadRunInput) {
    this.options = input.agent ?? null;
    this.models = input.models;
    this.model = resolveModel(input.models, input.agent?.model);
    this.budgets = input.budgets;
    const conversation = [...(input.forkOf?.conversation ?? [])];
    this.value = input.carried?.agent ?? {
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
    this.session = workingDirectory(
      () => this.state.cwd,
      (cwd) => this.apply(decideCwd(this.state, cwd)),
    );
  }

  /** The state as it is now (read only: it changes through `apply`). */
  get state(): Readonly<CarriedLeadAgent> {
    return this.value;
  }

  /** The one place the state changes. */
  apply(events: readonly LeadAgentEvent[]): void {
    if (events.length === 0) return;
    this.value = applyLeadAgentAll(this.value, events);
  }

  get enabled(): boolean {
    return this.options !== null;
  }

  get profile(): ProfileName {
    return this.options?.profile ?? 'default';
  }

  /** The turn in progress, if any. */
  get currentTurn(): number | null {
    return this.runningTurn;
  }

  /** Takes the inbox messages into the conversation as the next turn's user entries. */
  beginTurn(messages: InboxMessage[], teamId: string): number {
    this.apply(decideBeginTurn(this.state, messages));
    this.runningTurn = this.state.turns;
    this.apply(decideAppend(this.state, ...messages.map((m) => inboxEntry(m, this.state.turns, teamIdOfLeadMail(m, teamId)))));
    return this.state.turns;
  }

  /** Goes on with a turn the previous run yielded. */
  resumeTurn(turn: number): void {
    this.runningTurn = turn;
  }

  /** The running turn is over (done, yielded, failed or cancelled). */
  turnDone(): void {
    this.runningTurn = null;
  }

  /** Steer: messages taken at a step boundary of the running turn (the current turn), as its user entries. */
  takeIntoRunningTurn(take: { messages: InboxMessage[]; entries: ConversationEntry[] }): void {
    this.apply(decideTake(this.state, take.messages));
    this.apply(decideAppend(this.state, ...take.entries));
  }

  /** The agent loop's entries, as they happen. */
  append(entry: ConversationEntry): void {
    this.apply(decideAppend(this.state, entry));
  }

  note(content: ConversationEntry['content']): void {
    this.apply(decideAppend(this.state, { role: 'system', content, turn: this.state.turns }));
  }

  /** The Lead's completed-turn prefix, captured once as a fork teammate's seed. */
  forkSeed(): ConversationEntry[] {
    return compactConversation(completedTurnPrefix(this.state.conversation, this.runningTurn));
  }

  carry(conversationMaxBytes?: number): CarriedLeadAgent {
    return { ...this.state, conversation: compactConversationOrDrop(this.state.conversation, conversationMaxBytes) };
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
      usage: this.state.usage ?? NO_MEMBER_USAGE,
      subagents: Object.values(this.state.subagents).map(({ workflowId, closed }) => ({ workflowId, closed })),
      // A query result is a payload too: long old contents are elided to stay within its limit.
      conversation: compactConversationOrDrop(this.state.conversation, QUERIED_CONVERSATION_MAX_BYTES),
    };
  }
}
