/**
 * `npm start`: brings up the Temporal dev server (persistent SQLite, Web UI), a worker, and a
 * demo Team on it, then prints where to look. Keeps running until Ctrl-C so the Team can be
 * inspected in the Web UI or with the `temporal` CLI. `npm start -- --once` exits after the demo.
 *   TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (8233), TEMPORAL_DB_FILE (~/.cache/agent-teams-temporal/dev.sqlite)
 *   TEMPORAL_UI_URL: the Web UI the printed links point at (default: this dev server's own UI)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { TeamClient } from '../client/teamClient';
import { webUiLink, webUiTeamLink } from '../cli/format';
import { startPanel } from '../cli/panel/server';
import { DEFAULT_TASK_QUEUE } from '../shared/contract';
import { errorMessage } from '../shared/util/errors';
import { terminalText } from '../shared/text/inertText';
import { redactUrl, redactUrlCredentials } from '../shared/text/redact';
import { createTeamWorker } from '../worker/createWorker';
import { createWorkerLogger } from '../worker/telemetry';
import { demoAgentPrompt } from './demoScenario';
import { freePort, startDevServer } from './devServer';

async function portIsFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** One line of text a member or a model wrote, for the terminal (shared/text/inertText.ts). */
const one = (text: string): string => terminalText(text, 'line');

function listFiles(root: string, dir = ''): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(root, relative) : [relative];
  });
}

async function main(): Promise<void> {
  const once = process.argv.includes('--once');
  // The SDK's warnings (an activity's failure quotes what a member wrote) through the worker's inert sink.
  Runtime.install({ logger: createWorkerLogger('WARN', 'text') });
  const dbFilename = process.env.TEMPORAL_DB_FILE ?? path.join(os.homedir(), '.cache', 'agent-teams-temporal', 'dev.sqlite');
  fs.mkdirSync(path.dirname(dbFilename), { recursive: true });
  const wantedPort = Number(process.env.TEMPORAL_PORT ?? 7233);
  const wantedUiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
  const port = (await portIsFree(wantedPort)) ? wantedPort : await freePort();
  const uiPort = (await portIsFree(wantedUiPort)) ? wantedUiPort : await freePort();
  if (port !== wantedPort) console.log(`port ${wantedPort} is busy; using ${port} (set TEMPORAL_PORT to choose)`);

  console.log('[1/4] starting the Temporal dev server (first run builds it from source: several minutes)…');
  const server = await startDevServer({ dbFilename, port, uiPort });
  console.log(`      Temporal at ${server.address}, database ${dbFilename}`);

  console.log('[2/4] starting a worker (bundles the workflows)…');
  const workerConnection = await NativeConnection.connect({ address: server.address });
  // Work tools act on a demo checkout, never on this repository. Point AGENT_TEAMS_CHECKOUT elsewhere to choose.
  const checkoutRoot = process.env.AGENT_TEAMS_CHECKOUT ?? demoCheckout();
  const {
    worker,
    close: closeWorker,
    model,
  } = await createTeamWorker({
    connection: workerConnection,
    address: server.address,
    taskQueue: DEFAULT_TASK_QUEUE,
    checkoutRoot,
  });
  // The worker's own description of its model: MODEL_BASE_URL's credentials redacted, no API key.
  const modelLine = process.env.MODEL_BASE_URL || process.env.MODEL_PROVIDER ? model : `${model}; set MODEL_PROVIDER/MODEL_BASE_URL for a real one`;
  console.log(`      model: ${modelLine}; checkout: ${checkoutRoot}`);
  const running = worker.run();

  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const teamId = `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  // The configured Web UI when TEMPORAL_UI_URL is set, else the one this dev server runs (its port may not be 8233).
  const uiBase = process.env.TEMPORAL_UI_URL || server.uiUrl || undefined;
  // Links (printed, and shown by the panel) carry TEMPORAL_UI_URL's host, never its user:password@.
  const webUiOf = (id: string): string | null => {
    const link = webUiLink(server.address, 'default', id, { ...process.env, TEMPORAL_UI_URL: uiBase });
    return link === null ? null : redactUrl(link);
  };
  const webUi = webUiOf(teamId) ?? '(headless: no Web UI)';
  // The CLI builds its links from TEMPORAL_UI_URL (else port 8233): say so when this server's UI is elsewhere.
  const cliUiEnv = !process.env.TEMPORAL_UI_URL && uiPort !== 8233 && uiBase ? `TEMPORAL_UI_URL=${uiBase} ` : '';
  const wantedPanelPort = Number(process.env.PANEL_PORT ?? 8299);
  const panel = await startPanel({ client, port: (await portIsFree(wantedPanelPort)) ? wantedPanelPort : 0, webUiLink: webUiOf });
  const panelUrl = `${panel.url}teams/${encodeURIComponent(teamId)}`;
  console.log(`[3/4] starting demo Team ${teamId}: a Lead agent (Team profile) with two teammates…`);
  console.log(`      Web UI of the Lead: ${webUi}`);
  const teamList = webUiTeamLink(server.address, 'default', teamId, { ...process.env, TEMPORAL_UI_URL: uiBase });
  if (teamList) console.log(`      Web UI, whole Team: ${redactUrl(teamList)}`);
  console.log(`      live panel:         ${panelUrl}`);
  const team = await TeamClient.start(client, { teamId, taskQueue: DEFAULT_TASK_QUEUE, agent: { prompt: demoAgentPrompt(), profile: 'team' } });
  let lastLine = '';
  const lead = await team.waitForAnswer({
    timeoutMs: 5 * 60_000,
    onProgress: (view, edge) => {
      const line = `lead turn ${view.turns}, ${view.status}${edge ? ` (after ${edge.kind} edge: ${edge.subject})` : ''}`;
      if (line !== lastLine) console.log(`      ${one(line)}`);
      lastLine = line;
    },
  });
  const board = await team.view();
  // What members and models wrote (names, subjects, file names, the answer) is printed inert, as the CLI prints it.
  console.log(`      roster: ${one(board.members.map((m) => `${m.name} (${m.context}, ${m.phase})`).join(', '))}`);
  console.log(`      board:  ${one(board.tasks.map((t) => `#${t.id} ${t.subject}: ${t.status} by ${t.owner ?? 'nobody'}`).join('; '))}`);
  console.log(`      files:  ${one(listFiles(checkoutRoot).join(', '))}`);
  console.log(`      answer: ${terminalText(lead.finalAnswer ?? '(none)', 'block')}`);

  console.log('[4/4] done. Inspect the Team:');
  console.log(`      Web UI:  ${webUi}`);
  console.log(`      panel:   ${panelUrl} (every Team: ${panel.url})`);
  console.log(`      CLI:     ${cliUiEnv}npm run cli -- --address ${server.address} status ${teamId}`);
  console.log(`               npm run cli -- --address ${server.address} conversation ${teamId}`);
  console.log(`               temporal workflow query --address ${server.address} --workflow-id ${teamId} --name getTeamView`);
  console.log(`      binary:  ${server.process.spawnfile}`);

  const shutdown = async (): Promise<void> => {
    await panel.close();
    worker.shutdown();
    await running;
    await closeWorker();
    await workerConnection.close();
    await connection.close();
    await server.stop();
  };
  if (once) {
    const finalView = await team.dispose(); // leave nothing running in the persistent database
    console.log(`      disposed: ${one(finalView.members.map((m) => `${m.name} ${m.phase}`).join(', '))}`);
    await shutdown();
    return;
  }
  console.log('      Server and worker keep running; Ctrl-C stops them (state persists in the database).');
  process.once('SIGINT', () => void shutdown().then(() => process.exit(0)));
  process.once('SIGTERM', () => void shutdown().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(terminalText(redactUrlCredentials(`npm start failed: ${errorMessage(error)}`), 'block'));
  console.error('If the Temporal CLI build failed, run `npm run server:install` to see its output.');
  process.exit(1);
});

/**
 * A fresh demo checkout. Run as root (a container, CI), it is given to `nobody`: bash never runs as
 * root, it runs as the checkout's owner (activities/tools/sandboxIdentity.ts).
 */
function demoCheckout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-demo-checkout-'));
  if (process.getuid?.() === 0) fs.chownSync(dir, 65534, 65534);
  return dir;
}
