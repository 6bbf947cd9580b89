/** `npm run worker`: one worker for the Lead and teammate workflows. Connection settings and telemetry: see docs/deployment.md. */
import { createTeamWorker } from './createWorker';
import { reaperFromEnv } from './reaper';
import { runWorkerProcess } from './runWorkerProcess';

/** What the start-up line says about the orphan reaper (AGENT_TEAMS_REAPER_INTERVAL, default 60 s). */
let reaperNote = '';

runWorkerProcess({
  label: 'worker',
  create: async (tracing) => {
    const created = await createTeamWorker({ tracing, reaper: reaperFromEnv(process.env) });
    reaperNote = created.reaper ? `; ${created.reaper}` : '; orphan reaper off';
    return created;
  },
  polling: (worker) => `polling task queue "${worker.options.taskQueue}" (namespace ${worker.options.namespace})${reaperNote}`,
});
