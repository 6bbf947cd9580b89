/**
 * A teammate's in-run logic: its inbox (each message id recorded once), its conversation, and the
 * bookkeeping of turns and interrupts. No Temporal calls here; teammate.ts wires it.
 */
import type { CarriedTeammateState, ConversationEntry, LiveStatus, SendOutcome, TeammateInput, TeammateStateView } from '../shared/definitions';
import type { InboxMessage, InboxState } from '../shared/inbox';
import { emptyInbox, receive, takePending } from '../shared/inbox';
import { compactConversation } from '../shared/agent/budget';
import { jsonProblem } from '../shared/json';
import type { TeamEdge } from '../shared/teamEdges';

/** Signals handled per run before continuing as new; the server allows 10,000 per run. */
export const MAX_SIGNALS_PER_RUN = 5_000;
/** Turns per run before continuing as new, unless the input says otherwise. */
export const DEFAULT_MAX_TURNS_PER_RUN = 500;

export class TeammateRun {
  inbox: InboxState;
  conversation: ConversationEntry[];
  turns: number;
  interruptedTurns: number;
  readonly continuedRuns: number;
  /** This member's working directory; starts as the Lead's, a `cd` in bash changes only this member's. */
  cwd: string;
  status: LiveStatus = 'idle';
  signalsThisRun = 0;
  turnsThisRun = 0;
  /** Set by interrupt(); the workflow cancels the running turn's scope. */
  interruptRequested = false;
  rejectedDeliveries: { messageId: string; reason: string }[] = [];
  /** The wait_agent in progress (its watch id) and the edge the Lead notified for it. */
  currentWaitId: string | null = null;
  notifiedEdge: TeamEdge | null = null;
  /** Teammates' inbox messages are Team records; an ordinary subagent's are not. */
  markTeamRecords = true;

  constructor(readonly input: TeammateInput) {
    const carried = input.carried;
    this.conversation = carried?.conversation ?? [...input.seed];
    this.turns = carried?.turns ?? 0;
    this.interruptedTurns = carried?.interruptedTurns ?? 0;
    this.continuedRuns = carried?.continuedRuns ?? 0;
    this.cwd = carried?.cwd ?? input.cwd ?? '.';
    // The initial message is the first item of a fresh teammate's inbox.
    this.inbox = carried?.inbox ?? receive(emptyInbox(), input.initialMessage).inbox;
  }

  get name(): string {
    return this.input.descriptor.name;
  }

  /** Records a delivered message once; malformed deliveries are refused without touching the inbox. */
  deliver(message: InboxMessage): void {
    this.signalsThisRun += 1;
    const problem = deliveryProblem(message);
    if (problem) {
      this.rejectedDeliveries = [...this.rejectedDeliveries.slice(-31), { messageId: String((message as Partial<InboxMessage>)?.messageId), reason: problem }];
      return;
    }
    this.inbox = receive(this.inbox, message).inbox;
  }

  /** The Lead's edgeNotification: kept only for the wait in progress (a late one is dropped). */
  notify(waitId: string, edge: TeamEdge): void {
    this.signalsThisRun += 1;
    if (waitId === this.currentWaitId) this.notifiedEdge = edge;
  }

  hasPending(): boolean {
    return this.inbox.pending.length > 0;
  }

  mustRollOver(continueAsNewSuggested: boolean): boolean {
    const maxTurns = this.input.maxTurnsPerRun ?? DEFAULT_MAX_TURNS_PER_RUN;
    return continueAsNewSuggested || this.signalsThisRun >= MAX_SIGNALS_PER_RUN || this.turnsThisRun >= maxTurns;
  }

  /** Moves every pending message into the conversation as user entries of the next turn. */
  beginTurn(): { turn: number; messages: InboxMessage[] } {
    const { inbox, messages } = takePending(this.inbox);
    this.inbox = inbox;
    this.turns += 1;
    this.turnsThisRun += 1;
    this.interruptRequested = false;
    this.status = 'running';
    // Messages from the Team are Team records: a fork of a root drops them with the ancestor's Team.
    for (const m of messages) this.conversation.push({ role: 'user', messageId: m.messageId, from: m.from, content: m.content, turn: this.turns, ...(this.markTeamRecords ? { teamId: this.input.descriptor.teamId } : {}) });
    return { turn: this.turns, messages };
  }

  /**
   * Ends the current turn. The agent loop has already appended its assistant and tool entries
   * (`completed`); the legacy scripted runner's reply is appended here.
   */
  endTurn(outcome: { reply: ConversationEntry['content']; receipts: SendOutcome[] } | { completed: true } | { interrupted: true } | { failed: string }): void {
    if ('completed' in outcome) {
      // entries already recorded by the agent loop
    } else if ('interrupted' in outcome) {
      this.interruptedTurns += 1;
      this.conversation.push({ role: 'system', content: { event: 'turn interrupted by the Lead' }, turn: this.turns });
    } else if ('failed' in outcome) {
      this.conversation.push({ role: 'system', content: { event: 'turn failed', error: outcome.failed }, turn: this.turns });
    } else {
      this.conversation.push({ role: 'assistant', content: outcome.reply, receipts: outcome.receipts, turn: this.turns });
    }
    this.interruptRequested = false;
    this.status = 'idle';
  }

  carry(): CarriedTeammateState {
    return { inbox: this.inbox, conversation: compactConversation(this.conversation), turns: this.turns, interruptedTurns: this.interruptedTurns, continuedRuns: this.continuedRuns + 1, cwd: this.cwd };
  }

  view(): TeammateStateView {
    return {
      descriptor: this.input.descriptor,
      status: this.status,
      turns: this.turns,
      interruptedTurns: this.interruptedTurns,
      pending: this.inbox.pending,
      received: this.inbox.received,
      consumed: this.inbox.consumed,
      seenMessageIds: this.inbox.seen,
      // A query result is a payload too: long old contents are elided to stay within its limit.
      conversation: compactConversation(this.conversation),
      continuedRuns: this.continuedRuns,
      cwd: this.cwd,
    };
  }
}

/** Structural check of a delivery envelope; the content is inspected, never rebuilt. */
export function deliveryProblem(message: unknown): string | null {
  if (typeof message !== 'object' || message === null) return 'a delivery must be an object';
  const m = message as Record<string, unknown>;
  if (typeof m.messageId !== 'string' || m.messageId.length === 0 || m.messageId.length > 200) return 'messageId must be a non-empty string';
  if (typeof m.from !== 'string' || m.from.length === 0) return 'from must name the sender';
  if (typeof m.sentAt !== 'string') return 'sentAt must be a timestamp';
  const content: unknown = Object.getOwnPropertyDescriptor(m, 'content')?.value;
  return jsonProblem(content);
}
