/**
 * Starts the real Temporal dev server (Temporal CLI `server start-dev`, SQLite persistence,
 * embedded Web UI) as a child process. Used by `npm run server`, `npm start`, the tests' global
 * setup and the benchmark. The binary is built by scripts/install-temporal-cli.sh.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_REGISTRATIONS } from '../shared/contract/searchAttributes';
import { registerMissingSearchAttributes } from '../worker/searchAttributeCheck';
import { TEAM_SERVER_DYNAMIC_CONFIG } from './serverSettings';

export interface DevServerOptions {
  /** SQLite file; omit for an in-memory server. */
  dbFilename?: string;
  port?: number;
  /** Web UI port; `false` runs headless. */
  uiPort?: number | false;
  ip?: string;
  /** Extra `--dynamic-config-value KEY=VALUE` pairs, over the project's server settings. */
  dynamicConfig?: Record<string, unknown>;
  /** Leave out the project's server settings (scripts/serverSettings.ts): the racing bench's baseline. */
  serverDefaults?: boolean;
  /** Where server logs go; default: discarded unless AGENT_TEAMS_SERVER_LOG names a file. */
  log?: 'inherit' | 'ignore';
}

export interface DevServer {
  address: string;
  uiUrl: string | null;
  /** The server's Prometheus metrics (bench/serverMetrics.ts reads the retries its task queues counted). */
  metricsUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Installs the pinned Temporal CLI when missing (prints progress on stderr) and returns its path. */
export function ensureTemporalCli(): string {
  const script = path.join(__dirname, 'install-temporal-cli.sh');
  const out = execFileSync('bash', [script, '--print-path'], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const bin = out.trim().split('\n').pop();
  if (!bin) throw new Error('install-temporal-cli.sh printed no path; run `npm run server:install` to see why');
  return bin;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const bin = ensureTemporalCli();
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port ?? (await freePort());
  const uiPort = options.uiPort === false ? false : (options.uiPort ?? (await freePort()));
  const metricsPort = await freePort();
  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--metrics-port',
    String(metricsPort),
    '--log-level',
    'warn',
    '--log-format',
    'json',
  ];
  args.push(...(uiPort === false ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (options.dbFilename) args.push('--db-filename', options.dbFilename);
  for (const attribute of SEARCH_ATTRIBUTE_REGISTRATIONS) args.push('--search-attribute', attribute);
  const dynamicConfig = { ...(options.serverDefaults ? {} : TEAM_SERVER_DYNAMIC_CONFIG), ...options.dynamicConfig };
  for (const [key, value] of Object.entries(dynamicConfig)) args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);

  const child = spawn(bin, args, { stdio: ['ignore', options.log === 'inherit' ? 'inherit' : 'ignore', options.log === 'inherit' ? 'inherit' : 'pipe'] });
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-4000);
  });
  const exit: { code: number | null } = { code: null };
  // Never leave an orphaned server behind: if this process exits for any reason, take it along.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.on('exit', (code) => {
    exit.code = code ?? -1;
    process.removeListener('exit', killOnExit);
  });

  const address = `${ip}:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exit.code !== null) throw new Error(`Temporal dev server exited with ${exit.code} before it was ready:\n${stderrTail}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        const added = await registerMissingSearchAttributes(connection, 'default');
        if (added.length > 0) console.log(`registered the search attributes ${added.join(', ')} in the existing database`);
        break;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`Temporal dev server at ${address} did not answer within 60s (${String(error)}):\n${stderrTail}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  return {
    address,
    uiUrl: uiPort === false ? null : `http://${ip === '0.0.0.0' ? 'localhost' : ip}:${uiPort}`,
    metricsUrl: `http://${ip === '0.0.0.0' ? '127.0.0.1' : ip}:${metricsPort}/metrics`,
    process: child,
    stop: () => stopProcess(child),
  };
}

export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
