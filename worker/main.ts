/** `npm run worker`: one worker for the Lead and teammate workflows. Connection settings: see README. */
import { createTeamWorker } from './createWorker';

createTeamWorker()
  .then((worker) => {
    console.log(`worker polling task queue "${worker.options.taskQueue}" (namespace ${worker.options.namespace})`);
    return worker.run();
  })
  .catch((error: unknown) => {
    console.error('worker failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
