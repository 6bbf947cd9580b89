/**
 * The life of a worker process (`npm run worker`, `npm run worker:checkout`): telemetry installed
 * first, then the worker built, announced, run until shut down, and its connections and tracing
 * closed. A failure at any step is one log line naming the process, and exit code 1. Both lines
 * go through redactUrlCredentials: a configured URL (MODEL_BASE_URL, TEMPORAL_ADDRESS) quoted in
 * them keeps its host, not its user:password@; and, as every log line, through the inert sink (worker/telemetry.ts).
 */
import type { Worker } from '@temporalio/worker';
import { errorMessage } from '../shared/util/errors';
import { logText } from '../shared/text/inertText';
import { redactUrlCredentials } from '../shared/text/redact';
import { installTelemetry } from './telemetry';
import type { WorkerTracing } from './tracing';

export interface WorkerProcessSpec {
  /** How log lines name the process ("worker", "checkout worker"). */
  label: string;
  /** `model`, when given, is named in the start-up line. */
  create(tracing: WorkerTracing | null): Promise<{ worker: Worker; close: () => Promise<void>; model?: string }>;
  /** What the process polls, after "<label> " in the announcement line. */
  polling(worker: Worker): string;
}

/** The start-up line: "<label> <polling>[; model: <model>]". */
export function startupLine(label: string, polling: string, model?: string): string {
  return redactUrlCredentials(`${label} ${polling}${model ? `; model: ${model}` : ''}`);
}

/** The line a failed start (or run) logs before exit code 1. */
export function failureLine(label: string, error: unknown): string {
  return redactUrlCredentials(`${label} failed: ${errorMessage(error)}`);
}

export function runWorkerProcess(spec: WorkerProcessSpec): void {
  let telemetry: ReturnType<typeof installTelemetry>;
  try {
    telemetry = installTelemetry();
  } catch (error) {
    // No logger yet (the settings were refused): the line is as inert as the logger's (a setting is quoted in it).
    console.error(logText(failureLine(spec.label, error)));
    process.exit(1);
  }
  const { logger, tracing, shutdown } = telemetry;
  spec
    .create(tracing)
    .then(async ({ worker, close, model }) => {
      const { taskQueue, namespace } = worker.options;
      logger.info(startupLine(spec.label, spec.polling(worker), model), { taskQueue, namespace });
      await worker.run();
      await close();
      await shutdown();
    })
    .catch((error: unknown) => {
      logger.error(failureLine(spec.label, error));
      process.exit(1);
    });
}
