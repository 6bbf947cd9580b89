/**
 * A test-only workflow with nothing to do: it holds an id (a teammate's reserved id, so the Lead
 * finds the wrong workflow type there) until it is cancelled. On its own it is also a worker
 * deployed without the project's workflows.
 */
import { condition } from '@temporalio/workflow';

export async function squatter(): Promise<void> {
  await condition(() => false);
}
