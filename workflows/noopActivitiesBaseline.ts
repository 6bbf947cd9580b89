/**
 * Benchmark baseline only: a bare workflow that runs `count` no-op activities one after another,
 * side by side with a Lead agent turn (whose model calls are the same number of activities).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { TeamActivities } from '../activities';

const { benchNoop } = proxyActivities<TeamActivities>({ startToCloseTimeout: '1 minute' });

export async function noopActivitiesBaseline(count: number): Promise<number> {
  for (let i = 0; i < count; i++) await benchNoop();
  return count;
}
