/**
 * The real CLI (a separate process, as a person runs it) given a Temporal address that carries
 * credentials (issue 21): TEMPORAL_ADDRESS, --address or a profile's address as a scheme-less
 * `user:password@host:port`, a gRPC target `dns:///user:pw@host:port` or a URL. No server is
 * needed: the SDK refuses such an address before connecting, and its error quotes it. What the
 * CLI prints names the host and port, never the password (nor, for the address it names itself,
 * the user). The Web UI links built from a TEMPORAL_UI_URL with credentials, on the dev server:
 * test/integration/cliCredentials.test.ts.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** Runs the CLI with these environment variables (TEMPORAL_* of this process left out) and arguments. */
async function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('TEMPORAL_')));
  try {
    const { stdout, stderr } = await run(process.execPath, ['-r', 'ts-node/register/transpile-only', 'cli/index.ts', ...args], {
      cwd: ROOT,
      env: { ...base, TEMPORAL_CONFIG_FILE: path.join(os.tmpdir(), 'agent-teams-no-such-config.toml'), ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

jest.setTimeout(120_000);

test.each([
  ['TEMPORAL_ADDRESS, scheme-less', { TEMPORAL_ADDRESS: 'alice:s3cret@127.0.0.1:1' }, [], '***@127.0.0.1:1', ['s3cret', 'alice']],
  ['--address, a gRPC target', {}, ['--address', 'dns:///bob:pw-4321@127.0.0.1:1'], 'dns:///***@127.0.0.1:1', ['pw-4321', 'bob']],
  ['TEMPORAL_ADDRESS, a URL', { TEMPORAL_ADDRESS: 'http://admin:hunter2@127.0.0.1:1' }, [], 'http://***@127.0.0.1:1', ['hunter2', 'admin']],
])('%s with credentials: the CLI error names the host, not the credentials', async (_name, env, flags, shown, secrets) => {
  const result = await cli(env, ...flags, '--timeout', '5', 'status', 'team-1');
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`error (TemporalUnreachable): cannot reach Temporal at ${shown} (`);
  for (const secret of secrets) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
});

test("a profile's address with credentials (TEMPORAL_CONFIG_FILE): neither the CLI's line nor the SDK's error it quotes shows them", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-cli-credentials-'));
  const file = path.join(dir, 'temporal.toml');
  fs.writeFileSync(file, '[profile.default]\naddress = "carol:t0ps3cret@127.0.0.1:1"\n');
  try {
    const result = await cli({ TEMPORAL_CONFIG_FILE: file }, '--timeout', '5', 'roster', 'team-1');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach Temporal at ***@127.0.0.1:1 (');
    expect(result.stderr).toContain('127.0.0.1:1');
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/t0ps3cret|carol/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
