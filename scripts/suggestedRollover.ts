/**
 * A Lead whose first continue-as-new suggestion comes in a workflow task of rejected Updates only
 * (workflows/common/rolloverSuggestion.ts), on a server whose history-size limit for the
 * suggestion is SUGGEST_AT_BYTES. Shared by the integration test, which checks each step, and
 * `npm run record-histories`, which keeps the first run's history for the replay test.
 */
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TeamClient } from '../client/teamClient';

/** limit.historySize.suggestContinueAsNew for the scenario's server: a few large tasks cross it. */
export const SUGGEST_AT_BYTES = 256 * 1024;

/** The scenario's server settings, over the project's. */
export const SUGGEST_EARLY_DYNAMIC_CONFIG = { 'limit.historySize.suggestContinueAsNew': SUGGEST_AT_BYTES };

export interface SuggestedRollover {
  /** The run the scenario began in, whose history it is about. */
  runId: string;
  /** Tasks created until the history crossed the limit. */
  created: number;
  /** The stale claim's rejection: the only job of the first task that suggests continue-as-new. */
  rejection: ApplicationFailure;
  /** The Lead's run and its tasks right after the rejection. */
  runIdAfterRejection: string;
  tasksAfterRejection: number;
  /** The run it continued as after the next accepted Update, and its tasks. */
  continuedRunId: string;
  tasksContinued: number;
}

export async function runSuggestedRollover(client: Client, team: TeamClient): Promise<SuggestedRollover> {
  const handle = client.workflow.getHandle(team.teamId);
  const { runId } = await handle.describe();
  const description = 'd'.repeat(16_000);
  // Each created task adds its request and its result to history; stop at the completion that crosses the limit.
  let created = 0;
  while (((await handle.describe()).historySize ?? 0) < SUGGEST_AT_BYTES) {
    if (created === 40) throw new Error(`40 tasks of 16,000 characters did not bring the history to ${SUGGEST_AT_BYTES} bytes`);
    await team.createTask({ subject: `filler ${created + 1}`, description });
    created += 1;
  }
  const rejection = await team.claimTask({ taskId: 1, expectedRevision: 999 }).then(
    () => {
      throw new Error('a claim at revision 999 was accepted');
    },
    (error: unknown) => {
      if (error instanceof ApplicationFailure) return error;
      throw error;
    },
  );
  const tasksAfterRejection = (await team.view()).tasks.length;
  const runIdAfterRejection = (await handle.describe()).runId;
  // An accepted Update leaves a trace: its task sees the suggestion, and the run continues as new.
  await team.createTask({ subject: 'after the suggestion' });
  for (let i = 0; i < 600; i++) {
    const now = await handle.describe();
    if (now.runId !== runId) {
      const tasksContinued = (await team.view()).tasks.length;
      return { runId, created, rejection, runIdAfterRejection, tasksAfterRejection, continuedRunId: now.runId, tasksContinued };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the Lead did not continue as new within 60 s of an Update accepted with the suggestion');
}
