/** `npm run worker`: one worker for the Lead and teammate workflows. Connection settings and telemetry: see docs/deployment.md. */
import { createTeamWorker } from './createWorker';
import { runWorkerProcess } from './runWorkerProcess';

runWorkerProcess({
  label: 'worker',
  create: (tracing) => createTeamWorker({ tracing }),
  polling: (worker) => `polling task queue "${worker.options.taskQueue}" (namespace ${worker.options.namespace})`,
});
