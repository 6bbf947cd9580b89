/**
 * `npm run worker:checkout`: the work tools for one checkout, on the machine that holds it.
 * AGENT_TEAMS_CHECKOUT_QUEUE (required) is the queue Teams name with `--checkout-queue`;
 * AGENT_TEAMS_CHECKOUT is the checkout (default: the current directory). Telemetry as for `npm run worker` (worker/telemetry.ts).
 */
import { checkoutRootFromEnv } from '../activities/tools';
import { createCheckoutWorker } from './createCheckoutWorker';
import { installTelemetry } from './telemetry';
import { errorMessage } from '../shared/errors';

const taskQueue = process.env.AGENT_TEAMS_CHECKOUT_QUEUE;
if (!taskQueue) {
  console.error('AGENT_TEAMS_CHECKOUT_QUEUE is not set: name the task queue Teams pass as --checkout-queue, e.g. AGENT_TEAMS_CHECKOUT_QUEUE=checkout-laptop');
  process.exit(1);
}
let telemetry: ReturnType<typeof installTelemetry>;
try {
  telemetry = installTelemetry();
} catch (error) {
  console.error('checkout worker failed:', errorMessage(error));
  process.exit(1);
}
const { logger, tracing, shutdown } = telemetry;

createCheckoutWorker({ taskQueue, tracing })
  .then(async ({ worker, close }) => {
    logger.info(`checkout worker for ${checkoutRootFromEnv()} polling task queue "${taskQueue}" (namespace ${worker.options.namespace})`, {
      taskQueue,
      namespace: worker.options.namespace,
    });
    await worker.run();
    await close();
    await shutdown();
  })
  .catch((error: unknown) => {
    logger.error(`checkout worker failed: ${errorMessage(error)}`);
    process.exit(1);
  });
