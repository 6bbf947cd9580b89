/**
 * Per-file harness for integration tests: one client and the file's workers, torn down after the
 * file. On the dev server the worker is one in-process worker; on the cluster
 * (AGENT_TEAMS_TEST_TARGET=cluster, `npm run test:cluster`) it is two worker processes
 * (worker/main.ts) polling the file's task queue and sharing one checkout, as a deployment runs them.
 */
import type { Client } from '@temporalio/client';
import { connectClient, startWorker, tempCheckout, uniqueId, type RunningWorker } from './temporal';
import { spawnWorkerProcess, type WorkerProcess, type WorkerProcessOptions } from './workerProcess';

export const onCluster = (): boolean => process.env.AGENT_TEAMS_TEST_TARGET === 'cluster';

/** The file's workers on one task queue: what the tests need of them. */
export interface TestWorkers {
  readonly taskQueue: string;
  /** The checkout the work tools act on. */
  readonly checkoutRoot: string;
  stop(): Promise<void>;
}

export interface TestEnvironment {
  readonly client: Client;
  readonly worker: TestWorkers;
}

/** Two worker processes on one fresh task queue and one checkout. */
export async function startWorkerProcesses(count = 2, taskQueue: string = uniqueId('tq')): Promise<TestWorkers & { processes: WorkerProcess[] }> {
  const checkoutRoot = tempCheckout();
  const processes = await Promise.all(Array.from({ length: count }, () => spawnWorkerProcess(taskQueue, { checkoutRoot })));
  return { taskQueue, checkoutRoot, processes, stop: async () => void (await Promise.all(processes.map((p) => p.stop()))) };
}

export function useClientAndWorker(): TestEnvironment {
  const env = {} as { client: Client; worker: TestWorkers | (RunningWorker & { checkoutRoot: string }); close: () => Promise<void> };
  beforeAll(async () => {
    const { client, close } = await connectClient();
    env.client = client;
    env.close = close;
    env.worker = onCluster() ? await startWorkerProcesses() : await startWorker();
  });
  afterAll(async () => {
    await env.worker.stop();
    await env.close();
  });
  return env;
}

export interface ProcessEnvironment {
  readonly client: Client;
  /** Starts a worker process on `taskQueue`; every one still alive is stopped after the file. */
  spawnWorker(taskQueue: string, options?: WorkerProcessOptions): Promise<WorkerProcess>;
}

export function useClientAndWorkerProcesses(): ProcessEnvironment {
  const workers: WorkerProcess[] = [];
  const env = {
    spawnWorker: async (taskQueue: string, options: WorkerProcessOptions = {}) => {
      const worker = await spawnWorkerProcess(taskQueue, options);
      workers.push(worker);
      return worker;
    },
  } as ProcessEnvironment & { client: Client; close: () => Promise<void> };
  beforeAll(async () => {
    const { client, close } = await connectClient();
    env.client = client;
    env.close = close;
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await env.close();
  });
  return env;
}
