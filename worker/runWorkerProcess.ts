/**
 * The life of a worker process (`npm run worker`, `npm run worker:checkout`): telemetry installed
 * first, then the worker built, announced, run until shut down, and its connections and tracing
 * closed. A failure at any step is one log line naming the process, and exit code 1.
 */
import type { Worker } from '@temporalio/worker';
import { errorMessage } from '../shared/errors';
import { installTelemetry } from './telemetry';
import type { WorkerTracing } from './tracing';

export interface WorkerProcessSpec {
  /** How log lines name the process ("worker", "checkout worker"). */
  label: string;
  create(tracing: WorkerTracing | null): Promise<{ worker: Worker; close: () => Promise<void> }>;
  /** What the process polls, after "<label> " in the announcement line. */
  polling(worker: Worker): string;
}

export function runWorkerProcess(spec: WorkerProcessSpec): void {
  let telemetry: ReturnType<typeof installTelemetry>;
  try {
    telemetry = installTelemetry();
  } catch (error) {
    console.error(`${spec.label} failed:`, errorMessage(error));
    process.exit(1);
  }
  const { logger, tracing, shutdown } = telemetry;
  spec
    .create(tracing)
    .then(async ({ worker, close }) => {
      const { taskQueue, namespace } = worker.options;
      logger.info(`${spec.label} ${spec.polling(worker)}`, { taskQueue, namespace });
      await worker.run();
      await close();
      await shutdown();
    })
    .catch((error: unknown) => {
      logger.error(`${spec.label} failed: ${errorMessage(error)}`);
      process.exit(1);
    });
}
