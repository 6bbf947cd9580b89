/**
 * The floor's bare workflows (bench/floorBaselines.ts) in a worker process of their own, so that
 * `npm run bench:profile` can profile them beside the Team's worker. The bundle is built by the
 * parent (BENCH_FLOOR_BUNDLE); the SDK's default worker options, as bench/floor.ts runs them. It
 * stops on SIGTERM through the SDK's shutdown signals and exits, which writes the CPU profile.
 */
import { NativeConnection, Worker } from '@temporalio/worker';

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  try {
    const worker = await Worker.create({
      connection,
      taskQueue: process.env.TEMPORAL_TASK_QUEUE ?? 'bench-floor-profile',
      workflowBundle: { codePath: process.env.BENCH_FLOOR_BUNDLE ?? '' },
    });
    // The line spawnWorkerProcess waits for.
    console.log('worker polling');
    await worker.run();
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
