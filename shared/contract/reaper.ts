/**
 * The orphan reaper's wire: the input of its workflow and activity, its report, and the activity
 * interface (shared/reaper/orphans.ts decides, activities/reaper.ts gathers the facts and acts).
 */
import { z } from 'zod';

export const reapOrphansInputSchema = z.strictObject({
  /** The task queue whose running members this pass examines (a Team runs its members on its Lead's queue). */
  taskQueue: z.string().min(1).max(1000),
});
export type ReapOrphansInput = z.infer<typeof reapOrphansInputSchema>;

/** The report lists at most this many ids of each kind (and counts the rest), so it stays a small payload. */
export const MAX_REPORTED_IDS = 100;

export interface ReapReport {
  taskQueue: string;
  /** Teams with at least one running member on the queue (one describe of each Lead). */
  teamsExamined: number;
  /** Running members that still have a live owner (left alone: not described, queried or signalled). */
  membersKept: number;
  /** getTeamView queries made: one per Team whose running Lead was reset after one of its members started. */
  leadQueries: number;
  /** Orphans asked to cancel (their first pass as orphans). */
  cancelled: string[];
  /** Orphans terminated: their cancel was requested before and they still ran. */
  terminated: string[];
  /** Orphans listed as running that had already closed when the reaper reached them (visibility lags). */
  alreadyClosed: number;
  /** Ids left out of `cancelled` and `terminated` past MAX_REPORTED_IDS. */
  idsOmitted: number;
  /** Teams whose examination failed (a describe or a stop refused); logged, and tried again by the next pass. */
  teamsFailed: number;
}

export interface ReaperActivities {
  /** One pass over a task queue: finds the running members whose Lead chain has closed and stops them. */
  reapOrphans(input: ReapOrphansInput): Promise<ReapReport>;
}
