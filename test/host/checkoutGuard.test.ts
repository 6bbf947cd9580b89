/**
 * Issue 20: the checkout is never the worker's own code. The guard refuses a checkout that is,
 * contains or lies inside the worker's package, and `npm run worker` in the project (its documented
 * default: the current directory) exits at once, naming AGENT_TEAMS_CHECKOUT, before connecting.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CHECKOUT_IS_WORKER_CODE, CheckoutRefused, createWorkToolActivities } from '../../activities/tools';
import { assertCheckoutIsNotWorkerCode, packageRootOf } from '../../activities/tools/checkoutGuard';

const PROJECT = path.resolve(__dirname, '..', '..');

test("the worker's package is found from the tools' own location", () => {
  expect(packageRootOf(path.join(PROJECT, 'activities', 'tools'))).toBe(PROJECT);
});

test.each([
  ['is', PROJECT],
  ['lies inside', path.join(PROJECT, 'node_modules')],
  ['lies inside', path.join(PROJECT, 'worker')],
  ['contains', path.dirname(PROJECT)],
])('a checkout that %s the package is refused with CheckoutIsWorkerCode: %s', (how, root) => {
  let thrown: unknown;
  try {
    createWorkToolActivities({ root });
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(CheckoutRefused);
  expect((thrown as CheckoutRefused).type).toBe(CHECKOUT_IS_WORKER_CODE);
  expect((thrown as Error).message).toContain(` ${how} this worker's own package`);
  expect((thrown as Error).message).toContain('Set AGENT_TEAMS_CHECKOUT');
});

test('through a symlink too, and a checkout beside the package is fine', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-guard-'));
  try {
    const alias = path.join(scratch, 'alias');
    fs.symlinkSync(path.join(PROJECT, 'worker'), alias);
    expect(() => assertCheckoutIsNotWorkerCode(alias, PROJECT)).toThrow(CheckoutRefused);
    fs.mkdirSync(path.join(scratch, 'repo'));
    expect(() => assertCheckoutIsNotWorkerCode(path.join(scratch, 'repo'), PROJECT)).not.toThrow();
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});

test('npm run worker in the project with AGENT_TEAMS_CHECKOUT unset exits 1 at once, saying what to set', () => {
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' };
  delete env.AGENT_TEAMS_CHECKOUT;
  const run = spawnSync(path.join(PROJECT, 'node_modules', '.bin', 'ts-node'), ['--transpile-only', 'worker/main.ts'], {
    cwd: PROJECT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status).toBe(1);
  expect(`${run.stdout}${run.stderr}`).toMatch(/worker failed: the checkout \S+ is this worker's own package .*Set AGENT_TEAMS_CHECKOUT/);
}, 90_000);
