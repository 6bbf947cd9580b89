import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { DEFAULT_TASK_QUEUE } from '../shared/definitions';
import { connectionOptionsFromEnv } from '../client/connection';

export interface TeamWorkerOptions {
  connection?: NativeConnection;
  taskQueue?: string;
  /** A prebuilt bundle (tests and benchmarks bundle once); otherwise workflows/ is bundled at start. */
  workflowBundlePath?: string;
  extra?: Partial<WorkerOptions>;
}

/** Builds the project's worker: the Lead and teammate workflows plus their activities. */
export async function createTeamWorker(options: TeamWorkerOptions = {}): Promise<Worker> {
  const connection = options.connection ?? (await NativeConnection.connect(connectionOptionsFromEnv()));
  const bundlePath = options.workflowBundlePath ?? process.env.AGENT_TEAMS_WORKFLOW_BUNDLE;
  return Worker.create({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: options.taskQueue ?? process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : { workflowsPath: require.resolve('../workflows') }),
    ...options.extra,
  });
}
