/**
 * The production worker as the Dockerfile builds and runs it, short of Docker itself: the files the
 * Dockerfile's build stage COPYs, and only those, laid out in a staging directory as in the image's
 * /build, `npm run build` there (tsc with tsconfig.build.json, then scripts/bundle-workflows.ts),
 * then the runtime stage: a directory outside the checkout with package.json, the lockfile,
 * `npm ci --omit=dev --omit=optional --offline` (from npm's cache, which the checkout's own `npm ci` filled) and the
 * built dist/, and `node dist/worker/main.js` there with AGENT_TEAMS_WORKFLOW_BUNDLE set, in a
 * separate process on the dev server, with devDependencies also made unloadable
 * (test/support/noDevDependencies.cjs), driving one agent Team to its answer on the scripted model.
 *
 * The Node that runs the build and the worker is the one running jest: under npm test, the release
 * package.json pins, which is the Dockerfile's NODE_VERSION (test/unit/nodePin.test.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { answer, script, scriptText, send, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import { useClientAndWorkerProcesses } from '../support/harness';
import { eventually } from '../support/teams';
import { tempCheckout, uniqueId } from '../support/temporal';

const ROOT = path.resolve(__dirname, '../..');
// Inside the checkout, so that node_modules resolves from it as from /build/node_modules in the image.
const STAGE = path.join(ROOT, 'test-artifacts', 'compiled-worker');
const OUT = path.join(STAGE, 'dist');
// The image's /app: outside the checkout, so nothing resolves from the checkout's node_modules.
const RUNTIME = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-runtime-'));
const DIST = path.join(RUNTIME, 'dist');
const BUNDLE = path.join(DIST, 'workflow-bundle.js');
const GUARD = path.join(ROOT, 'test', 'support', 'noDevDependencies.cjs');
const NODE = process.execPath;

/** What the image's environment has: no ts-node hooks, no NODE_OPTIONS, no model keys from the test's environment. */
const productionEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NODE_ENV: 'production',
  AGENT_TEAMS_WORKFLOW_BUNDLE: BUNDLE,
});

const env = useClientAndWorkerProcesses();

/** The build stage's `COPY <source>... <destination>` lines (not `--from`), as [sources, destination]. */
function buildStageCopies(): Array<[string[], string]> {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const build = dockerfile.split(/^FROM /m).find((stage) => / AS build\n/.test(stage)) ?? '';
  return [...build.matchAll(/^COPY (?!--)(.+)$/gm)].map((m) => {
    const parts = m[1]!.trim().split(/\s+/);
    return [parts.slice(0, -1), parts[parts.length - 1]!];
  });
}

beforeAll(() => {
  fs.rmSync(STAGE, { recursive: true, force: true });
  const copies = buildStageCopies();
  expect(copies.length).toBeGreaterThan(3);
  for (const [sources, destination] of copies) {
    for (const source of sources) {
      const target = destination.endsWith('/') ? path.join(STAGE, destination, path.basename(source)) : path.join(STAGE, destination);
      fs.cpSync(path.join(ROOT, source), target, { recursive: true });
    }
  }
  // `npm run build` as the image runs it, with NODE first on PATH so its scripts run under that Node.
  const withNode = { ...process.env, PATH: `${path.dirname(NODE)}:${process.env.PATH}` };
  execFileSync('npm', ['run', 'build'], { cwd: STAGE, stdio: 'pipe', env: withNode });
  // The runtime stage: production dependencies only, then the build output.
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, file), path.join(RUNTIME, file));
  execFileSync('npm', ['ci', '--omit=dev', '--omit=optional', '--offline', '--no-audit', '--no-fund'], { cwd: RUNTIME, stdio: 'pipe', env: withNode });
  fs.cpSync(OUT, DIST, { recursive: true });
}, 300_000);
afterAll(() => fs.rmSync(RUNTIME, { recursive: true, force: true }));

test("npm run build, from only the files the Dockerfile's build stage copies, emits the worker as JavaScript and the workflow bundle as one file", () => {
  expect(fs.existsSync(path.join(DIST, 'worker', 'main.js'))).toBe(true);
  expect(fs.existsSync(path.join(DIST, 'cli', 'index.js'))).toBe(true);
  expect(fs.statSync(BUNDLE).size).toBeGreaterThan(100_000);
  // Nothing of the tests or benchmarks is compiled into the image.
  expect(fs.existsSync(path.join(DIST, 'test'))).toBe(false);
  expect(fs.existsSync(path.join(DIST, 'bench'))).toBe(false);
});

test('the runtime holds the production dependencies only', () => {
  const installed = (name: string): boolean => fs.existsSync(path.join(RUNTIME, 'node_modules', name, 'package.json'));
  expect(['@temporalio/worker', '@temporalio/client', 'zod', 'commander'].filter(installed)).toHaveLength(4);
  expect(['typescript', 'ts-node', 'jest', '@temporalio/testing', 'eslint'].filter(installed)).toEqual([]);
});

test('the devDependency guard stops a process that loads typescript (so it can fail the tests below)', () => {
  const r = spawnSync(NODE, ['--require', GUARD, '-e', "require('typescript')"], { cwd: ROOT, env: productionEnv(), encoding: 'utf8' });
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain('devDependency "typescript"');
});

test('the compiled CLI starts without devDependencies', () => {
  const r = spawnSync(NODE, ['--require', GUARD, path.join(DIST, 'cli', 'index.js'), '--help'], { cwd: ROOT, env: productionEnv(), encoding: 'utf8' });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  expect(r.stdout).toContain('roster');
});

test('the compiled worker, with the prebuilt workflow bundle and without devDependencies, runs an agent Team to its answer', async () => {
  const taskQueue = uniqueId('tq-compiled');
  const checkoutRoot = tempCheckout();
  const worker = await env.spawnWorker(taskQueue, {
    checkoutRoot,
    command: { node: NODE, args: ['--require', GUARD, path.join(DIST, 'worker', 'main.js')], env: productionEnv() },
  });

  const teamId = uniqueId('compiled-team');
  const aliceScript = script(
    tool('claim_task', { taskId: 1, expectedRevision: 1 }),
    tool('write_file', { path: 'NOTES.md', content: 'written by the compiled worker\n', version: null }),
    tool('set_task_status', { taskId: 1, expectedRevision: 2, status: 'completed' }),
    send('lead', script(answer('notes written'))),
  );
  await env.client.workflow.start(defs.TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: teamId,
    taskQueue,
    args: [
      {
        teamId,
        agent: {
          profile: 'team',
          prompt: scriptText(
            tool('create_task', { subject: 'write the notes', writeScopes: ['NOTES.md'] }),
            tool('spawn_teammate', { name: 'alice', message: aliceScript }),
          ),
        },
      },
    ],
  });
  const team = TeamClient.attach(env.client, teamId);
  const lead = await eventually(
    () => team.handle().query(defs.getAgentStateQuery),
    (v) => v.status === 'answered',
    120_000,
  );

  expect(lead.finalAnswer).toBe('notes written');
  const view = await team.view();
  expect(view.tasks.map((t) => [t.id, t.status, t.owner])).toEqual([[1, 'completed', 'alice']]);
  // The work tool ran in the compiled worker's process, on its checkout.
  expect(fs.readFileSync(path.join(checkoutRoot, 'NOTES.md'), 'utf8')).toBe('written by the compiled worker\n');
  // Loaded from the file, not bundled at start (the SDK logs "Workflow bundle created" when it bundles).
  expect(Object.values(worker.output()).join('')).not.toContain('Workflow bundle created');
  expect(worker.child.exitCode).toBeNull();
  console.log(`compiled worker ran under ${NODE} (${execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim()})`);
});
