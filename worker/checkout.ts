/**
 * `npm run worker:checkout`: the work tools for one checkout, on the machine that holds it.
 * AGENT_TEAMS_CHECKOUT_QUEUE (required) is the queue Teams name with `--checkout-queue`;
 * AGENT_TEAMS_CHECKOUT is the checkout (default: the current directory). Telemetry as for `npm run worker` (worker/telemetry.ts).
 */
import { checkoutRootFromEnv } from '../activities/tools';
import { createCheckoutWorker } from './createCheckoutWorker';
import { runWorkerProcess } from './runWorkerProcess';

const taskQueue = process.env.AGENT_TEAMS_CHECKOUT_QUEUE;
if (!taskQueue) {
  console.error('AGENT_TEAMS_CHECKOUT_QUEUE is not set: name the task queue Teams pass as --checkout-queue, e.g. AGENT_TEAMS_CHECKOUT_QUEUE=checkout-laptop');
  process.exit(1);
}
runWorkerProcess({
  label: 'checkout worker',
  create: (tracing) => createCheckoutWorker({ taskQueue, tracing }),
  polling: (worker) => `for ${checkoutRootFromEnv()} polling task queue "${taskQueue}" (namespace ${worker.options.namespace})`,
});
