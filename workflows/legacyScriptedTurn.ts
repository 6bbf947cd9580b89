/**
 * The turn as it ran before the agent loop (the scripted turn runner as one activity, then each
 * send relayed by its own activity). Kept only so histories recorded then still replay: new runs
 * take the agent loop (see AGENT_LOOP_PATCH in memberSession.ts).
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { TeamActivities } from '../activities';
import type { ConversationEntry, SendOutcome } from '../shared/definitions';
import type { TurnInput } from '../shared/turn';

const turns = proxyActivities<TeamActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { maximumAttempts: 3 },
});
const relay = proxyActivities<TeamActivities>({ startToCloseTimeout: '1 minute', retry: { maximumInterval: '10 seconds' } });

export async function legacyScriptedTurn(input: TurnInput): Promise<{ reply: ConversationEntry['content']; receipts: SendOutcome[] }> {
  const outcome = await turns.runTeammateTurn(input);
  const receipts: SendOutcome[] = [];
  for (const [index, action] of outcome.actions.entries()) {
    // Deterministic message id: a retried or replayed send is recorded once by its target.
    const messageId = `${workflowInfo().workflowId}/turn-${input.turn}/send-${index}`;
    receipts.push(await relay.sendAsMember({ teamId: input.teamId, from: input.name, to: action.to, content: action.content, messageId }));
  }
  return { reply: outcome.reply, receipts };
}
