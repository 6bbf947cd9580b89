/**
 * The CLI's Web UI links on the real server when TEMPORAL_UI_URL carries credentials (issue 21):
 * `user:password@` and a secret query parameter (`?token=`). `start`, `status --json` and the page
 * `panel` serves show the link with the Web UI's host, path, namespace and workflow id, and
 * *** where the credentials were; the secrets appear nowhere in stdout, stderr or the page. A
 * Temporal address with credentials through the CLI: test/host/cliCredentials.test.ts.
 */
import { execFile, spawn } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { useClientAndWorker } from '../support/harness';
import { address, uniqueId } from '../support/temporal';

const ROOT = path.resolve(__dirname, '../..');
const UI_URL = 'https://ops:ui-s3cret@temporal-ui.internal:8080/?token=ui-tok3n';
const SECRETS = /ui-s3cret|ui-tok3n|ops:/;
const run = promisify(execFile);
const env = useClientAndWorker();

/** The CLI as a separate process on the test server, with TEMPORAL_UI_URL set to UI_URL. */
async function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['-r', 'ts-node/register/transpile-only', 'cli/index.ts', '--address', address(), ...args], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_UI_URL: UI_URL },
  });
}

test('start and status --json: the Web UI links keep host, namespace and workflow id, never the credentials', async () => {
  const teamId = uniqueId('cli-ui-cred');
  const page = `https://***@temporal-ui.internal:8080/namespaces/default/workflows/${teamId}?token=***`;
  const started = await cli('start', teamId, '--task-queue', env.worker.taskQueue);
  expect(started.stdout).toContain(`Web UI: ${page}`);
  expect(started.stdout).toContain(
    `Web UI, the whole Team: https://***@temporal-ui.internal:8080/namespaces/default/workflows?query=${encodeURIComponent(`AgentTeamId = "${teamId}"`)}&token=***`,
  );
  const status = await cli('--json', 'status', teamId);
  expect((JSON.parse(status.stdout) as { webUi: string }).webUi).toBe(page);
  for (const output of [started, status]) expect(`${output.stdout}${output.stderr}`).not.toMatch(SECRETS);
  await env.client.workflow.getHandle(teamId).terminate('test over');
});

test("the panel's Team page links the Web UI without the credentials", async () => {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'cli/index.ts', '--address', address(), 'panel', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_UI_URL: UI_URL },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const printed = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const url = /panel: (http:\/\/\S+)/.exec(output)?.[1];
        if (url) resolve(url);
      });
      child.once('exit', (code) => reject(new Error(`the panel exited (${code}) before printing its URL: ${output}`)));
    });
    const html = await new Promise<string>((resolve, reject) => {
      http
        .get(new URL('/teams/team-1', printed), (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve(body));
          response.on('error', reject);
        })
        .on('error', reject);
    });
    expect(html).toContain('href="https://***@temporal-ui.internal:8080/namespaces/default/workflows/team-1?token=***"');
    expect(html).not.toMatch(SECRETS);
    expect(output).not.toMatch(SECRETS);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
  }
});
