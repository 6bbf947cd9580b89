/** `npm run worker`: one worker for the Lead and teammate workflows. Connection settings: see README. */
import { createTeamWorker } from './createWorker';
import { errorMessage } from '../shared/errors';

createTeamWorker()
  .then(async ({ worker, close }) => {
    console.log(`worker polling task queue "${worker.options.taskQueue}" (namespace ${worker.options.namespace})`);
    await worker.run();
    await close();
  })
  .catch((error: unknown) => {
    console.error('worker failed:', errorMessage(error));
    process.exit(1);
  });
