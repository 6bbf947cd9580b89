/**
 * The compose file's `temporal-namespace` job (deploy/scripts/create-namespace.sh), run here as the
 * admin-tools image runs it (`/bin/sh` and the `temporal` CLI on PATH) against the test's dev server,
 * on a namespace of its own: it creates the namespace with its retention, registers the search
 * attributes the compose file lists, and runs again harmlessly.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureTemporalCli } from '../../scripts/devServer';
import { SEARCH_ATTRIBUTE_REGISTRATIONS } from '../../shared/contract/searchAttributes';
import { address, uniqueId } from '../support/temporal';

const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'deploy', 'scripts', 'create-namespace.sh');

let bin: string;
let cli: string;
beforeAll(() => {
  cli = ensureTemporalCli();
  bin = fs.mkdtempSync(path.join(os.tmpdir(), 'namespace-job-bin-'));
  fs.symlinkSync(cli, path.join(bin, 'temporal'));
});
afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

function job(env: Record<string, string>): { status: number | null; output: string } {
  const r = spawnSync('sh', [SCRIPT], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: bin, TEMPORAL_ADDRESS: address(), SLEEP_SECONDS: '1', MAX_ATTEMPTS: '20', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

function temporalJson(...args: string[]): unknown {
  const r = spawnSync(cli, [...args, '--address', address(), '--output', 'json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`temporal ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const retentionOf = (namespace: string): string =>
  (temporalJson('operator', 'namespace', 'describe', '--namespace', namespace) as { config: { workflowExecutionRetentionTtl: string } }).config
    .workflowExecutionRetentionTtl;

function customAttributes(namespace: string): string[] {
  const listed = temporalJson('operator', 'search-attribute', 'list', '--namespace', namespace) as { customAttributes?: Record<string, string> };
  const typeName = (type: string): string => type.replace(/^INDEXED_VALUE_TYPE_/, '').toLowerCase();
  return Object.entries(listed.customAttributes ?? {}).map(([name, type]) => `${name}=${typeName(type)}`);
}

test('the namespace job creates the namespace with its retention and registers the search attributes, and a second run only updates the retention', () => {
  const namespace = uniqueId('compose-ns');
  const attributes = SEARCH_ATTRIBUTE_REGISTRATIONS.join(' ');

  const first = job({ NAMESPACE: namespace, NAMESPACE_RETENTION: '72h', SEARCH_ATTRIBUTES: attributes });
  expect(first).toEqual({ status: 0, output: expect.stringContaining(`namespace ${namespace} (retention 72h) has the search attributes`) as string });
  expect(retentionOf(namespace)).toBe(`${72 * 3600}s`);
  // The CLI lists types as INDEXED_VALUE_TYPE_KEYWORD; compare names and types case-insensitively.
  const expected = SEARCH_ATTRIBUTE_REGISTRATIONS.map((r) => r.toLowerCase());
  expect(
    customAttributes(namespace)
      .map((a) => a.toLowerCase())
      .filter((a) => expected.includes(a))
      .sort(),
  ).toEqual([...expected].sort());

  const second = job({ NAMESPACE: namespace, NAMESPACE_RETENTION: '96h', SEARCH_ATTRIBUTES: attributes });
  expect(second.status).toBe(0);
  expect(retentionOf(namespace)).toBe(`${96 * 3600}s`);
});

test('the namespace job refuses a search attribute that is not Name=Type, and exits non-zero so the worker does not start', () => {
  const r = job({ NAMESPACE: uniqueId('compose-ns-bad'), SEARCH_ATTRIBUTES: 'AgentTeamId=Keyword AgentTeamRole' });
  expect(r.status).toBe(1);
  expect(r.output).toContain("'AgentTeamRole' in SEARCH_ATTRIBUTES is not Name=Type");
});
