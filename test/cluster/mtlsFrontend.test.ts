/**
 * Issue 21, "a network opt-in without authority", against a frontend that really requires mTLS.
 * With AGENT_TEAMS_BASH_NETWORK=on a member's bash shares the host's network and reaches the
 * Temporal frontend; what is meant to keep it without authority is that the frontend requires a
 * client certificate the sandbox never sees (activities/tools/sandboxNetwork.ts, credentials.ts).
 *
 * This file starts its own Temporal server (test/support/mtlsServer.ts: the real `server` binary,
 * all services in one process, SQLite in memory, `requireClientAuth: true`), whatever server the
 * rest of the run targets, and runs the project's worker (worker/main.ts, a separate process) on it
 * with the worker's certificate from TEMPORAL_TLS_* and the network on. The directory holding the
 * certificate is bound into the sandbox (AGENT_TEAMS_BASH_BIND), world-readable, beside a file
 * that is no credential, so only the credential masks stand between bash and the key.
 *
 * A member's bash, on the scripted model, then plays the attacker: it reads the key, certificate and
 * CA the worker's environment names, calls the frontend over TLS without a client certificate (TLS
 * 1.3 and 1.2), with the worker's (masked) files, with a certificate it made itself, through
 * `openssl s_client`, and over plain-text HTTP/2. Every call is refused, while the same probe from
 * the host with the worker's certificate is answered. The Team serves on (a task is created) with
 * 0 failed workflow tasks and 0 terminations, and the worker gave no warning about the network at
 * start, which it does give for the same configuration without the certificate.
 *
 * What each attempt got is written to test-artifacts/cluster/mtls-frontend.txt.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { answer, script, scriptText, send, tool } from '../../activities/providers/scriptedModelScript';
import { networkAuthorityWarning } from '../../activities/tools/sandboxNetwork';
import { connectionOptionsFromEnv } from '../../client/connection';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import { chainReport, teamWorkflowIds } from '../support/adversarial';
import { FRONTEND_PROBE_PYTHON } from '../support/frontendProbe';
import { startMtlsServer, type MtlsServer } from '../support/mtlsServer';
import { eventually, teammateState, toolResult } from '../support/teams';
import { tempCheckout, uniqueId } from '../support/temporal';
import { spawnWorkerProcess, type WorkerProcess } from '../support/workerProcess';

const ARTIFACT = path.join(__dirname, '..', '..', 'test-artifacts', 'cluster', 'mtls-frontend.txt');

let server: MtlsServer | undefined;
let connection: Connection | undefined;
let client: Client;
let worker: WorkerProcess | undefined;
let checkoutRoot: string | undefined;
let workerEnv: Record<string, string>;
const taskQueue = uniqueId('tq-mtls');
const startedAt = Date.now();

beforeAll(async () => {
  server = await startMtlsServer(60_000);
  workerEnv = { ...server.workerEnv, AGENT_TEAMS_BASH_NETWORK: 'on', AGENT_TEAMS_BASH_BIND: server.worker.dir };
  // The test's own client connects as the worker does: from the same variables, through client/connection.ts.
  const options = connectionOptionsFromEnv(workerEnv);
  connection = await Connection.connect({ address: options.address, ...(options.tls !== undefined ? { tls: options.tls } : {}), connectTimeout: 10_000 });
  client = new Client({ connection, namespace: options.namespace });
  checkoutRoot = tempCheckout();
  worker = await spawnWorkerProcess(taskQueue, { checkoutRoot, env: workerEnv });
}, 150_000);

afterAll(async () => {
  if (worker) {
    // SIGTERM, then SIGKILL if the worker has not shut down within 15 s.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(() => resolve(worker?.kill()), 15_000)));
    await Promise.race([worker.stop(), late]);
    clearTimeout(timer);
  }
  await connection?.close();
  await server?.stop();
  if (checkoutRoot) fs.rmSync(checkoutRoot, { recursive: true, force: true });
}, 60_000);

interface Attempt {
  label: string;
  command: string;
  exitCode: unknown;
  stdout: string;
  stderr: string;
}

/** The probe run on the host (not sandboxed), with or without the worker's credentials. */
function hostProbe(label: string, args: string[]): Attempt {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-probe-'));
  try {
    const file = path.join(dir, 'probe.py');
    fs.writeFileSync(file, FRONTEND_PROBE_PYTHON);
    const run = spawnSync('python3', [file, ...args], { encoding: 'utf8', timeout: 30_000 });
    return {
      label,
      command: `python3 probe.py ${args.join(' ')}`,
      exitCode: run.status ?? run.signal ?? run.error?.message,
      stdout: run.stdout,
      stderr: run.stderr,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('with the network on, a member’s bash reaches the mTLS frontend but gets no call through; the worker’s certificate does, from the host', async () => {
  if (!server) throw new Error('the mTLS server did not start');
  const { port, worker: tls } = server;
  const frontend = `127.0.0.1 ${port}`;
  const attacks: [label: string, command: string][] = [
    [
      'read the credential files the worker’s TEMPORAL_TLS_* variables name, a file beside them, and the environment',
      [
        `D=${tls.dir}`,
        `for f in client.key client.pem ca.pem README.txt; do echo "$f: $(stat -c '%F, %s bytes' "$D/$f" 2>&1)"; done`,
        `key=$(cat "$D/client.key" 2>&1); echo "cat client.key, exit $?: [$key]"`,
        `cert=$(cat "$D/client.pem" 2>&1); echo "cat client.pem, exit $?: [$cert]"`,
        `echo "cat README.txt: [$(cat "$D/README.txt" 2>&1)]"`,
        `echo "TEMPORAL_ variables: $(env | grep -c '^TEMPORAL_')"`,
      ].join('\n'),
    ],
    ['gRPC over TLS without a client certificate', `python3 probe.py ${frontend} tls`],
    ['gRPC over TLS 1.2 without a client certificate', `python3 probe.py ${frontend} tls12`],
    ['gRPC over TLS with the worker’s files at the paths its environment names', `python3 probe.py ${frontend} tls ${tls.ca} ${tls.cert} ${tls.key}`],
    [
      'gRPC over TLS with a client certificate the member made itself',
      `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout /tmp/own.key -out /tmp/own.pem -days 1 -subj /CN=lead ` +
        `2>/dev/null && ` +
        `python3 probe.py ${frontend} tls '' /tmp/own.pem /tmp/own.key`,
    ],
    [
      'openssl s_client without a client certificate',
      `timeout 15 openssl s_client -connect 127.0.0.1:${port} -servername localhost -alpn h2 -brief -ign_eof </dev/null 2>&1 | tail -n 2`,
    ],
    ['gRPC over plain-text HTTP/2', `python3 probe.py ${frontend} plain`],
  ];
  const attacker = script(
    tool('write_file', { path: 'probe.py', content: FRONTEND_PROBE_PYTHON, version: null }),
    ...attacks.map(([, command]) => tool('bash', { command, timeoutMs: 30_000 })),
    send('lead', script(answer('intruder done'))),
  );
  const teamId = uniqueId('mtls-frontend');
  await client.workflow.start(defs.TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: teamId,
    taskQueue,
    args: [{ teamId, agent: { profile: 'team', prompt: scriptText(tool('spawn_teammate', { name: 'intruder', message: attacker })) } }],
  });
  const team = TeamClient.attach(client, teamId);
  const lead = await eventually(
    () => team.handle().query(defs.getAgentStateQuery),
    (v) => v.status === 'answered',
    90_000,
  );
  expect(lead.finalAnswer).toBe('intruder done');
  const member = await eventually(
    () => teammateState(team, 'intruder'),
    (state) => state.status === 'idle',
    30_000,
  );
  const tools = member.conversation.filter((entry) => entry.role === 'tool');
  expect(tools.map((entry) => [entry.toolName, entry.ok])).toEqual([['write_file', true], ...attacks.map(() => ['bash', true]), ['send_message', true]]);
  const sandboxed: Attempt[] = tools
    .filter((entry) => entry.toolName === 'bash')
    .map((entry, index) => {
      const result = toolResult(entry);
      return {
        label: `in bash: ${attacks[index]![0]}`,
        command: attacks[index]![1],
        exitCode: result.exitCode,
        stdout: typeof result.stdout === 'string' ? result.stdout : '',
        stderr: typeof result.stderr === 'string' ? result.stderr : '',
      };
    });
  const withCert = hostProbe('on the host: gRPC over TLS with the worker’s certificate', [...frontend.split(' '), 'tls', tls.ca, tls.cert, tls.key]);
  const withoutCert = hostProbe('on the host: gRPC over TLS without a client certificate', [...frontend.split(' '), 'tls']);
  fs.mkdirSync(path.dirname(ARTIFACT), { recursive: true });
  fs.writeFileSync(
    ARTIFACT,
    [...sandboxed, withCert, withoutCert]
      .map((a) => `## ${a.label}\n$ ${a.command}\nexit: ${String(a.exitCode)}\nstdout:\n${a.stdout}${a.stderr ? `stderr:\n${a.stderr}` : ''}\n`)
      .join('\n'),
  );

  const [files, tls13, tls12, workerFiles, ownCert, sClient, plain] = sandboxed;
  // The credential files show as the /dev/null bound over them, and reading one is refused (a device node on a mount of
  // the sandbox's user namespace: EACCES) or empty; the file beside them reads; no TEMPORAL_ variable is set.
  for (const name of ['client.key', 'client.pem', 'ca.pem']) expect(files?.stdout).toContain(`${name}: character special file, 0 bytes`);
  for (const name of ['client.key', 'client.pem']) {
    expect(files?.stdout).toMatch(
      new RegExp(`cat ${name.replace('.', '\\.')}, exit (0: \\[\\]|1: \\[cat: \\S+/${name.replace('.', '\\.')}: Permission denied\\])`),
    );
  }
  expect(files?.stdout).toContain(`cat README.txt: [${fs.readFileSync(tls.readme, 'utf8').trim()}]`);
  expect(files?.stdout).toContain('TEMPORAL_ variables: 0');
  expect(files?.stdout).not.toMatch(/BEGIN|PRIVATE KEY/);
  // The network is on: every probe connects to the frontend's port; none gets a call through.
  for (const attempt of [tls13, tls12, workerFiles, ownCert, plain]) {
    expect(attempt?.stdout).toContain(`tcp: connected to 127.0.0.1:${port}`);
    expect(attempt?.exitCode).toBe(2);
  }
  for (const attempt of sandboxed) expect(`${attempt.stdout}${attempt.stderr}`).not.toContain('GRPC_OK');
  // TLS 1.3: the client's side of the handshake completes, and the server's first word is the alert.
  expect(tls13?.stdout).toContain('tls: handshake done (TLSv1.3, alpn h2, client certificate none)');
  expect(tls13?.stdout).toMatch(/grpc: failed: SSLError: .*certificate required/i);
  expect(tls12?.stdout).toMatch(/tls: handshake failed: SSLError: .*handshake failure/i);
  expect(workerFiles?.stdout).toMatch(/tls: credentials unusable: (PermissionError|SSLError)/);
  expect(ownCert?.stdout).toMatch(/grpc: failed: SSLError: .*unknown ca/i);
  expect(sClient?.stdout).toMatch(/certificate required/i);
  expect(plain?.stdout).toMatch(/grpc: failed: (EOFError: connection closed by the server|ConnectionResetError)/);
  // The probe is not broken: from the host, the worker's certificate gets the answer; without one, the same refusal as in bash.
  expect(withCert).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/GRPC_OK GetSystemInfo serverVersion=\d+\.\d+\.\d+/) });
  expect(withoutCert.stdout).toMatch(/grpc: failed: SSLError: .*certificate required/i);

  // Still serving: the board takes a mutation, and no workflow task failed or run was terminated.
  await team.createTask({ subject: 'after the intrusion' });
  for (const id of await teamWorkflowIds(client, teamId)) {
    const chain = await chainReport(client, id);
    expect([id, chain.failedWorkflowTasks, chain.terminatedRuns]).toEqual([id, 0, 0]);
  }
}, 150_000);

test('the worker gave no network warning at start with its client certificate, and gives one for the same configuration without it', () => {
  if (!worker) throw new Error('the worker did not start');
  const { stdout, stderr } = worker.output();
  // The start-up check's line goes through the worker's one inert log sink: stderr in the default text format.
  const startUp = /bash sandbox: bubblewrap \(\S+\) as uid \d+, network on|bash sandbox: bubblewrap \(\S+\) as the worker's user, network on/;
  expect(`${stdout}${stderr}`).toMatch(startUp);
  expect(`${stdout}${stderr}`).not.toMatch(/without credentials/);
  expect(networkAuthorityWarning(workerEnv)).toBeNull();
  const withoutClientCert = Object.fromEntries(Object.entries(workerEnv).filter(([name]) => !/^TEMPORAL_TLS_CLIENT_/.test(name)));
  expect(networkAuthorityWarning(withoutClientCert)).toMatch(
    new RegExp(`AGENT_TEAMS_BASH_NETWORK=on, and this worker reaches the Temporal frontend at 127\\.0\\.0\\.1:${server?.port} without credentials`),
  );
  console.log(`mtlsFrontend: ${((Date.now() - startedAt) / 1000).toFixed(1)} s from the file's start to here (server, worker, Team, probes)`);
});
