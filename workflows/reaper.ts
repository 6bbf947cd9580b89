/**
 * The orphan reaper's workflow: one pass of the reapOrphans activity over a task queue, started on
 * that queue by the Schedule `agent-teams-reaper/<taskQueue>` (worker/reaper.ts). All the work is
 * in the activity (activities/reaper.ts); this only gives it timeouts and retries and returns its
 * report: one activity per run, so its history is the same few events every pass.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Implements, ReaperWorkflow } from '../shared/contract';
import type { ReapOrphansInput, ReaperActivities, ReapReport } from '../shared/reaper/orphans';

/**
 * A pass heartbeats while it pages and after each Team, so a lost worker is noticed in 30 s; it
 * is retried a few times (each attempt starts over: stopping an orphan twice is harmless), and a
 * pass that keeps failing fails the run, which the Schedule shows; the next interval tries again.
 */
const reaper = proxyActivities<ReaperActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
});

export async function orphanReaper(input: ReapOrphansInput): Promise<ReapReport> {
  return await reaper.reapOrphans(input);
}

/** The contract's ReaperWorkflow (shared/contract/workflows.ts). */
type _Implements = Implements<ReaperWorkflow, typeof orphanReaper>;
