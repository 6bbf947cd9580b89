/**
 * Ending a Team by a cancel request, what the Web UI's "Request Cancellation" and `temporal workflow
 * cancel` send: the Lead takes it as a disposal (admission closes, admitted operations settle, every
 * member stops) and ends CANCELLED. The report gives that status as the server records it, and the
 * Team's final view (a query, served by a worker).
 */
import { WorkflowFailedError } from '@temporalio/client';
import * as defs from '../shared/contract';
import type { TeamCalls } from './teamCalls';
import type { TeamView } from '../shared/contract';

export function cancelTeam(calls: TeamCalls, deadlineMs: number): Promise<{ status: string; view: TeamView }> {
  return calls.call('cancel', deadlineMs, async () => {
    const handle = calls.handle();
    await handle.cancel();
    // The close is the answer, whatever it is (CANCELLED after the disposal, or COMPLETED if a disposeTeam got there first).
    await handle.result().catch((error: unknown) => {
      if (!(error instanceof WorkflowFailedError)) throw error;
    });
    const { status } = await handle.describe();
    return { status: status.name, view: await handle.query(defs.getTeamViewQuery) };
  });
}
