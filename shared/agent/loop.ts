/**
 * One agent turn: call the model on the assembled prompt, dispatch the tools it called by name,
 * feed the results back, until it replies without tool calls (or the step limit). Independent of
 * Temporal: the workflow injects `callModel` (an activity) and `dispatch` (activities or in-workflow
 * Team logic), so this runs deterministically inside workflow code and is unit-testable alone.
 * Entries are appended to the conversation as they happen, through the session's `append` (which
 * applies them as an event), so an interrupted turn keeps what it did.
 * Before each model call `atStepBoundary` lets the session take messages that arrived meanwhile
 * (Steer, shared/agent/steer.ts): the model call right after sees them.
 */
import type { ConversationEntry, SendOutcome } from '../contract';
import type { ChatMessage, ModelResponse, ToolCall } from '../contract/model';
import { fitPrompt } from './conversationSize';
import { assemblePrompt } from './prompt';
import type { DispatchResult } from '../contract/activities';
import type { BudgetExhaustion } from '../contract/budgets';

export type { DispatchResult } from '../contract/activities';

export const DEFAULT_MAX_STEPS_PER_TURN = 40;

export interface AgentTurnInput {
  /** The session's conversation as it is now (read before each model call). */
  conversation(): readonly ConversationEntry[];
  /** Appends one entry to the session's conversation; each is complete when appended and never changed after. */
  append(entry: ConversationEntry): void;
  turn: number;
  teamId: string;
  system: string;
  /** Prefix of deterministic operation ids: `<prefix>/step-<s>/call-<i>`. */
  opIdPrefix: string;
  maxSteps?: number;
  /** Resume a turn that yielded: continue at this step (its operation ids go on from there). Default 0. */
  firstStep?: number;
  /** Checked at each step boundary after the first: true makes the turn stop there and report where to resume. */
  shouldYield?(): boolean;
  /**
   * Called at every step boundary, right before the prompt of the step's model call is assembled
   * (after the yield check): the session appends the messages that arrived during the turn to the
   * conversation here (Steer). Synchronous, so the take and the model call are one activation.
   */
  atStepBoundary?(): void;
  /**
   * Checked before every model call: a budget used up stops the turn there, before the step takes
   * any message in (they stay in the inbox), with a note in the conversation.
   */
  spendCheck?(): BudgetExhaustion | null;
  /**
   * Under a Team budget, after spendCheck passed: asks the Lead for the next model call, which
   * answers from the Team's totals; an exhaustion stops the turn like spendCheck's.
   */
  askToCall?(): Promise<BudgetExhaustion | null>;
  callModel(messages: ChatMessage[]): Promise<ModelResponse>;
  /**
   * Told each model call's response as soon as it is back, before anything else of the step: the
   * session records its usage here. Synchronous, so recording adds no promise step (no command moves).
   */
  onModelResponse?(response: ModelResponse): void;
  dispatch(call: ToolCall, opId: string): Promise<DispatchResult>;
}

export interface AgentTurnResult {
  reply: string | null;
  steps: number;
  receipts: SendOutcome[];
  stepLimitReached: boolean;
  /** Set when the turn stopped at a step boundary because shouldYield said so: resume at this step. */
  yieldedAtStep?: number;
  /** Set when a budget stopped the turn before a model call. */
  budgetExhausted?: BudgetExhaustion;
}

export async function runAgentTurn(input: AgentTurnInput): Promise<AgentTurnResult> {
  const maxSteps = input.maxSteps ?? DEFAULT_MAX_STEPS_PER_TURN;
  const receipts: SendOutcome[] = [];
  const firstStep = input.firstStep ?? 0;
  for (let step = firstStep; step < maxSteps; step++) {
    // Between steps only: the model call and the tools of one step always complete together.
    if (step > firstStep && input.shouldYield?.()) return { reply: null, steps: step, receipts, stepLimitReached: false, yieldedAtStep: step };
    // Awaited only under a Team budget: a turn without one issues exactly the commands it always did.
    const exhausted = input.spendCheck?.() ?? (input.askToCall ? await input.askToCall() : null);
    if (exhausted) {
      input.append({
        role: 'system',
        content: { event: 'budget exhausted', ...exhausted },
        turn: input.turn,
        ...(receipts.length > 0 ? { receipts } : {}),
      });
      return { reply: null, steps: step, receipts, stepLimitReached: false, budgetExhausted: exhausted };
    }
    input.atStepBoundary?.();
    const prompt = fitPrompt(assemblePrompt({ system: input.system, conversation: input.conversation(), teamId: input.teamId }));
    const response = await input.callModel(prompt);
    input.onModelResponse?.(response);
    const calls = response.message.toolCalls;
    input.append({
      role: 'assistant',
      content: response.message.content,
      turn: input.turn,
      ...(calls.length > 0 ? { toolCalls: calls } : receipts.length > 0 ? { receipts } : {}),
    });
    if (calls.length === 0) {
      return { reply: response.message.content, steps: step + 1, receipts, stepLimitReached: false };
    }
    // Sequential on purpose: results land in a deterministic order and each sees the previous one's effect.
    for (const [index, call] of calls.entries()) {
      const result = await input.dispatch(call, `${input.opIdPrefix}/step-${step}/call-${index}`);
      if (result.receipt) receipts.push(result.receipt);
      input.append({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        ok: result.ok,
        content: result.text,
        turn: input.turn,
        ...(result.teamRecord ? { teamId: input.teamId } : {}),
      });
    }
  }
  input.append({
    role: 'system',
    content: { event: 'step limit reached', maxSteps },
    turn: input.turn,
    ...(receipts.length > 0 ? { receipts } : {}),
  });
  return { reply: null, steps: maxSteps, receipts, stepLimitReached: true };
}
