/**
 * Starts one real Temporal dev server (SQLite in a temp dir, free ports, with its Web UI) for the
 * integration project and bundles the workflows once (the production ones plus the test-only ones
 * in testWorkflows.ts). Tests read TEMPORAL_ADDRESS, AGENT_TEAMS_WORKFLOW_BUNDLE and
 * AGENT_TEAMS_TEST_UI_URL (the Web UI, for the browser test of the Team dashboard). With
 * AGENT_TEAMS_TEST_TARGET=cluster (`npm run test:cluster`) the tests run on the multi-service
 * cluster of `npm run cluster` instead, brought up here if it is not up; it stays up. Its Web UI is
 * a separate server that test/cluster/webUi.test.ts finds in the cluster's state, so
 * AGENT_TEAMS_TEST_UI_URL (the dev server's UI) is not set there.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clusterUp } from '../../scripts/cluster';
import { startDevServer } from '../../scripts/devServer';
import { bundleTeamWorkflows } from '../../worker/workflowBundle';

export default async function globalSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-test-'));
  const onCluster = process.env.AGENT_TEAMS_TEST_TARGET === 'cluster';
  // The Web UI is served by the same process (a few MB more); test/integration/webUi.test.ts opens it in Chromium.
  const server = onCluster ? null : await startDevServer({ dbFilename: path.join(dir, 'temporal.sqlite') });
  const address = server ? server.address : (await clusterUp()).address;
  const { code } = await bundleTeamWorkflows({ workflowsPath: require.resolve('./testWorkflows'), logger: quietLogger });
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, code);
  process.env.TEMPORAL_ADDRESS = address;
  process.env.AGENT_TEAMS_WORKFLOW_BUNDLE = bundlePath;
  process.env.AGENT_TEAMS_TEST_DIR = dir;
  if (server?.uiUrl) process.env.AGENT_TEAMS_TEST_UI_URL = server.uiUrl;
  (globalThis as Record<string, unknown>).__agentTeamsServer = server;
}

const noop = (): void => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };
