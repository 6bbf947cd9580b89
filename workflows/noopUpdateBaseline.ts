/**
 * A bare workflow with one no-op Update (with a validator), used only by the benchmark as the
 * side-by-side baseline for Team Updates on the same server in the same run.
 */
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const noopUpdate = defineUpdate<number, [number]>('noop');
export const finishNoopUpdate = defineUpdate<void>('finishNoop');

export async function noopUpdateBaseline(): Promise<number> {
  let count = 0;
  let finished = false;
  setHandler(noopUpdate, (n) => (count += 1) && n, { validator: (n) => void n });
  setHandler(finishNoopUpdate, () => void (finished = true));
  await condition(() => finished);
  return count;
}
