/**
 * `npm run record-histories`: runs scripted Team sessions on a fresh in-memory dev server and
 * saves each workflow history to test/histories/. The replay test runs every saved history
 * against the current workflow code, so a non-deterministic change fails CI. Record new histories
 * whenever workflow behaviour grows; never delete old ones while their code paths still exist.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { TeamClient } from '../client/teamClient';
import { createTeamWorker } from '../worker/createWorker';
import { ensureTemporalCli, startDevServer } from './devServer';
import { runDemoScenario, runDemoTeammates } from './demoScenario';

const OUT = path.join(__dirname, '..', 'test', 'histories');

async function main(): Promise<void> {
  const version = process.argv[2] ?? 'v1';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = await startDevServer({ uiPort: false });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const { worker, close: closeWorker } = await createTeamWorker({ connection: workerConnection, address: server.address, taskQueue: 'record-histories' });
  try {
    await worker.runUntil(async () => {
      const team = await TeamClient.start(client, { teamId: `history-demo-${version}`, taskQueue: 'record-histories' });
      await runDemoScenario(team, (line) => console.log(`  ${line}`));
      await runDemoTeammates(team, (line) => console.log(`  ${line}`));
      const { members } = await team.view();
      await team.dispose();
      await team.handle().result();
      save(server.address, team.teamId, `teamLead-demo-${version}.json`);
      for (const member of members) save(server.address, member.workflowId, `teammate-${member.name}-${version}.json`);
    });
  } finally {
    await closeWorker();
    await workerConnection.close();
    await connection.close();
    await server.stop();
  }
}

/** Exports with `temporal workflow show --output json`: the format users get from the CLI and Web UI. */
function save(address: string, workflowId: string, file: string): void {
  const json = execFileSync(ensureTemporalCli(), ['workflow', 'show', '--workflow-id', workflowId, '--output', 'json', '--address', address], { encoding: 'utf8' });
  const events = (JSON.parse(json) as { events?: unknown[] }).events?.length ?? 0;
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, file), json);
  console.log(`saved ${events} events of ${workflowId} to test/histories/${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
