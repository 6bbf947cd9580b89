/**
 * One agent turn of any session (the Lead, a teammate, an ordinary subagent): its system prompt
 * (the toolset's policy and who it is), the model call on the models queue, and tool calls
 * dispatched by name: work tools on the checkout's queue in the session's directory, Team and
 * subagent tools as the session supplies them.
 */
import { patched } from '@temporalio/workflow';
import { dispatchByName } from '../../shared/agent/dispatch';
import type { AgentTurnResult, DispatchResult } from '../../shared/agent/loop';
import { runAgentTurn } from '../../shared/agent/loop';
import { identityText } from '../../shared/agent/policy';
import { policyOf, type Toolset } from '../../shared/agent/profiles';
import type { ConversationEntry } from '../../shared/contract';
import type { ModelResponse, ModelUsage, ToolCall } from '../../shared/contract/model';
import { MODEL_STEP, modelCallSummary, toolStep } from '../../shared/text/webUi';
import { models, runWorkToolCall, type CheckoutActivities } from './agentActivities';
import { countModelCall } from './usageMetrics';
import type { BudgetExhaustion } from '../../shared/contract/budgets';
import { STEER_RUNNING_TURNS_PATCH } from '../../shared/contract/patches';

export interface SessionTurn {
  /** The session's conversation as it is now, and how the loop appends to it (applied as an event). */
  conversation: () => readonly ConversationEntry[];
  append: (entry: ConversationEntry) => void;
  turn: number;
  teamId: string;
  name: string;
  role: 'lead' | 'teammate' | 'subagent';
  toolset: Toolset;
  /** null: the provider's default model. */
  model: string | null;
  /** The session's working directory; bash's `cd` moves only this session's. */
  session: { cwd: string };
  checkout: CheckoutActivities;
  /** Prefix of the turn's deterministic operation ids. */
  opIdPrefix: string;
  team(call: ToolCall, opId: string): Promise<DispatchResult>;
  subagent(call: ToolCall, opId: string): Promise<DispatchResult>;
  firstStep?: number;
  shouldYield?: () => boolean;
  /** The session's inbox as Steer sees it: whether anything is pending, and taking it into the running turn's conversation. */
  steer: { hasPending(): boolean; take(): void };
  /** Checked before each model call (the session's budget): a used-up budget ends the turn there. */
  spendCheck?: () => BudgetExhaustion | null;
  /** Under a Team budget: asks the Lead for each model call (shared/agent/loop.ts `askToCall`). */
  askToCall?: () => Promise<BudgetExhaustion | null>;
  /** Told each model call's usage (undefined: the provider reported none), synchronously as its result is taken. */
  onModelUsage?: (usage: ModelUsage | undefined) => void;
  /** Told the step the turn is at (`calling model`, `bash: npm test`), for the workflow's current details. */
  onStep?: (step: string) => void;
}

/** Not async on purpose: awaiting it is awaiting the turn itself, with no extra promise step to reorder commands. */
export function runSessionTurn(t: SessionTurn): Promise<AgentTurnResult> {
  let step = t.firstStep ?? 0; // model calls are one per step, in order
  return runAgentTurn({
    conversation: t.conversation,
    append: t.append,
    turn: t.turn,
    teamId: t.teamId,
    ...(t.firstStep !== undefined ? { firstStep: t.firstStep } : {}),
    ...(t.shouldYield ? { shouldYield: t.shouldYield } : {}),
    // patched() only when there is something to take: a turn with no mail meanwhile issues the commands it always did.
    atStepBoundary: () => {
      if (t.steer.hasPending() && patched(STEER_RUNNING_TURNS_PATCH)) t.steer.take();
    },
    system: `${policyOf(t.toolset)}\n\n${identityText({ teamId: t.teamId, name: t.name, role: t.role, cwd: t.session.cwd })}`,
    opIdPrefix: t.opIdPrefix,
    ...(t.spendCheck ? { spendCheck: t.spendCheck } : {}),
    ...(t.askToCall ? { askToCall: t.askToCall } : {}),
    callModel: (messages) => {
      t.onStep?.(MODEL_STEP);
      return models.callModel.executeWithOptions({ summary: modelCallSummary(t.name, t.turn, step++) }, [{ model: t.model, toolset: t.toolset, messages }]);
    },
    onModelResponse: (response: ModelResponse) => {
      countModelCall(t.role, t.model, response.usage);
      t.onModelUsage?.(response.usage);
    },
    dispatch: (call, opId) => {
      t.onStep?.(toolStep(call));
      return dispatchByName(t.toolset, call, opId, {
        work: (c) => runWorkToolCall(t.checkout, c, t.session, t.name),
        team: (c, id) => t.team(c, id),
        subagent: (c, id) => t.subagent(c, id),
      });
    },
  });
}
