/**
 * The session loop of a continuable child (a teammate, or an ordinary subagent): wait for inbox
 * items, run one agent turn over everything pending, repeat; roll over at a turn boundary. The
 * Lead's interrupt cancels the current turn only; cancelling the workflow (disposal, close_agent)
 * ends it. Logic lives in TeammateRun (inbox, conversation) and shared/agent (prompt, loop, tools).
 */
import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { dispatchByName, runTeamToolCall, unknownToolResult } from '../shared/agent/dispatch';
import { waitAgentTool } from '../shared/agent/teamTools';
import { runAgentTurn } from '../shared/agent/loop';
import { identityText } from '../shared/agent/policy';
import { policyOf, type Toolset } from '../shared/agent/profiles';
import * as defs from '../shared/definitions';
import type { LiveStatus, TeammateInput, TeammateStateView } from '../shared/definitions';
import { asToolResult, memberTeamTools, models, runWorkToolCall, workTools } from './agentActivities';
import { waitInMemberWorkflow } from './memberWait';
import { legacyScriptedTurn } from './legacyScriptedTurn';
import { TeammateRun } from './teammateRun';

/** Histories recorded before the agent loop existed replay through the legacy scripted turn. */
export const AGENT_LOOP_PATCH = 'agent-loop-v1';

export interface SessionHooks {
  role: 'teammate' | 'subagent';
  toolset: Toolset;
  /** Live status for whoever tracks this session (advisory; failures are swallowed by the hook). */
  report(status: LiveStatus, turn: number, consumed: number): Promise<void>;
  /** Called after each completed turn with the model's final reply. */
  onAnswer?(turn: number, reply: string | null): Promise<void>;
}

export async function runSession(input: TeammateInput, hooks: SessionHooks): Promise<TeammateStateView> {
  const mate = new TeammateRun(input);
  mate.markTeamRecords = hooks.role === 'teammate';
  const { teamId, name } = input.descriptor;
  const checkout = workTools(input.checkoutTaskQueue ?? workflowInfo().taskQueue);
  let turnScope: CancellationScope | undefined;

  setHandler(defs.deliverMessageSignal, (message) => mate.deliver(message));
  setHandler(defs.interruptTurnSignal, () => {
    mate.signalsThisRun += 1;
    if (turnScope && mate.status === 'running') {
      mate.interruptRequested = true;
      turnScope.cancel();
    }
  });
  setHandler(defs.edgeNotificationSignal, ({ waitId, edge }) => mate.notify(waitId, edge));
  setHandler(defs.getTeammateStateQuery, () => ({ ...mate.view(), historyLength: workflowInfo().historyLength, continueAsNewSuggested: workflowInfo().continueAsNewSuggested }));

  const agentTurn = async (turn: number): Promise<void> => {
    await runAgentTurn({
      conversation: mate.conversation,
      turn,
      teamId,
      system: `${policyOf(hooks.toolset)}\n\n${identityText({ teamId, name, role: hooks.role, cwd: mate.cwd })}`,
      opIdPrefix: `${workflowInfo().workflowId}/turn-${turn}`,
      callModel: (messages) => models.callModel({ model: input.model, toolset: hooks.toolset, messages }),
      dispatch: (call, opId) =>
        dispatchByName(hooks.toolset, call, opId, {
          work: (c) => runWorkToolCall(checkout, c, mate),
          // Attributed by this workflow's identity; the opId doubles as the Update id (and message id).
          team: (c, id) =>
            c.name === waitAgentTool.name
              ? runTeamToolCall(c, waitInMemberWorkflow(mate, teamId, name, id))
              : asToolResult(() => memberTeamTools.runTeamTool({ teamId, caller: name, call: c, opId: id }), c),
          subagent: (c) => Promise.resolve(unknownToolResult(hooks.toolset, c.name)),
        }),
    });
  };

  try {
    for (;;) {
      await condition(() => mate.hasPending() || mate.mustRollOver(workflowInfo().continueAsNewSuggested));
      // Roll over at a turn boundary, busy or not: pending messages travel in the carried inbox.
      if (mate.mustRollOver(workflowInfo().continueAsNewSuggested)) break;
      const { turn, messages } = mate.beginTurn();
      await hooks.report('running', turn, mate.inbox.consumed);
      turnScope = new CancellationScope();
      let reply: string | null = null;
      try {
        if (patched(AGENT_LOOP_PATCH)) {
          await turnScope.run(() => agentTurn(turn));
          const last = mate.conversation[mate.conversation.length - 1];
          reply = last?.role === 'assistant' && typeof last.content === 'string' ? last.content : null;
          mate.endTurn({ completed: true });
        } else {
          mate.endTurn(await turnScope.run(() => legacyScriptedTurn({ teamId, name, turn, model: input.model, messages, conversation: mate.conversation })));
        }
      } catch (error) {
        if (isCancellation(error) && mate.interruptRequested) {
          mate.endTurn({ interrupted: true });
        } else if (isCancellation(error)) {
          throw error; // the whole session is being stopped
        } else {
          mate.endTurn({ failed: error instanceof Error ? error.message : String(error) });
        }
      } finally {
        turnScope = undefined;
      }
      if (hooks.onAnswer) await hooks.onAnswer(turn, reply);
      await hooks.report('idle', turn, mate.inbox.consumed);
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(() => hooks.report('exited', mate.turns, mate.inbox.consumed));
    mate.status = 'exited';
    return mate.view();
  }
  await condition(allHandlersFinished);
  return await continueAsNew<(input: TeammateInput) => Promise<TeammateStateView>>({ ...input, carried: mate.carry() });
}
