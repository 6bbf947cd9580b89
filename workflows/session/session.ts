/**
 * The session loop of a continuable child (a teammate, or an ordinary subagent): wait for inbox
 * items, run one agent turn over everything pending, repeat; roll over at a turn boundary. A
 * running turn takes messages that arrive meanwhile at its step boundaries (Steer). The
 * Lead's interrupt cancels the current turn only; cancelling the workflow (disposal, close_agent)
 * ends it. The state and its rules live in shared/session (applied through SessionRun, sessionRun.ts) and
 * shared/agent (prompt, loop, tools); this file only wires handlers and runs activities.
 */
import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  deprecatePatch,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { runTeamToolCall, unknownToolResult } from '../../shared/agent/dispatch';
import { waitAgentTool } from '../../shared/agent/teamTools';
import type { Toolset } from '../../shared/agent/profiles';
import * as defs from '../../shared/contract';
import type { BudgetExhaustion, LiveStatus, TeammateStateView, UsageTotals } from '../../shared/contract';
import type { TeammateRunInput } from '../../shared/session/carried';
import { asToolResult, leadAsks, memberTeamTools, workTools } from '../common/agentActivities';
import { runSessionTurn } from '../common/agentTurn';
import { waitInMemberWorkflow } from './wait';
import { SessionRun, nextSessionInput } from './sessionRun';
import {
  decideEdgeNotification,
  decideExit,
  decideInterrupt,
  decideModelCallAnswer,
  decideSetBudget,
  hasAnswerForNextCall,
  answerForNextCall,
  hasPending,
  hasUnreportedSettlements,
  hasUnreportedStop,
  mustRollOver,
  stopBeforeTurn,
  type SessionRole,
  type SessionSignalDecision,
} from '../../shared/session';
import { lastReply } from '../../shared/lead/agentDecide';
import { MAX_STATUS_TEXT_LENGTH } from '../../shared/contract/limits';
import { errorMessage } from '../../shared/util/errors';
import { turnFailureText } from '../../shared/text/redact';
import { guardedSignal, ignoreUnknownSignals, untrusted, type SignalGuard, type SignalOutcome } from '../common/handlerGuards';
import type { ModelCallRequest } from '../../shared/contract/signals';
import { SESSION_SIGNALS } from '../../shared/contract/signalRegistry';
import { modelCallRequestSummary, toolCallSummary } from '../../shared/text/webUi';
import { MemberDetails } from '../common/currentDetails';
import { keepSearchAttribute } from '../common/searchAttributes';
import { AGENT_TEAM_PHASE, AGENT_TEAM_STATUS } from '../../shared/contract/searchAttributes';
import { continueAsNewSuggested, useTracedSuggestion } from '../common/rolloverSuggestion';
import { AGENT_LOOP_PATCH, MODEL_CALL_REQUEST_ACTIVITY_PATCH } from '../../shared/contract/patches';

export interface SessionHooks {
  role: SessionRole;
  toolset: Toolset;
  /** Live status for whoever tracks this session (advisory; failures are swallowed by the hook). */
  report(status: LiveStatus, turn: number, consumed: number, settled: number, usage: UsageTotals, exhausted?: BudgetExhaustion): Promise<void>;
  /** Called after each completed turn with the model's final reply. */
  onAnswer?(turn: number, reply: string | null, usage: UsageTotals): Promise<void>;
}

export async function runSession(input: TeammateRunInput, hooks: SessionHooks): Promise<TeammateStateView> {
  useTracedSuggestion();
  const mate = new SessionRun(input, hooks.role);
  const { teamId, name } = input.descriptor;
  const checkout = workTools(input.checkoutTaskQueue ?? workflowInfo().taskQueue);
  const lead = getExternalWorkflowHandle(teamId);
  let turnScope: CancellationScope | undefined;
  const details = new MemberDetails(mate.state.turns);
  // Running means started by the Lead with its initial message: the phase the Lead records as active.
  keepSearchAttribute(AGENT_TEAM_PHASE, 'active');

  // Signals are untrusted: parsed, and ignored (counted in getTeammateState) when malformed.
  const guard: SignalGuard = { ignore: (reason) => mate.ignore(reason), onSignal: () => mate.countSignal() };
  const applySignal = (decision: SessionSignalDecision): SignalOutcome => {
    if (!decision.ok) return decision.ignored;
    mate.apply(decision.events);
    return 'applied';
  };
  // deliver() validates the envelope itself, without rebuilding the content (an own __proto__ key survives).
  setHandler(untrusted(defs.deliverMessageSignal), (message?: unknown) => {
    mate.countSignal();
    try {
      mate.deliver(message);
    } catch {
      mate.ignore('failed');
    }
  });
  guardedSignal(guard, SESSION_SIGNALS.interruptTurn, () => {
    const outcome = applySignal(decideInterrupt(mate.state, turnScope !== undefined));
    if (outcome === 'applied') turnScope?.cancel();
    return outcome;
  });
  guardedSignal(guard, SESSION_SIGNALS.edgeNotification, ({ waitId, edge }) => applySignal(decideEdgeNotification(mate.state, waitId, edge)));
  guardedSignal(guard, SESSION_SIGNALS.budgetChanged, (budget) => applySignal(decideSetBudget(mate.state, budget)));
  // Only a member that asks (its Team has a Team budget) takes answers: anyone else's is ignored.
  guardedSignal(guard, SESSION_SIGNALS.modelCallAnswer, (answer) => applySignal(decideModelCallAnswer(mate.state, answer, input.teamBudget === true)));
  ignoreUnknownSignals(guard);
  setHandler(defs.getTeammateStateQuery, () => ({
    ...mate.view(),
    historyLength: workflowInfo().historyLength,
    continueAsNewSuggested: workflowInfo().continueAsNewSuggested,
  }));

  const report = async (status: LiveStatus, turn: number): Promise<void> => {
    const stop = mate.takeReport();
    details.status(status, turn);
    keepSearchAttribute(AGENT_TEAM_STATUS, status);
    // Only a cancellation (disposal, close_agent, a conflict's drain) ends a session: the Lead stopped it.
    if (status === 'exited') keepSearchAttribute(AGENT_TEAM_PHASE, 'stopped');
    await hooks.report(status, turn, mate.state.inbox.consumed, mate.state.settled, mate.state.spend.usage.total, stop);
  };

  const agentTurn = async (turn: number): Promise<void> => {
    await runSessionTurn({
      conversation: () => mate.state.conversation,
      append: (entry) => mate.append(entry),
      turn,
      teamId,
      name,
      role: hooks.role,
      toolset: hooks.toolset,
      model: input.model,
      session: mate.session,
      checkout,
      opIdPrefix: `${workflowInfo().workflowId}/turn-${turn}`,
      // Attributed by this workflow's identity; the opId doubles as the Update id (and message id).
      team: (c, id) =>
        c.name === waitAgentTool.name
          ? runTeamToolCall(c, waitInMemberWorkflow(mate, teamId, name, id))
          : asToolResult(
              () => memberTeamTools.runTeamTool.executeWithOptions({ summary: toolCallSummary(name, c) }, [{ teamId, caller: name, call: c, opId: id }]),
              c,
            ),
      subagent: (c) => Promise.resolve(unknownToolResult(hooks.toolset, c.name)),
      steer: { hasPending: () => hasPending(mate.state), take: () => mate.takeAtStepBoundary() },
      onStep: (step) => details.step(step),
      onModelUsage: (usage) => mate.recordModelCall(usage),
      spendCheck: () => mate.checkInTurn(),
      ...(input.teamBudget ? { askToCall } : {}),
    });
  };

  /** Under a Team budget: whether the Lead lets the next model call go (asked once; the answer stays for that call). */
  const mayCall = async (): Promise<boolean> => {
    if (!hasAnswerForNextCall(mate.state)) {
      const { total } = mate.state.spend.usage;
      const request: ModelCallRequest = { member: workflowInfo().workflowId, calls: total.calls, usage: total };
      if (patched(MODEL_CALL_REQUEST_ACTIVITY_PATCH)) {
        const summary = modelCallRequestSummary(name, total.calls + 1);
        await leadAsks.requestModelCall.executeWithOptions({ summary }, [{ teamId, request }]);
      } else await lead.signal(defs.modelCallRequestSignal, request);
      await condition(() => hasAnswerForNextCall(mate.state));
    }
    return answerForNextCall(mate.state)?.exhaustion === null;
  };
  /** Under a Team budget, before each model call: the Lead answers from the Team's totals, with this member's own. */
  const askToCall = async (): Promise<BudgetExhaustion | null> => {
    await mayCall();
    return mate.takeAnswer();
  };

  try {
    for (;;) {
      // A member its budget stopped leaves its mail waiting (it goes on when the budget allows).
      const mayTurn = (): boolean => hasPending(mate.state) && stopBeforeTurn(mate.state) === null;
      await condition(
        () => mayTurn() || hasUnreportedSettlements(mate.state) || hasUnreportedStop(mate.state) || mustRollOver(mate.state, continueAsNewSuggested()),
      );
      // Roll over at a turn boundary, busy or not: pending messages travel in the carried inbox.
      if (mustRollOver(mate.state, continueAsNewSuggested())) break;
      if (!mayTurn()) {
        // Relayed messages were dropped (duplicates, malformed): tell the Lead, which counts them as settled.
        await report('idle', mate.state.turns);
        continue;
      }
      // Under a Team budget the Lead answers for the turn's first call before it begins: refused, its mail waits.
      if (input.teamBudget && !(await mayCall())) continue;
      const { turn } = mate.beginTurn();
      await report('running', turn);
      turnScope = new CancellationScope();
      let reply: string | null = null;
      try {
        deprecatePatch(AGENT_LOOP_PATCH);
        await turnScope.run(() => agentTurn(turn));
        reply = lastReply(mate.state.conversation);
        mate.endTurn({ completed: true });
      } catch (error) {
        if (isCancellation(error) && mate.state.interruptRequested) {
          mate.endTurn({ interrupted: true });
        } else if (isCancellation(error)) {
          throw error; // the whole session is being stopped
        } else {
          // URL credentials (a MODEL_BASE_URL with user:password@) never reach the note.
          mate.endTurn({ failed: turnFailureText(errorMessage(error), MAX_STATUS_TEXT_LENGTH) });
        }
      } finally {
        turnScope = undefined;
      }
      if (hooks.onAnswer) await hooks.onAnswer(turn, reply, mate.state.spend.usage.total);
      // Idle even with mail that arrived during the turn: that mail is not settled yet, so the Lead still counts the member busy.
      await report('idle', turn);
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(() => report('exited', mate.state.turns));
    mate.apply(decideExit(mate.state));
    return mate.view();
  }
  await condition(allHandlersFinished);
  return await continueAsNew<(input: TeammateRunInput) => Promise<TeammateStateView>>(nextSessionInput(input, mate));
}
