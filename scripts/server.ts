/**
 * `npm run server`: the Temporal dev server with a persistent SQLite database, the Web UI, and
 * the project's search attributes registered. Ctrl-C stops it; state survives restarts.
 *   TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (8233), TEMPORAL_DB_FILE (~/.cache/agent-teams-temporal/dev.sqlite)
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { startDevServer } from './devServer';
import { errorMessage } from '../shared/util/errors';
import { terminalText } from '../shared/text/inertText';

async function main(): Promise<void> {
  const dbFilename = process.env.TEMPORAL_DB_FILE ?? path.join(os.homedir(), '.cache', 'agent-teams-temporal', 'dev.sqlite');
  fs.mkdirSync(path.dirname(dbFilename), { recursive: true });
  const server = await startDevServer({
    dbFilename,
    port: Number(process.env.TEMPORAL_PORT ?? 7233),
    uiPort: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
    log: 'inherit',
  });
  console.log(`Temporal dev server ready at ${server.address} (database ${dbFilename})`);
  console.log(`Web UI: ${server.uiUrl}`);
  const stop = (): void => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  server.process.on('exit', (code) => process.exit(code ?? 1));
}

main().catch((error: unknown) => {
  // A failure may quote the server's own output: printed inert, as the CLI prints.
  console.error(terminalText(errorMessage(error), 'block'));
  process.exit(1);
});
