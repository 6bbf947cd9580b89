/**
 * The benchmark's baseline workflows, measured side by side with the Team in the same run on the
 * same server. Registered only by the benchmark's worker (bench/workflows.ts), never in production.
 */
import { condition, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BenchActivities } from './activities';

export const noopUpdate = defineUpdate<number, [number]>('noop');
export const finishNoopUpdate = defineUpdate<void>('finishNoop');

/** A bare workflow with one no-op Update (with a validator): the baseline for Team Updates. */
export async function noopUpdateBaseline(): Promise<number> {
  let count = 0;
  let finished = false;
  setHandler(noopUpdate, (n) => (count += 1) && n, { validator: (n) => void n });
  setHandler(finishNoopUpdate, () => void (finished = true));
  await condition(() => finished);
  return count;
}

const { benchNoop } = proxyActivities<BenchActivities>({ startToCloseTimeout: '1 minute' });

/**
 * A bare workflow that runs `count` no-op activities one after another: the baseline for a Lead
 * agent turn (whose model calls are the same number of activities).
 */
export async function noopActivitiesBaseline(count: number): Promise<number> {
  for (let i = 0; i < count; i++) await benchNoop();
  return count;
}
