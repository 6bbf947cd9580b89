/**
 * `npm run worker:checkout`: the work tools for one checkout, on the machine that holds it.
 * AGENT_TEAMS_CHECKOUT_QUEUE (required) is the queue Teams name with `--checkout-queue`;
 * AGENT_TEAMS_CHECKOUT is the checkout (default: the current directory).
 */
import { checkoutRootFromEnv } from '../activities/tools';
import { createCheckoutWorker } from './createCheckoutWorker';
import { errorMessage } from '../shared/errors';

const taskQueue = process.env.AGENT_TEAMS_CHECKOUT_QUEUE;
if (!taskQueue) {
  console.error('AGENT_TEAMS_CHECKOUT_QUEUE is not set: name the task queue Teams pass as --checkout-queue, e.g. AGENT_TEAMS_CHECKOUT_QUEUE=checkout-laptop');
  process.exit(1);
}
createCheckoutWorker({ taskQueue })
  .then(async ({ worker, close }) => {
    console.log(`checkout worker for ${checkoutRootFromEnv()} polling task queue "${taskQueue}" (namespace ${worker.options.namespace})`);
    await worker.run();
    await close();
  })
  .catch((error: unknown) => {
    console.error('checkout worker failed:', errorMessage(error));
    process.exit(1);
  });
