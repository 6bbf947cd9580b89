/**
 * A real Temporal server (go.temporal.io/server's `server`, built by scripts/install-temporal-server.sh)
 * whose frontend requires a client certificate: all four services in one process, SQLite in memory,
 * free ports, a throwaway PKI made with `openssl`. For test/cluster/mtlsFrontend.test.ts, which runs
 * the project's worker against it; the server is this file's own, whatever server the test run targets.
 *
 * Layout of the temp dir (removed by stop()):
 *   server/  the CA (with its key), the frontend's certificate, the system worker's client
 *            certificate, the server's config and log: what a worker host never has;
 *   worker/  what a worker host has: its client certificate and key, the CA to check the server,
 *            and README.txt, which is no credential (a control: bash reads it when the directory is
 *            bound into its sandbox, so the credential files beside it are hidden by the mask alone).
 * worker/ and its files are world-readable on purpose: with a worker that is not root, bash runs as
 * the worker's own user, for whom file permissions hide nothing; the test must not rely on them either.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import Long from 'long';
import { freePort, stopProcess } from '../../scripts/devServer';
import { dynamicConfigYaml, singleClusterYaml } from '../../scripts/serverSettings';
import { errorMessage } from '../../shared/util/errors';
import { registerMissingSearchAttributes } from '../../worker/searchAttributeCheck';

const ROOT = path.resolve(__dirname, '../..');
const SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
/** The name the frontend's certificate is for (with 127.0.0.1), and the clients' TLS server name. */
export const MTLS_SERVER_NAME = 'localhost';

export interface WorkerTlsFiles {
  dir: string;
  cert: string;
  key: string;
  ca: string;
  /** Not a credential: the control file beside them. */
  readme: string;
}

export interface MtlsServer {
  /** 127.0.0.1:<port> of the frontend. */
  address: string;
  port: number;
  /** The worker's credentials (see the layout above). */
  worker: WorkerTlsFiles;
  /** The variables a worker connects with (client/connection.ts): address, namespace default, mTLS. */
  workerEnv: Record<string, string>;
  /** The server's log so far (last 4,000 characters). */
  logTail(): string;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s) and removes the temp dir. */
  stop(): Promise<void>;
}

/**
 * The directory holding `server`. A server that is not built yet is an error naming the command
 * to build it, not a build here: it takes minutes, longer than a test hook may wait. The cache
 * path and version are those of scripts/install-temporal-server.sh, which `npm run test:cluster`
 * (scripts/cluster.ts) runs before any test.
 */
export function temporalServerDir(env: NodeJS.ProcessEnv = process.env): string {
  const version = env.TEMPORAL_SERVER_VERSION || 'v1.29.1';
  const cache = env.AGENT_TEAMS_CACHE || path.join(env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache'), 'agent-teams-temporal');
  const marker = path.join(cache, `temporal-server-${version}`, '.installed-version');
  if (!fs.existsSync(marker) || fs.readFileSync(marker, 'utf8').trim() !== version) {
    throw new Error(`the Temporal server ${version} is not built (no ${marker}): run \`bash scripts/install-temporal-server.sh\` first (5-15 minutes, once)`);
  }
  const out = execFileSync('bash', [path.join(ROOT, 'scripts', 'install-temporal-server.sh'), '--print-dir'], {
    encoding: 'utf8',
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  const dir = out.trim().split('\n').pop();
  if (!dir || !fs.existsSync(path.join(dir, 'server'))) throw new Error(`install-temporal-server.sh printed no directory with a server binary (${out.trim()})`);
  return dir;
}

function openssl(cwd: string, args: string[]): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '');
    throw new Error(`openssl ${args.slice(0, 2).join(' ')} failed: ${stderr.trim() || errorMessage(error)}`);
  }
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A leaf certificate `<name>.pem` / `<name>.key` in `dir`, signed by the CA in `ca`. */
function leaf(dir: string, ca: string, name: string, usage: 'serverAuth' | 'clientAuth', subjectAltName: string): void {
  const ext = path.join(dir, `${name}.ext`);
  fs.writeFileSync(
    ext,
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      `extendedKeyUsage=${usage}`,
      'subjectKeyIdentifier=hash',
      'authorityKeyIdentifier=keyid',
      `subjectAltName=${subjectAltName}`,
      '',
    ].join('\n'),
  );
  openssl(dir, ['req', '-new', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  const serial = `0x${Date.now().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
  const caArgs = ['-CA', path.join(ca, 'ca.pem'), '-CAkey', path.join(ca, 'ca.key'), '-set_serial', serial];
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, ...caArgs, '-days', '1', '-extfile', ext, '-out', `${name}.pem`]);
  fs.rmSync(path.join(dir, `${name}.csr`));
  fs.rmSync(ext);
}

/** The CA, the frontend's certificate and two client certificates: the system worker's (in server/) and the worker's (in worker/). */
function makePki(serverDir: string, workerDir: string): WorkerTlsFiles {
  openssl(serverDir, [
    'req',
    '-x509',
    '-new',
    ...EC_KEY,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '1',
    '-subj',
    '/CN=agent-teams-test-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  leaf(serverDir, serverDir, 'frontend', 'serverAuth', `DNS:${MTLS_SERVER_NAME},IP:127.0.0.1`);
  leaf(serverDir, serverDir, 'system-worker', 'clientAuth', 'URI:spiffe://agent-teams-test/system-worker');
  leaf(workerDir, serverDir, 'client', 'clientAuth', 'URI:spiffe://agent-teams-test/worker');
  fs.copyFileSync(path.join(serverDir, 'ca.pem'), path.join(workerDir, 'ca.pem'));
  const readme = path.join(workerDir, 'README.txt');
  fs.writeFileSync(readme, 'agent-teams test: the worker host keeps its Temporal client certificate here\n');
  for (const file of fs.readdirSync(workerDir)) fs.chmodSync(path.join(workerDir, file), 0o644);
  fs.chmodSync(workerDir, 0o755);
  return { dir: workerDir, cert: path.join(workerDir, 'client.pem'), key: path.join(workerDir, 'client.key'), ca: path.join(workerDir, 'ca.pem'), readme };
}

type Ports = Record<(typeof SERVICES)[number], { grpc: number; membership: number }>;

/**
 * The server's config: the SQLite plugin in memory (it creates its schema itself for mode=memory),
 * and TLS on the frontend only: `global.tls.frontend.server` requires a client certificate signed
 * by the CA; `global.tls.systemWorker` is the client side of the server's own system worker (it
 * connects to this frontend like any client, so it needs a client certificate too). History and
 * matching talk to each other in the same process without TLS (internode is not configured).
 */
function serverConfig(dir: string, ports: Ports): string {
  const file = (name: string) => JSON.stringify(path.join(dir, name));
  const store = `
      sql:
        pluginName: sqlite
        databaseName: default
        connectAddr: localhost
        connectProtocol: tcp
        connectAttributes:
          mode: memory
          cache: private
        maxConns: 1
        maxIdleConns: 1
        maxConnLifetime: 1h`;
  const services = SERVICES.map(
    (s) => `
  ${s}:
    rpc:
      grpcPort: ${ports[s].grpc}
      membershipPort: ${ports[s].membership}
      bindOnLocalHost: true`,
  ).join('');
  return `# Written by test/support/mtlsServer.ts.
log:
  stdout: true
  level: warn
persistence:
  defaultStore: sqlite-default
  visibilityStore: sqlite-visibility
  numHistoryShards: 1
  datastores:
    sqlite-default:${store}
    sqlite-visibility:${store}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
  tls:
    frontend:
      server:
        certFile: ${file('frontend.pem')}
        keyFile: ${file('frontend.key')}
        requireClientAuth: true
        clientCaFiles: [${file('ca.pem')}]
    systemWorker:
      certFile: ${file('system-worker.pem')}
      keyFile: ${file('system-worker.key')}
      client:
        serverName: ${MTLS_SERVER_NAME}
        rootCaFiles: [${file('ca.pem')}]
services:${services}
${singleClusterYaml(`${MTLS_SERVER_NAME}:${ports.frontend.grpc}`, file('dynamicconfig.yaml'))}`;
}

function dynamicConfig(): string {
  return dynamicConfigYaml({ 'system.forceSearchAttributesCacheRefreshOnRead': true });
}

/** Repeats `attempt` until it resolves; throws `describe(lastError)` at the deadline or when the server exited. */
async function retry<T>(deadline: number, server: ChildProcess, describe: (last: string) => string, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null || server.pid === undefined) {
      throw new Error(describe(`the server is not running (${server.exitCode ?? server.signalCode ?? 'it did not start'})`));
    }
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(describe(errorMessage(error)));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/**
 * Starts the server and waits (at most `readyMs`) until its frontend answers over mTLS, the
 * namespace `default` exists and has the project's search attributes. Throws with the server's log
 * tail when it does not get there; nothing is left running then.
 */
export async function startMtlsServer(readyMs = 60_000): Promise<MtlsServer> {
  const bin = path.join(temporalServerDir(), 'server');
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-mtls-'));
  fs.chmodSync(top, 0o711); // bash's user may pass through to worker/ (bound into its sandbox), and read nothing else here
  const serverDir = path.join(top, 'server');
  fs.mkdirSync(serverDir, { mode: 0o700 });
  fs.mkdirSync(path.join(serverDir, 'config'));
  const workerDir = path.join(top, 'worker');
  const ports = {} as Ports;
  let worker: WorkerTlsFiles;
  try {
    fs.mkdirSync(workerDir);
    worker = makePki(serverDir, workerDir);
    for (const service of SERVICES) ports[service] = { grpc: await freePort(), membership: await freePort() };
    fs.writeFileSync(path.join(serverDir, 'config', 'mtls.yaml'), serverConfig(serverDir, ports));
    fs.writeFileSync(path.join(serverDir, 'dynamicconfig.yaml'), dynamicConfig());
  } catch (error) {
    fs.rmSync(top, { recursive: true, force: true });
    throw error;
  }

  const logFile = path.join(serverDir, 'server.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(bin, ['--root', serverDir, '--config', 'config', '--env', 'mtls', '--allow-no-auth', 'start'], { stdio: ['ignore', out, out] });
  fs.closeSync(out);
  let spawnError = '';
  child.once('error', (error) => (spawnError = errorMessage(error)));
  // Never leave a server behind: if this process exits for any reason, take it along.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));
  const logTail = (): string => {
    try {
      return fs.readFileSync(logFile, 'utf8').slice(-4_000);
    } catch {
      return '';
    }
  };
  const stop = async (): Promise<void> => {
    await stopProcess(child);
    fs.rmSync(top, { recursive: true, force: true });
  };

  const port = ports.frontend.grpc;
  const address = `127.0.0.1:${port}`;
  const workerEnv = {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TLS_CLIENT_CERT_PATH: worker.cert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: worker.key,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: worker.ca,
    TEMPORAL_TLS_SERVER_NAME: MTLS_SERVER_NAME,
    // No profile file and no other credential from the test's own environment (empty is unset, client/connection.ts):
    // the variables above are the whole configuration.
    TEMPORAL_CONFIG_FILE: path.join(top, 'no-temporal.toml'),
    TEMPORAL_PROFILE: '',
    TEMPORAL_API_KEY: '',
  };
  const deadline = Date.now() + readyMs;
  const fail = (step: string) => (last: string) =>
    `the mTLS Temporal server at ${address} ${step} within ${readyMs / 1000} s (${spawnError || last}); its log:\n${logTail()}`;
  try {
    const tls = {
      serverNameOverride: MTLS_SERVER_NAME,
      serverRootCACertificate: fs.readFileSync(worker.ca),
      clientCertPair: { crt: fs.readFileSync(worker.cert), key: fs.readFileSync(worker.key) },
    };
    const connection = await retry(deadline, child, fail('did not answer over mTLS'), async () => {
      const c = await Connection.connect({ address, tls, connectTimeout: 2_000 });
      try {
        await c.withDeadline(Date.now() + 5_000, () => c.workflowService.getSystemInfo({}));
        return c;
      } catch (error) {
        await c.close();
        throw error;
      }
    });
    try {
      const bounded = <T>(fn: () => Promise<T>) => connection.withDeadline(Date.now() + 5_000, fn);
      // The server makes its system namespace first and may refuse for a moment; a retry after a lost answer finds it there.
      await retry(deadline, child, fail('did not register the namespace default'), async () => {
        try {
          await bounded(() => connection.workflowService.describeNamespace({ namespace: 'default' }));
        } catch {
          await bounded(() =>
            connection.workflowService.registerNamespace({ namespace: 'default', workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(86_400) } }),
          );
        }
      });
      // A namespace just registered reaches the frontend's cache within seconds (system.namespaceCacheRefreshInterval, 2 s).
      await retry(deadline, child, fail('did not register the search attributes'), () => bounded(() => registerMissingSearchAttributes(connection, 'default')));
    } finally {
      await connection.close();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, port, worker, workerEnv, logTail, stop };
}
