/**
 * Starts one real Temporal dev server (in-memory SQLite, headless, free port) for the integration
 * project and bundles the workflows once (the production ones plus the test-only ones in
 * testWorkflows.ts). Tests read TEMPORAL_ADDRESS and AGENT_TEAMS_WORKFLOW_BUNDLE.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer } from '../../scripts/devServer';

export default async function globalSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-test-'));
  const server = await startDevServer({ uiPort: false, dbFilename: path.join(dir, 'temporal.sqlite') });
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./testWorkflows'), logger: quietLogger });
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, code);
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.AGENT_TEAMS_WORKFLOW_BUNDLE = bundlePath;
  process.env.AGENT_TEAMS_TEST_DIR = dir;
  (globalThis as Record<string, unknown>).__agentTeamsServer = server;
}

const noop = (): void => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };
