import * as path from 'node:path';

/**
 * BENCH_FLOOR_WORKER_ROOT: the Team's worker from another checkout of the project (a worktree of an
 * older commit, its node_modules linked to this one's), so two versions of the code meet the same
 * floor: run the bench once with it and once without, and compare the ratios.
 */
export function otherCheckoutsWorker(): { command?: { node: string; args: string[]; env: NodeJS.ProcessEnv } } {
  const root = process.env.BENCH_FLOOR_WORKER_ROOT;
  if (!root) return {};
  console.log(`  the Team's worker from ${root}`);
  const env = { ...process.env, TS_NODE_PROJECT: path.join(root, 'tsconfig.json') };
  return { command: { node: process.execPath, args: ['-r', 'ts-node/register/transpile-only', path.join(root, 'worker/main.ts')], env } };
}
