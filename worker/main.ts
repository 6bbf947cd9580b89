/** `npm run worker`: one worker for the Lead and teammate workflows. Connection settings: see README. */
import { createTeamWorker } from './createWorker';

createTeamWorker()
  .then(async ({ worker, close }) => {
    console.log(`worker polling task queue "${worker.options.taskQueue}" (namespace ${worker.options.namespace})`);
    await worker.run();
    await close();
  })
  .catch((error: unknown) => {
    console.error('worker failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
