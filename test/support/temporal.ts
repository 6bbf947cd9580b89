/** Helpers for integration tests on the real dev server started by globalSetup. */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, type Worker } from '@temporalio/worker';
import { createTeamWorker } from '../../worker/createWorker';

let runtimeInstalled = false;
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    // Rejected Updates make the server drop speculative workflow tasks; core logs that at WARN.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  } catch {
    // already installed by another helper in this test file
  }
}

export function address(): string {
  const value = process.env.TEMPORAL_ADDRESS;
  if (!value) throw new Error('TEMPORAL_ADDRESS is not set: run integration tests through jest (globalSetup starts the server)');
  return value;
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export async function connectClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: address() });
  return { client: new Client({ connection }), close: () => connection.close() };
}

export interface RunningWorker {
  worker: Worker;
  taskQueue: string;
  stop: () => Promise<void>;
}

/** An in-process worker on its own task queue, running until stop(). */
export async function startWorker(taskQueue: string = uniqueId('tq')): Promise<RunningWorker> {
  quietRuntime();
  const connection = await NativeConnection.connect({ address: address() });
  const { worker, close } = await createTeamWorker({ connection, address: address(), taskQueue });
  const running = worker.run();
  return {
    worker,
    taskQueue,
    stop: async () => {
      worker.shutdown();
      await running;
      await close();
      await connection.close();
    },
  };
}

/** Number of events in the latest run's history. */
export async function historyLength(client: Client, workflowId: string): Promise<number> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return history.events?.length ?? 0;
}
