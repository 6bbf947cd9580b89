/** `npm run worker`: one worker for the Lead and teammate workflows. Connection settings and telemetry: see docs/deployment.md. */
import { createTeamWorker } from './createWorker';
import { installTelemetry } from './telemetry';
import { errorMessage } from '../shared/errors';

let telemetry: ReturnType<typeof installTelemetry>;
try {
  telemetry = installTelemetry();
} catch (error) {
  console.error('worker failed:', errorMessage(error));
  process.exit(1);
}
const { logger, tracing, shutdown } = telemetry;

createTeamWorker({ tracing })
  .then(async ({ worker, close }) => {
    logger.info(`worker polling task queue "${worker.options.taskQueue}" (namespace ${worker.options.namespace})`, {
      taskQueue: worker.options.taskQueue,
      namespace: worker.options.namespace,
    });
    await worker.run();
    await close();
    await shutdown();
  })
  .catch((error: unknown) => {
    logger.error(`worker failed: ${errorMessage(error)}`);
    process.exit(1);
  });
