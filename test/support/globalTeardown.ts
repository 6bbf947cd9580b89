import * as fs from 'node:fs';
import type { DevServer } from '../../scripts/devServer';

/**
 * Stops the dev server, then deletes the run's directory (its database, the workflow bundle and every test checkout:
 * temporal.ts tempCheckout), which would otherwise leave about half a gigabyte in the temp dir per run.
 * AGENT_TEAMS_KEEP_TEST_DIR=1 keeps it, to read the server's database after a failure.
 */
export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>).__agentTeamsServer as DevServer | undefined;
  await server?.stop();
  const dir = process.env.AGENT_TEAMS_TEST_DIR;
  if (dir === undefined) return;
  if (process.env.AGENT_TEAMS_KEEP_TEST_DIR === '1') {
    console.log(`kept the test run's directory (the dev server's database and the test checkouts): ${dir}`);
    return;
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
