/**
 * `npm run cluster`: a real multi-service Temporal on loopback, as plain processes: its own
 * PostgreSQL (initdb + pg_ctl, never the machine's instance), the schema applied by Temporal's SQL
 * tool for the default and the visibility store, and the frontend, history, matching and worker
 * services as separate `server` processes of go.temporal.io/server (built once by
 * scripts/install-temporal-server.sh), with the project's server settings, search attributes and a
 * `default` namespace with a real retention; and Temporal's Web UI server (github.com/temporalio/ui-server,
 * built by scripts/install-temporal-ui-server.sh; read-only unless AGENT_TEAMS_UI_WRITE_ACTIONS=1)
 * when it builds here. Free ports; the data directory is outside the checkout.
 *   npm run cluster             # bring it up (or report the one already up) and print its address
 *   npm run cluster -- --down   # stop every process (the data stays; --wipe also deletes it)
 * Environment: AGENT_TEAMS_CLUSTER_DIR (default /var/tmp/agent-teams-cluster-<user>), PG_BIN (the
 * PostgreSQL bin folder; default the newest /usr/lib/postgresql/<n>/bin).
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureTemporalCli, freePort } from './devServer';
import { dynamicConfigYaml, singleClusterYaml } from './serverSettings';
import { SEARCH_ATTRIBUTE_REGISTRATIONS } from '../shared/contract/searchAttributes';

export const SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type Service = (typeof SERVICES)[number];
const RETENTION = '72h';
const DB_USER = 'temporal';

export interface ClusterState {
  dir: string;
  address: string;
  postgres: { port: number; dataDir: string; bin: string };
  ports: Record<Service, { grpc: number; membership: number; metrics: number }>;
  /** The frontend's HTTP API port. */
  httpPort: number;
  pids: Partial<Record<Service, number>>;
  serverBin: string;
  /** The Web UI server (github.com/temporalio/ui-server), or null when it could not be built here. */
  ui?: { port: number; bin: string; pid?: number } | null;
}

const log = (line: string): void => console.error(`[cluster] ${line}`);

export function clusterDir(): string {
  return process.env.AGENT_TEAMS_CLUSTER_DIR ?? path.join('/var/tmp', `agent-teams-cluster-${os.userInfo().username}`);
}

function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('PostgreSQL is not installed: apt-get install -y postgresql (or set PG_BIN to the folder holding initdb and pg_ctl)');
  return path.join(root, newest, 'bin');
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
function asPostgresUser(command: string, args: string[], options: { input?: string } = {}): string {
  const root = process.getuid?.() === 0;
  return execFileSync(root ? 'runuser' : command, root ? ['-u', 'postgres', '--', command, ...args] : args, {
    encoding: 'utf8',
    input: options.input,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The /proc state letter: a SIGKILLed child not yet reaped by its parent is a zombie ('Z'), no longer running. */
function running(pid: number | undefined): boolean {
  if (!alive(pid)) return false;
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true; // no /proc: trust kill(pid, 0)
  }
}

function readState(dir: string): ClusterState | null {
  const file = path.join(dir, 'state.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterState) : null;
}

function writeState(state: ClusterState): void {
  fs.writeFileSync(path.join(state.dir, 'state.json'), JSON.stringify(state, null, 2));
}

/** A free port in 20000-32767: the server stores membership ports in a PostgreSQL smallint. */
async function freeLowPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}

async function newState(dir: string, serverBin: string): Promise<ClusterState> {
  const ports = {} as ClusterState['ports'];
  const taken = new Set<number>();
  for (const service of SERVICES) ports[service] = { grpc: await freePort(), membership: await freeLowPort(taken), metrics: await freePort() };
  const pgBin = postgresBin();
  return {
    dir,
    address: `127.0.0.1:${ports.frontend.grpc}`,
    postgres: { port: await freePort(), dataDir: path.join(dir, 'postgres'), bin: pgBin },
    ports,
    httpPort: await freePort(),
    pids: {},
    serverBin,
  };
}

function pgCtl(state: ClusterState, ...args: string[]): string {
  return asPostgresUser(path.join(state.postgres.bin, 'pg_ctl'), ['-D', state.postgres.dataDir, ...args]);
}

function startPostgres(state: ClusterState): void {
  const { dataDir, port, bin } = state.postgres;
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    log(`initialising PostgreSQL in ${dataDir}`);
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres:postgres', dataDir]);
    asPostgresUser(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale']);
  }
  const pgStatus = (): boolean => {
    try {
      pgCtl(state, 'status');
      return true;
    } catch {
      return false;
    }
  };
  if (pgStatus()) return;
  log(`starting PostgreSQL on 127.0.0.1:${port}`);
  pgCtl(state, '-w', '-l', path.join(dataDir, 'server.log'), '-o', `-p ${port} -c listen_addresses=127.0.0.1 -k ${dataDir} -c max_connections=200`, 'start');
  const psql = (sql: string): string => asPostgresUser(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-tAc', sql]);
  if (psql(`SELECT 1 FROM pg_roles WHERE rolname = '${DB_USER}'`).trim() !== '1') psql(`CREATE ROLE ${DB_USER} LOGIN CREATEDB PASSWORD '${DB_USER}'`);
}

function applySchema(state: ClusterState, sqlBin: string): void {
  const base = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(state.postgres.port), '-u', DB_USER, '--pw', DB_USER];
  for (const [db, schema] of [
    ['temporal', 'postgresql/v12/temporal'],
    ['temporal_visibility', 'postgresql/v12/visibility'],
  ] as const) {
    const run = (...args: string[]): string => execFileSync(sqlBin, [...base, '--db', db, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      run('create-database');
      log(`created database ${db}`);
      run('setup-schema', '-v', '0.0');
    } catch (error) {
      if (!/already exists/.test(String((error as { stderr?: string }).stderr ?? error))) throw error;
    }
    run('update-schema', '--schema-name', schema);
    log(`schema ${schema} is current`);
  }
}

function serverConfig(state: ClusterState, service: Service): string {
  const store = (db: string, conns: number): string => `
      sql:
        pluginName: postgres12
        databaseName: ${db}
        connectAddr: "127.0.0.1:${state.postgres.port}"
        connectProtocol: tcp
        user: ${DB_USER}
        password: ${DB_USER}
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: 1h`;
  const rpc = (s: Service): string => `
  ${s}:
    rpc:
      grpcPort: ${state.ports[s].grpc}
      membershipPort: ${state.ports[s].membership}
      bindOnLocalHost: true${s === 'frontend' ? `\n      httpPort: ${state.httpPort}` : ''}`;
  return `# Written by scripts/cluster.ts for the ${service} service.
log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:${store('temporal', 20)}
    visibility:${store('temporal_visibility', 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
  metrics:
    prometheus:
      framework: tally
      timerType: histogram
      listenAddress: "127.0.0.1:${state.ports[service].metrics}"
services:${SERVICES.map(rpc).join('')}
${singleClusterYaml(`127.0.0.1:${state.ports.frontend.grpc}`, path.join(state.dir, 'config', 'dynamicconfig.yaml'))}`;
}

function dynamicConfig(): string {
  return dynamicConfigYaml({ 'system.forceSearchAttributesCacheRefreshOnRead': true, 'limit.maxIDLength': 255 });
}

/** Starts one service as its own detached process, logging to <dir>/logs/<service>.log. */
export function startService(state: ClusterState, service: Service): number {
  const out = fs.openSync(path.join(state.dir, 'logs', `${service}.log`), 'a');
  const child = spawn(state.serverBin, ['--root', state.dir, '--config', 'config', '--env', service, '--allow-no-auth', 'start', '--service', service], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  child.unref();
  fs.closeSync(out);
  if (!child.pid) throw new Error(`the ${service} service did not start; see ${path.join(state.dir, 'logs', `${service}.log`)}`);
  return child.pid;
}

/** The Web UI's URL, when the cluster has one. */
export function uiUrl(state: ClusterState): string | null {
  return state.ui ? `http://127.0.0.1:${state.ui.port}` : null;
}

/**
 * The Web UI server's config: loopback only, pointing at the frontend, and read-only unless
 * AGENT_TEAMS_UI_WRITE_ACTIONS=1: from the UI, starting or signalling a workflow here means
 * starting or steering agents that run `bash`.
 */
function uiConfig(state: ClusterState, port: number): string {
  const readOnly = process.env.AGENT_TEAMS_UI_WRITE_ACTIONS !== '1';
  return `# Written by scripts/cluster.ts for the Web UI server.
temporalGrpcAddress: "${state.address}"
host: 127.0.0.1
port: ${port}
enableUi: true
defaultNamespace: default
refreshInterval: 0s
notifyOnNewVersion: false
cors:
  allowOrigins:
    - "http://127.0.0.1:${port}"
disableWriteActions: ${readOnly}
startWorkflowDisabled: ${readOnly}
batchActionsDisabled: ${readOnly}
`;
}

function startUi(state: ClusterState, ui: NonNullable<ClusterState['ui']>): number {
  fs.mkdirSync(path.join(state.dir, 'ui'), { recursive: true });
  fs.writeFileSync(path.join(state.dir, 'ui', 'base.yaml'), uiConfig(state, ui.port));
  const out = fs.openSync(path.join(state.dir, 'logs', 'ui.log'), 'a');
  const child = spawn(ui.bin, ['--root', state.dir, '--config', 'ui', '--env', 'cluster', 'start'], { detached: true, stdio: ['ignore', out, out] });
  child.unref();
  fs.closeSync(out);
  if (!child.pid) throw new Error(`the Web UI server did not start; see ${path.join(state.dir, 'logs', 'ui.log')}`);
  return child.pid;
}

async function waitForUi(state: ClusterState): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${uiUrl(state)}/api/v1/settings`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the Web UI at ${uiUrl(state)} does not answer after 60 s; see ${path.join(state.dir, 'logs', 'ui.log')}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The UI server's binary, built like the server's; null (with the reason logged) when it does not build here. */
function installUi(): string | null {
  try {
    return execFileSync('bash', [path.join(__dirname, 'install-temporal-ui-server.sh'), '--print-path'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .pop()!;
  } catch {
    log('the Web UI server did not build (see above); the cluster runs without it');
    return null;
  }
}

/**
 * On a fresh database the four services race to write the cluster metadata record, and a loser
 * exits at start ("Failed to apply cluster metadata"). The record exists once the frontend answers,
 * so a restart then succeeds; a service that keeps exiting is a real failure, named with its log.
 */
async function restartServicesThatExited(state: ClusterState): Promise<void> {
  for (let round = 1; ; round++) {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const exited = SERVICES.filter((service) => !alive(state.pids[service]));
    if (exited.length === 0) return;
    if (round > 3) throw new Error(`the ${exited.join(', ')} service keeps exiting; see ${path.join(state.dir, 'logs')}`);
    for (const service of exited) {
      log(`the ${service} service exited at start (see logs/${service}.log); restarting it`);
      state.pids[service] = startService(state, service);
    }
    writeState(state);
  }
}

async function waitForFrontend(state: ClusterState, temporal: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      execFileSync(temporal, ['operator', 'cluster', 'health', '--address', state.address], { stdio: 'ignore' });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`the frontend at ${state.address} is not healthy after 120 s; see ${path.join(state.dir, 'logs')}`);
      // The frontend itself may have lost the cluster metadata race (see restartServicesThatExited).
      if (!alive(state.pids.frontend)) {
        log('the frontend service exited at start (see logs/frontend.log); restarting it');
        state.pids.frontend = startService(state, 'frontend');
        writeState(state);
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

function setUpNamespace(state: ClusterState, temporal: string): void {
  const op = (...args: string[]): string =>
    execFileSync(temporal, ['operator', ...args, '--address', state.address], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  for (let attempt = 1; ; attempt++) {
    try {
      op('namespace', 'describe', '--namespace', 'default');
      break;
    } catch {
      try {
        op('namespace', 'create', '--namespace', 'default', '--retention', RETENTION);
        log(`created namespace default (retention ${RETENTION})`);
        break;
      } catch (error) {
        // The worker service creates system namespaces first; the frontend may refuse for a moment.
        if (attempt >= 30) throw error;
        execFileSync('sleep', ['1']);
      }
    }
  }
  for (const registration of SEARCH_ATTRIBUTE_REGISTRATIONS) {
    const [name, type] = registration.split('=') as [string, string];
    for (let attempt = 1; ; attempt++) {
      try {
        op('search-attribute', 'create', '--namespace', 'default', '--name', name, '--type', type);
        break;
      } catch (error) {
        const text = String((error as { stderr?: string }).stderr ?? error);
        if (/already|exists/i.test(text)) break;
        // A namespace just created reaches every frontend's cache within seconds.
        if (!/not found/i.test(text) || attempt >= 30) throw error;
        execFileSync('sleep', ['1']);
      }
    }
  }
}

export async function clusterUp(): Promise<ClusterState> {
  const dir = clusterDir();
  const existing = readState(dir);
  // `ui` undefined: brought up before the Web UI was part of the cluster; null: the UI did not build.
  const uiUp = existing?.ui === null || running(existing?.ui?.pid);
  if (existing && SERVICES.every((s) => running(existing.pids[s])) && uiUp) {
    log(`already up at ${existing.address} (${dir})`);
    return existing;
  }
  if (existing) await stopServices(existing); // some died: restart them all on the recorded ports
  log('[1/5] building or finding the Temporal server and its SQL tool');
  const binDir = execFileSync('bash', [path.join(__dirname, 'install-temporal-server.sh'), '--print-dir'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .pop()!;
  const temporal = ensureTemporalCli();
  const uiBin = installUi();
  fs.mkdirSync(path.join(dir, 'config'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const state: ClusterState = existing ? { ...existing, serverBin: path.join(binDir, 'server'), pids: {} } : await newState(dir, path.join(binDir, 'server'));
  state.ui = uiBin ? { port: state.ui?.port ?? (await freePort()), bin: uiBin } : null;
  log('[2/5] PostgreSQL');
  startPostgres(state);
  log('[3/5] schema (default and visibility stores)');
  applySchema(state, path.join(binDir, 'sql'));
  log('[4/5] services: history, matching, frontend, worker (one process each)');
  fs.writeFileSync(path.join(dir, 'config', 'dynamicconfig.yaml'), dynamicConfig());
  for (const service of SERVICES) {
    fs.writeFileSync(path.join(dir, 'config', `${service}.yaml`), serverConfig(state, service));
    state.pids[service] = startService(state, service);
  }
  writeState(state);
  await waitForFrontend(state, temporal);
  await restartServicesThatExited(state);
  log('[5/5] namespace default and the search attributes');
  setUpNamespace(state, temporal);
  if (state.ui) {
    log(`the Web UI server on 127.0.0.1:${state.ui.port}`);
    state.ui.pid = startUi(state, state.ui);
    writeState(state);
    await waitForUi(state);
  }
  writeState(state);
  return state;
}

/** SIGTERM to every recorded service still running, SIGKILL to any left after 20 s. */
async function stopServices(state: ClusterState): Promise<void> {
  const uiPid = state.ui?.pid;
  if (running(uiPid)) process.kill(uiPid!, 'SIGTERM');
  for (const service of [...SERVICES].reverse()) {
    const pid = state.pids[service];
    if (running(pid)) process.kill(pid!, 'SIGTERM');
  }
  const deadline = Date.now() + 20_000;
  const pids = [...SERVICES.map((s) => state.pids[s]), uiPid];
  while (pids.some(running) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  for (const pid of pids) if (running(pid)) process.kill(pid!, 'SIGKILL');
}

export async function clusterDown(options: { wipe?: boolean } = {}): Promise<void> {
  const dir = clusterDir();
  const state = readState(dir);
  if (!state) {
    log(`no cluster in ${dir}`);
    return;
  }
  await stopServices(state);
  try {
    pgCtl(state, '-m', 'fast', '-w', 'stop');
  } catch {
    // not running
  }
  writeState({ ...state, pids: {}, ...(state.ui ? { ui: { port: state.ui.port, bin: state.ui.bin } } : {}) });
  if (options.wipe) fs.rmSync(dir, { recursive: true, force: true });
  log(`stopped${options.wipe ? ' and deleted' : ''} the cluster in ${dir}`);
}

/** The state of the cluster in clusterDir(); throws when none was brought up there. */
export function readClusterState(): ClusterState {
  const state = readState(clusterDir());
  if (!state) throw new Error(`no cluster in ${clusterDir()}: run npm run cluster first`);
  return state;
}

/** Drills: SIGKILL one service process (no graceful shutdown) and wait until it is gone. */
export async function killService(service: Service): Promise<void> {
  const pid = readClusterState().pids[service];
  if (!running(pid)) throw new Error(`the ${service} service is not running`);
  process.kill(pid!, 'SIGKILL');
  while (running(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Drills: start a service that was killed again, on its recorded ports and config, and record its new pid. */
export function restartService(service: Service): number {
  const state = readClusterState();
  if (running(state.pids[service])) throw new Error(`the ${service} service is still running (pid ${state.pids[service]})`);
  state.pids[service] = startService(state, service);
  writeState(state);
  return state.pids[service];
}

/** Drills: stop the cluster's PostgreSQL (fast shutdown: open connections are cut), keep it down for `downMs`, start it again. */
export async function restartPostgres(downMs = 0): Promise<void> {
  const state = readClusterState();
  pgCtl(state, '-m', 'fast', '-w', 'stop');
  await new Promise((resolve) => setTimeout(resolve, downMs));
  startPostgres(state);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--down')) return clusterDown({ wipe: args.includes('--wipe') });
  const state = await clusterUp();
  console.log(`Temporal cluster at ${state.address} (namespace default); data and logs in ${state.dir}`);
  console.log(`  services: ${SERVICES.map((s) => `${s} pid ${state.pids[s]} (metrics 127.0.0.1:${state.ports[s].metrics})`).join(', ')}`);
  console.log(`  PostgreSQL: 127.0.0.1:${state.postgres.port}`);
  const ui = uiUrl(state);
  console.log(ui ? `  Web UI: ${ui} (read-only unless AGENT_TEAMS_UI_WRITE_ACTIONS=1)` : '  Web UI: none (the UI server did not build here; see above)');
  console.log(`  use it: TEMPORAL_ADDRESS=${state.address} npm run worker; stop it: npm run cluster -- --down`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`[cluster] failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
