/**
 * Per-Team Update slots: a semaphore per Lead workflow id, so this process keeps a bounded number
 * of Updates in flight to one Team and queues the rest locally.
 */
import { Semaphore, withTimeout } from 'async-mutex';
import { DeadlineReached } from './deadlines';

/**
 * The server admits a bounded number of in-flight Updates per workflow (10 by default; this
 * project's server settings raise it to 128) and answers the next with RESOURCE_EXHAUSTED; a
 * burst of retries beyond that collapses throughput (admitted Updates get aborted and retried in a
 * storm). So each process keeps at most this many Updates in flight per Team and queues the rest
 * locally, leaving headroom for other processes.
 */
export const MAX_IN_FLIGHT_UPDATES_PER_TEAM = 8;
const inFlight = new Map<string, Semaphore>();
/**
 * Runs `call` once fewer than MAX_IN_FLIGHT_UPDATES_PER_TEAM Updates to `workflowId` are in flight
 * from this process. With `notAfter` (epoch ms), waiting for a slot ends then with DeadlineReached.
 */
export async function withUpdateSlot<T>(workflowId: string, call: () => Promise<T>, notAfter?: number): Promise<T> {
  const release = await acquireUpdateSlot(workflowId, notAfter);
  try {
    return await call();
  } finally {
    release();
  }
}
/** Updates to `workflowId` this process has in flight now (slots taken). */
export function updateSlotsInUse(workflowId: string): number {
  const semaphore = inFlight.get(workflowId);
  return semaphore ? MAX_IN_FLIGHT_UPDATES_PER_TEAM - semaphore.getValue() : 0;
}
/** Takes a slot for an Update whose lifetime is not one call; the returned function releases it. */
export async function acquireUpdateSlot(workflowId: string, notAfter?: number): Promise<() => void> {
  const semaphore = semaphoreFor(workflowId);
  if (notAfter === undefined) {
    const [, release] = await semaphore.acquire();
    return release;
  }
  // A slot granted after the timeout is released at once by withTimeout.
  const busy = new DeadlineReached(`all ${MAX_IN_FLIGHT_UPDATES_PER_TEAM} in-flight Update slots this process has for the Team stayed taken`);
  const [, release] = await withTimeout(semaphore, Math.max(1, notAfter - Date.now()), busy).acquire();
  return release;
}
function semaphoreFor(workflowId: string): Semaphore {
  let semaphore = inFlight.get(workflowId);
  if (!semaphore) {
    semaphore = new Semaphore(MAX_IN_FLIGHT_UPDATES_PER_TEAM);
    inFlight.set(workflowId, semaphore);
  }
  return semaphore;
}
