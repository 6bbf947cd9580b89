/** Per-file harness for integration tests: one client and one in-process worker, torn down after the file. */
import type { Client } from '@temporalio/client';
import { connectClient, startWorker, type RunningWorker } from './temporal';
import { spawnWorkerProcess, type WorkerProcess, type WorkerProcessOptions } from './workerProcess';

export interface TestEnvironment {
  readonly client: Client;
  readonly worker: RunningWorker & { checkoutRoot: string };
}

export function useClientAndWorker(): TestEnvironment {
  const env = {} as { client: Client; worker: RunningWorker & { checkoutRoot: string }; close: () => Promise<void> };
  beforeAll(async () => {
    const { client, close } = await connectClient();
    env.client = client;
    env.close = close;
    env.worker = await startWorker();
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
