/** Helpers for integration tests on the real dev server started by globalSetup. */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { giveToBash } from './bashUser';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, type Worker } from '@temporalio/worker';
import type { ModelProvider } from '../../shared/contract/model';
import { createTeamWorker, type TeamWorkerOptions } from '../../worker/createWorker';

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

/**
 * A fresh directory named `prefix…` in the integration run's own directory when there is one (AGENT_TEAMS_TEST_DIR,
 * made by globalSetup.ts), which globalTeardown.ts deletes with the dev server's database; in the temp dir otherwise.
 */
export function scratchDir(prefix: string): string {
  return fs.mkdtempSync(path.join(process.env.AGENT_TEAMS_TEST_DIR ?? os.tmpdir(), prefix));
}

/**
 * A fresh directory standing in for the shared checkout, so work tools never touch the repository; bash's to write (bashUser.ts).
 * A scratch directory: a checkout can hold a test's large files, and none outlives the run.
 */
export function tempCheckout(): string {
  return giveToBash(scratchDir('agent-teams-checkout-'), process.env.AGENT_TEAMS_TEST_DIR);
}

/** An in-process worker on its own task queue, running until stop(). Work tools act on `checkoutRoot` (default: a temp dir). */
export async function startWorker(
  taskQueue: string = uniqueId('tq'),
  options: {
    checkoutRoot?: string;
    modelProvider?: ModelProvider;
    /** Activities that replace or join the project's own (a test makes one activity's body fail; the server retries it for real). */
    extraActivities?: TeamWorkerOptions['extraActivities'];
    /** The orphan reaper's Schedule on this queue (default: off; a test that turns it on deletes the Schedule after). */
    reaper?: TeamWorkerOptions['reaper'];
  } = {},
): Promise<RunningWorker & { checkoutRoot: string }> {
  quietRuntime();
  const connection = await NativeConnection.connect({ address: address() });
  const checkoutRoot = options.checkoutRoot ?? tempCheckout();
  const { worker, close } = await createTeamWorker({
    connection,
    address: address(),
    taskQueue,
    checkoutRoot,
    ...(options.modelProvider ? { modelProvider: options.modelProvider } : {}),
    ...(options.extraActivities ? { extraActivities: options.extraActivities } : {}),
    ...(options.reaper ? { reaper: options.reaper } : {}),
  });
  const running = worker.run();
  return {
    worker,
    taskQueue,
    checkoutRoot,
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

/** The workflow task's own three events: a rejected Update's speculative task writes them when the server has to keep it. */
const WORKFLOW_TASK_ATTRIBUTES = new Set([
  'workflowTaskScheduledEventAttributes',
  'workflowTaskStartedEventAttributes',
  'workflowTaskCompletedEventAttributes',
]);

/**
 * The events after the first `fromLength` that change what the workflow holds (everything but workflow-task bookkeeping),
 * each named by its attributes field. A rejected Update normally leaves no event, but the server persists its speculative
 * workflow task when it cannot drop it (seen on the two-history-node cluster), so "writes nothing" is asserted on this list.
 */
export async function durableEventsSince(client: Client, workflowId: string, fromLength: number): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .slice(fromLength)
    .map(eventKind)
    .filter((kind) => !WORKFLOW_TASK_ATTRIBUTES.has(kind));
}

/** An event's kind, named by its attributes field (`timerFiredEventAttributes`, …). */
export function eventKind(event: object): string {
  return Object.keys(event).find((key) => key.endsWith('EventAttributes') && (event as Record<string, unknown>)[key] != null) ?? 'unknown';
}

/**
 * A Team worker (fresh checkout) and a client on a dev server the test started itself, rather than
 * the one globalSetup starts. `close` stops the worker and both connections, not the server.
 */
export async function workerAndClientOn(serverAddress: string, taskQueue: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const workerConnection = await NativeConnection.connect({ address: serverAddress });
  const { worker, close } = await createTeamWorker({ connection: workerConnection, address: serverAddress, taskQueue, checkoutRoot: tempCheckout() });
  const running = worker.run();
  const connection = await Connection.connect({ address: serverAddress });
  return {
    client: new Client({ connection }),
    close: async () => {
      worker.shutdown();
      await running;
      await close();
      await workerConnection.close();
      await connection.close();
    },
  };
}
