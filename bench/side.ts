/** A benchmark side's Temporal parts: an in-process Team worker polling `taskQueue` and a client, on one server. */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTeamWorker } from '../worker/createWorker';

/** A checkout of the benchmark's own: never this repository (the worker refuses its own package). */
export function benchCheckout(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-bench-checkout-'));
}

export interface BenchConnection {
  client: Client;
  /** Stops the worker and closes both connections (the server is the caller's). */
  close: () => Promise<void>;
}

export async function connectBenchWorker(address: string, taskQueue: string): Promise<BenchConnection> {
  const workerConnection = await NativeConnection.connect({ address });
  const { worker, close: closeWorker } = await createTeamWorker({ connection: workerConnection, address, taskQueue, checkoutRoot: benchCheckout() });
  const connection = await Connection.connect({ address });
  const running = worker.run();
  return {
    client: new Client({ connection }),
    close: async () => {
      worker.shutdown();
      await running;
      await closeWorker();
      await workerConnection.close();
      await connection.close();
    },
  };
}
