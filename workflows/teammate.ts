/**
 * A teammate: a child workflow of the Lead with the reserved id `<teamId>/teammate/<name>`. It
 * owns its inbox (deliveries are signals, recorded once per message id) and runs one turn at a
 * time over whatever is pending. The Lead's interrupt cancels the current turn only; disposal
 * cancels the workflow, which then reports `exited` and ends. Logic lives in TeammateRun.
 */
import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { TeamActivities } from '../activities';
import * as defs from '../shared/definitions';
import type { LiveStatus, TeammateInput, TeammateStateView } from '../shared/definitions';
import { TeammateRun } from './teammateRun';

const turns = proxyActivities<TeamActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { maximumAttempts: 3 },
});
const relay = proxyActivities<TeamActivities>({ startToCloseTimeout: '1 minute', retry: { maximumInterval: '10 seconds' } });

export async function teammate(input: TeammateInput): Promise<TeammateStateView> {
  const mate = new TeammateRun(input);
  const { teamId, name } = input.descriptor;
  const lead = getExternalWorkflowHandle(teamId);
  let turnScope: CancellationScope | undefined;

  setHandler(defs.deliverMessageSignal, (message) => mate.deliver(message));
  setHandler(defs.interruptTurnSignal, () => {
    mate.signalsThisRun += 1;
    if (turnScope && mate.status === 'running') {
      mate.interruptRequested = true;
      turnScope.cancel();
    }
  });
  setHandler(defs.getTeammateStateQuery, () => ({ ...mate.view(), historyLength: workflowInfo().historyLength, continueAsNewSuggested: workflowInfo().continueAsNewSuggested }));

  // Live status is advisory for the Lead (wait edges, send receipts); losing one to a closed Lead is harmless.
  const report = async (status: LiveStatus): Promise<void> => {
    try {
      await lead.signal(defs.reportMemberStatusSignal, { name, status, turn: mate.turns });
    } catch {
      // The Lead has finished: nothing to report to.
    }
  };

  try {
    for (;;) {
      await condition(() => mate.hasPending() || mate.mustRollOver(workflowInfo().continueAsNewSuggested));
      // Roll over at a turn boundary, busy or not: pending messages travel in the carried inbox.
      if (mate.mustRollOver(workflowInfo().continueAsNewSuggested)) break;
      const { turn, messages } = mate.beginTurn();
      await report('running');
      turnScope = new CancellationScope();
      try {
        const result = await turnScope.run(async () => {
          const outcome = await turns.runTeammateTurn({ teamId, name, turn, model: input.model, messages, conversation: mate.conversation });
          const receipts = [];
          for (const [index, action] of outcome.actions.entries()) {
            // Deterministic message id: a retried or replayed send is recorded once by its target.
            const messageId = `${workflowInfo().workflowId}/turn-${turn}/send-${index}`;
            receipts.push(await relay.sendAsMember({ teamId, from: name, to: action.to, content: action.content, messageId }));
          }
          return { reply: outcome.reply, receipts };
        });
        mate.endTurn({ reply: result.reply, receipts: result.receipts });
      } catch (error) {
        if (isCancellation(error) && mate.interruptRequested) {
          mate.endTurn({ interrupted: true });
        } else if (isCancellation(error)) {
          throw error; // the whole teammate is being stopped
        } else {
          mate.endTurn({ failed: error instanceof Error ? error.message : String(error) });
        }
      } finally {
        turnScope = undefined;
      }
      await report('idle');
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(() => report('exited'));
    mate.status = 'exited';
    return mate.view();
  }
  await condition(allHandlersFinished);
  return await continueAsNew<typeof teammate>({ ...input, carried: mate.carry() });
}
