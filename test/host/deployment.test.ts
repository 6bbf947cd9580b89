/**
 * The self-hosted deployment description (docker-compose.yml, Dockerfile, deploy/dynamicconfig).
 *
 * No Docker engine runs where these tests run, so nothing is pulled, built or started: the compose
 * file is checked by docker-compose itself (`config -q` via scripts/validate-compose.sh, which
 * installs Debian's docker-compose 1.29.2 when it is missing and we are root), and the resolved
 * configuration that `docker-compose config` prints is checked for what the project relies on.
 */
import { spawnSync, SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SEARCH_ATTRIBUTE_REGISTRATIONS } from '../../shared/searchAttributes';

const ROOT = resolve(__dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'validate-compose.sh');
const COMPOSE = join(ROOT, 'docker-compose.yml');

// Installing docker-compose with apt can take a minute or more on a fresh machine.
const INSTALL_TIMEOUT_MS = 600_000;
jest.setTimeout(INSTALL_TIMEOUT_MS + 60_000);

function run(cmd: string, args: string[], input?: string): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, {
    cwd: ROOT,
    encoding: 'utf8',
    input,
    timeout: INSTALL_TIMEOUT_MS,
    maxBuffer: 32 * 1024 * 1024,
  });
}

function describeRun(r: SpawnSyncReturns<string>): string {
  return `status=${r.status} signal=${r.signal ?? ''} error=${r.error?.message ?? ''}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`;
}

type Service = {
  image?: string;
  build?: { context: string; dockerfile?: string };
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  entrypoint?: string[];
  command?: string[];
  ports?: Array<{ published: number | string; target: number }>;
  volumes?: string[];
  healthcheck?: { test: string[] };
};
type ComposeConfig = { services: Record<string, Service>; volumes?: Record<string, unknown> };

describe('self-hosted deployment (docker-compose.yml)', () => {
  let validate: SpawnSyncReturns<string>;
  let configText = '';
  let config: ComposeConfig;

  beforeAll(() => {
    validate = run('bash', [SCRIPT]);
    if (validate.status !== 0) return; // reported by the first test
    const printed = run('docker-compose', ['-f', COMPOSE, 'config']);
    if (printed.status !== 0) throw new Error(`docker-compose config failed:\n${describeRun(printed)}`);
    configText = printed.stdout;
    // docker-compose 1.29 has no `config --format json`; it depends on python3-yaml, so use that
    // to read its YAML output.
    const parsed = run('python3', ['-c', 'import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], configText);
    if (parsed.status !== 0) throw new Error(`could not parse docker-compose config output:\n${describeRun(parsed)}`);
    config = JSON.parse(parsed.stdout) as ComposeConfig;
  });

  test('scripts/validate-compose.sh accepts the compose file (docker-compose config -q)', () => {
    expect({ status: validate.status, output: validate.status === 0 ? 'ok' : describeRun(validate) }).toEqual({
      status: 0,
      output: 'ok',
    });
    expect(validate.stdout).toContain('validate-compose: OK');
  });

  test('the resolved config defines postgresql, temporal, the admin-tools job, temporal-ui and worker', () => {
    for (const name of ['postgresql', 'temporal', 'temporal-admin-tools', 'temporal-ui', 'worker']) {
      expect(configText).toMatch(new RegExp(`^  ${name}:$`, 'm'));
      expect(config.services[name]).toBeDefined();
    }
  });

  test('PostgreSQL 16 keeps its data in a named volume and has a healthcheck', () => {
    const pg = config.services.postgresql!;
    expect(pg.image).toBe('postgres:16');
    expect(pg.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/^postgresql-data:\/var\/lib\/postgresql\/data/)]));
    expect(config.volumes).toHaveProperty('postgresql-data');
    expect(pg.healthcheck?.test.join(' ')).toContain('pg_isready');
  });

  test('the Temporal server runs on PostgreSQL with the mounted dynamic config, after the DB is healthy', () => {
    const t = config.services.temporal!;
    expect(t.image).toBe('temporalio/auto-setup:1.29.1');
    expect(t.depends_on?.postgresql?.condition).toBe('service_healthy');
    expect(t.environment).toMatchObject({
      DB: 'postgres12',
      DB_PORT: '5432',
      POSTGRES_SEEDS: 'postgresql',
      DYNAMIC_CONFIG_FILE_PATH: 'config/dynamicconfig/development-sql.yaml',
    });
    expect(t.environment?.POSTGRES_USER).toBe(config.services.postgresql!.environment?.POSTGRES_USER);
    expect(t.environment?.POSTGRES_PWD).toBe(config.services.postgresql!.environment?.POSTGRES_PASSWORD);
    expect(t.ports).toEqual(expect.arrayContaining([expect.objectContaining({ published: 7233, target: 7233 })]));

    // The mount must bring deploy/dynamicconfig to where DYNAMIC_CONFIG_FILE_PATH points
    // (relative to the image's working directory /etc/temporal), and the file must exist.
    const mount = t.volumes?.find((v) => v.includes(':/etc/temporal/config/dynamicconfig'));
    expect(mount).toBeDefined();
    const hostDir = mount!.split(':')[0]!;
    expect(resolve(hostDir)).toBe(join(ROOT, 'deploy', 'dynamicconfig'));
    expect(readFileSync(join(hostDir, 'development-sql.yaml'), 'utf8')).toContain('limit.maxIDLength');
  });

  test('the admin-tools job registers AgentTeamId, AgentTeamRole and AgentTeamMember as Keyword, retrying', () => {
    const job = config.services['temporal-admin-tools']!;
    expect(job.image).toMatch(/^temporalio\/admin-tools:1\.29/);
    expect(job.depends_on).toHaveProperty('temporal');
    expect(job.entrypoint).toEqual(['/bin/sh', '-c']);
    expect(job.command).toHaveLength(1);
    const script = job.command![0]!;
    expect(script).toContain('temporal operator search-attribute create --namespace default');
    for (const name of ['AgentTeamId', 'AgentTeamRole', 'AgentTeamMember']) {
      expect(script).toContain(`--name ${name} --type Keyword`);
    }
    // ... and exactly the attributes the code registers on the dev server (shared/searchAttributes.ts).
    const registered = [...script.matchAll(/--name (\S+) --type (\S+)/g)].map((m) => `${m[1]}=${m[2]}`);
    expect(registered.sort()).toEqual([...SEARCH_ATTRIBUTE_REGISTRATIONS].sort());
    expect(script).toContain('--address temporal:7233');
    expect(script).toMatch(/until temporal operator search-attribute create/); // the retry loop
    expect(script).toMatch(/exit 1/); // ... which gives up eventually
  });

  test('temporal-ui points at the temporal service and is published on 8080', () => {
    const ui = config.services['temporal-ui']!;
    expect(ui.image).toBe('temporalio/ui:2.42.1');
    expect(ui.environment).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_CORS_ORIGINS: 'http://localhost:3000',
    });
    expect(ui.ports).toEqual(expect.arrayContaining([expect.objectContaining({ published: 8080, target: 8080 })]));
  });

  test('the worker is built here, reaches the temporal service, and starts after the search attributes exist', () => {
    const w = config.services.worker!;
    expect(w.build?.context).toBe(ROOT);
    expect(w.build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
    expect(w.environment).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'agent-teams',
    });
    // The host part of TEMPORAL_ADDRESS must be a service of this file.
    expect(Object.keys(config.services)).toContain(w.environment!.TEMPORAL_ADDRESS!.split(':')[0]);
    expect(w.depends_on?.temporal).toBeDefined();
    expect(w.depends_on?.['temporal-admin-tools']?.condition).toBe('service_completed_successfully');
  });

  test('the Dockerfile installs from the lockfile before copying the source and runs worker/main.ts', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const lines = dockerfile.split('\n').map((l) => l.trim());
    const index = (re: RegExp): number => lines.findIndex((l) => re.test(l));
    expect(lines).toContain('FROM node:20-bookworm-slim');
    const copyManifests = index(/^COPY .*package(\*|\.json).*\.\/$/);
    const npmCi = index(/^RUN npm ci\b/);
    const copyAll = index(/^COPY .*\. \.$/);
    expect(copyManifests).toBeGreaterThanOrEqual(0);
    expect(npmCi).toBeGreaterThan(copyManifests);
    expect(copyAll).toBeGreaterThan(npmCi);
    expect(dockerfile).toMatch(/CMD \["npx", "ts-node", "worker\/main\.ts"\]/);

    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git', 'coverage']));
  });

  describe('the validation script fails on a broken file', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'compose-check-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    test('a missing required service', () => {
      const file = join(dir, 'no-worker.yml');
      const original = readFileSync(COMPOSE, 'utf8');
      const workerStart = original.indexOf('\n  worker:\n');
      const volumesStart = original.indexOf('\nvolumes:\n');
      expect(workerStart).toBeGreaterThan(0);
      expect(volumesStart).toBeGreaterThan(workerStart);
      writeFileSync(file, original.slice(0, workerStart + 1) + original.slice(volumesStart + 1));
      const r = run('bash', [SCRIPT, file]);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/missing service\(s\).*\bworker\b/);
    });

    test('a file docker-compose rejects', () => {
      const file = join(dir, 'bad-condition.yml');
      writeFileSync(file, readFileSync(COMPOSE, 'utf8').replace('service_completed_successfully', 'service_finished_somehow'));
      const r = run('bash', [SCRIPT, file]);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('config -q rejected the file');
    });
  });
});
