/**
 * A test-only workflow that does not stop when asked: it takes a cancel request and goes on
 * waiting, outside any cancellable scope, until it is terminated. Started with a member's search
 * attributes, it is an orphan the reaper cannot cancel (test/integration/reaper.test.ts).
 */
import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';

export async function stubbornMember(): Promise<void> {
  try {
    await condition(() => false);
  } catch (error) {
    if (!isCancellation(error)) throw error;
  }
  await CancellationScope.nonCancellable(() => condition(() => false));
}
