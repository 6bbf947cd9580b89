/** What a turn runner (a model, or the scripted stand-in) receives and returns. */
import type { ConversationEntry } from './definitions';
import type { InboxMessage } from './inbox';
import type { JsonValue } from './json';

export interface TurnInput {
  teamId: string;
  name: string;
  turn: number;
  model: string | null;
  messages: InboxMessage[];
  conversation: ConversationEntry[];
}

export type TurnAction = { type: 'send_message'; to: string; content: JsonValue };

export interface TurnResult {
  reply: JsonValue;
  actions: TurnAction[];
}

export interface TurnRunner {
  runTurn(input: TurnInput, signal: { heartbeat(): void; sleep(ms: number): Promise<void> }): Promise<TurnResult>;
}
