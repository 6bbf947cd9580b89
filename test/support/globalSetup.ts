/**
 * Starts one real Temporal dev server (in-memory SQLite, headless, free port) for the integration
 * project and bundles the workflows once (the production ones plus the test-only ones in
 * testWorkflows.ts). Tests read TEMPORAL_ADDRESS and AGENT_TEAMS_WORKFLOW_BUNDLE. With
 * AGENT_TEAMS_TEST_TARGET=cluster (`npm run test:cluster`) the tests run on the multi-service
 * cluster of `npm run cluster` instead, brought up here if it is not up; it stays up afterwards.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { clusterUp } from '../../scripts/cluster';
import { startDevServer } from '../../scripts/devServer';

export default async function globalSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-test-'));
  const onCluster = process.env.AGENT_TEAMS_TEST_TARGET === 'cluster';
  const server = onCluster ? null : await startDevServer({ uiPort: false, dbFilename: path.join(dir, 'temporal.sqlite') });
  const address = server ? server.address : (await clusterUp()).address;
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./testWorkflows'), logger: quietLogger });
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, code);
  process.env.TEMPORAL_ADDRESS = address;
  process.env.AGENT_TEAMS_WORKFLOW_BUNDLE = bundlePath;
  process.env.AGENT_TEAMS_TEST_DIR = dir;
  (globalThis as Record<string, unknown>).__agentTeamsServer = server;
}

const noop = (): void => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };
