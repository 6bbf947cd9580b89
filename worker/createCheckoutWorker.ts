import { NativeConnection, Worker } from '@temporalio/worker';
import { checkBashSandbox, sandboxConfigFromEnv } from '../activities/tools/bashSandbox';
import { assertCheckoutIsNotWorkerCode } from '../activities/tools/checkoutGuard';
import { checkoutRootFromEnv, createWorkToolActivities } from '../activities/tools';
import { connectionOptionsFromEnv } from '../client/connection';
import type { WorkToolActivities } from '../shared/contract';
import { activityTracingInterceptors, type WorkerTracing } from './tracing';
import { FAILURE_CONVERTER_PATH } from './workflowBundle';

export interface CheckoutWorkerOptions {
  connection?: NativeConnection;
  /** The task queue Teams name as `checkoutTaskQueue` (start --checkout-queue). */
  taskQueue: string;
  /** The checkout the work tools act on (never this package: CheckoutIsWorkerCode); default AGENT_TEAMS_CHECKOUT or the current directory. */
  checkoutRoot?: string;
  /** Tracing installed for this process (worker/telemetry.ts): work tool runs become spans of the Team's trace. */
  tracing?: WorkerTracing | null;
}

/**
 * A worker that runs only the work tools (read_file, write_file, edit_file, bash), on a task queue
 * bound to the machine that holds the checkout. Workflows and model calls run elsewhere.
 */
export async function createCheckoutWorker(options: CheckoutWorkerOptions): Promise<{ worker: Worker; close: () => Promise<void> }> {
  const root = options.checkoutRoot ?? checkoutRootFromEnv();
  // Before any connection: a worker whose members could edit its own code must not start at all.
  assertCheckoutIsNotWorkerCode(root);
  const envOptions = connectionOptionsFromEnv();
  // Logs once why bash would answer SandboxUnavailable, or that AGENT_TEAMS_BASH_SANDBOX=none runs it unsandboxed.
  await checkBashSandbox(sandboxConfigFromEnv(), root);
  const ownNative = options.connection ? null : await NativeConnection.connect(envOptions);
  const worker = await Worker.create({
    connection: options.connection ?? ownNative!,
    namespace: envOptions.namespace ?? 'default',
    taskQueue: options.taskQueue,
    activities: createWorkToolActivities({ root }) satisfies WorkToolActivities,
    // A tool's failure may name hostile text (worker/failureConverter.ts).
    dataConverter: { failureConverterPath: FAILURE_CONVERTER_PATH },
    ...(options.tracing ? { interceptors: { activity: activityTracingInterceptors() } } : {}),
  });
  return { worker, close: async () => void (await ownNative?.close()) };
}
