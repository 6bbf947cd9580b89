/**
 * Issue 52, played as the attacker: a member's bash (under real bubblewrap, as the checkout's
 * unprivileged owner) shapes git config, symlinks and FIFOs so that the worker, running as root,
 * would act on a path of the host's: remove it, bind it into the sandbox, or block on it. The
 * worker finds git metadata through descriptors it opened without following anything and binds
 * those descriptors (gitProtection.ts), so each attempt ends with the host untouched and unseen.
 * Each test here fails on 13e4ee9, where the worker read `core.hooksPath` from the member's config,
 * `rmSync`ed the path it named through the member's symlink, bound it by path, and ran
 * `git config` synchronously on a FIFO.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createWorkToolActivities } from '../../activities/tools';
import { createBashTool } from '../../activities/tools/bash';
import { giveToBash } from '../support/bashUser';

let scratch: string;
let root: string;
/** A root-owned directory of the host's, outside the checkout, that the member must not reach. */
let host: string;
let runWorkTool: ReturnType<typeof createWorkToolActivities>['runWorkTool'];
const HOST_SECRET = 'HOST-SECRET-52a7';
/** As root the operator's git checks the repository's owner (bash's user); it trusts this one. */
const OPERATOR_TRUSTS_CHECKOUT = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' };
const git = (...args: string[]) =>
  execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', ...OPERATOR_TRUSTS_CHECKOUT } });

beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'attack-git-'));
  root = path.join(scratch, 'checkout');
  host = path.join(scratch, 'host');
  fs.mkdirSync(root);
  for (const dir of ['precious', 'run', 'proc']) {
    fs.mkdirSync(path.join(host, dir), { recursive: true });
    fs.writeFileSync(path.join(host, dir, 'secret.txt'), `${HOST_SECRET}\n`);
  }
  giveToBash(root, scratch);
  ({ runWorkTool } = createWorkToolActivities({ root }));
});

afterEach(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function bash(command: string) {
  const outcome = await runWorkTool({ tool: 'bash', argumentsJson: JSON.stringify({ command }), cwd: '.' });
  const result = JSON.parse(outcome.text) as { exitCode: number; stdout: string; stderr: string; notice?: string; error?: string };
  expect([outcome.ok, result.error]).toEqual([true, undefined]);
  return result;
}

function hostUntouched() {
  for (const dir of ['precious', 'run', 'proc']) expect(fs.readFileSync(path.join(host, dir, 'secret.txt'), 'utf8')).toBe(`${HOST_SECRET}\n`);
}

test('a checkout without .git: git init, a hooks path through a symlink to a host directory, then the symlink; nothing of the host is removed', async () => {
  const first = await bash('git init -q && git config core.hooksPath x/precious; echo configured=$?');
  expect(first.stdout).toContain('configured=0');
  // A `.git` that was not there when the call began is the member's, and git would run what its config names.
  expect(first.notice).toMatch(/removed \.git: git would read its configuration or hooks from there/);
  expect(fs.existsSync(path.join(root, '.git'))).toBe(false);
  await bash(`ln -s ${host} x; echo linked=$?`);
  hostUntouched();
  // The member's config kept, as a concurrent member's race could leave it: the symlink is input, never followed.
  git('init', '-q');
  git('config', 'core.hooksPath', 'x/precious');
  giveToBash(root, scratch);
  const third = await bash('true');
  expect(third.notice).toMatch(/removed x: git would read/);
  hostUntouched();
  expect(() => fs.lstatSync(path.join(root, 'x'))).toThrow(/ENOENT/); // the hooks path's symlink was swept
}, 60_000);

test('a hooks path through a symlink is never bound into the sandbox: the host directory it names stays unseen', async () => {
  git('init', '-q');
  // x → the host's `/`, and the hooks path x/tmp: bound by path, the host's /tmp would cover the sandbox's.
  fs.symlinkSync(path.relative(root, '/'), path.join(root, 'x'));
  git('config', 'core.hooksPath', 'x/tmp');
  giveToBash(root, scratch);
  const run = await bash(`cat ${path.join(host, 'run', 'secret.txt')} 2>&1; ls ${host} 2>&1; echo done`);
  expect(run.stdout).not.toContain(HOST_SECRET);
  expect(run.stdout).not.toMatch(/precious/);
  expect(run.notice).toMatch(/removed x: git would read/);
  hostUntouched();
}, 60_000);

test('husky: the hooks directory’s parent cannot be moved away and replaced by a symlink out of the checkout', async () => {
  git('init', '-q');
  fs.mkdirSync(path.join(root, '.husky', '_'), { recursive: true });
  git('config', 'core.hooksPath', '.husky/_');
  giveToBash(root, scratch);
  const run = await bash(`mv .husky .husky-moved; echo mv=$?; ln -s ${host} .husky 2>/dev/null; echo ln=$?`);
  expect(run.stdout).toContain('mv=1');
  expect(fs.lstatSync(path.join(root, '.husky')).isDirectory()).toBe(true);
  const next = await bash(`printf '#!/bin/sh\\n' > .husky/_/pre-commit; echo hook=$?; ls ${host} 2>&1 | head -1`);
  expect(next.stdout).toContain('hook=1');
  expect(next.stdout).not.toContain('precious');
  hostUntouched();
}, 60_000);

test('a hooks directory the operator configures after the worker started is protected at the next call', async () => {
  git('init', '-q');
  fs.mkdirSync(path.join(root, 'late-hooks'));
  giveToBash(root, scratch);
  git('config', 'core.hooksPath', 'late-hooks');
  const run = await bash(`printf '#!/bin/sh\\n' > late-hooks/pre-commit; echo hook=$?`);
  expect(run.stdout).toContain('hook=1');
  const outcome = await runWorkTool({
    tool: 'write_file',
    argumentsJson: JSON.stringify({ path: 'late-hooks/pre-commit', content: '#!/bin/sh\n', version: null }),
    cwd: '.',
  });
  expect(JSON.parse(outcome.text)).toMatchObject({ error: 'ProtectedPath' });
  expect(fs.existsSync(path.join(root, 'late-hooks', 'pre-commit'))).toBe(false);
}, 60_000);

test('a FIFO where git keeps its config blocks nothing: the calls finish, the event loop is never held, and the FIFO is swept', async () => {
  git('init', '-q');
  fs.rmSync(path.join(root, '.git', 'config'));
  execFileSync('mkfifo', [path.join(root, '.git', 'config')]);
  giveToBash(root, scratch);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const runs = await Promise.all([bash('echo one'), bash('echo two'), bash('echo three')]);
  delay.disable();
  expect(runs.map((run) => run.stdout)).toEqual(['one\n', 'two\n', 'three\n']);
  // 13e4ee9 ran `git config` with spawnSync on the worker's thread: 5 s held per call, 15 s here.
  expect(delay.max / 1e6).toBeLessThan(2000);
  expect(fs.existsSync(path.join(root, '.git', 'config'))).toBe(false);
}, 60_000);

test('a call cancelled while its command runs still has what it planted swept: the operator’s next git runs nothing of it', async () => {
  const marker = path.join(host, 'FSMONITOR-RAN');
  const tool = createBashTool({ rootReal: fs.realpathSync(root), env: process.env, heartbeatIntervalMs: 1000 });
  const cancel = new AbortController();
  const call = tool.execute(
    { command: `git init -q && git config core.fsmonitor 'touch ${marker}' && echo planted > .planted; sleep 60` },
    { base: root, cwd: '.', signal: cancel.signal },
  );
  // Cancelled once the config is planted (the member's marker file comes after it), as a Team's shutdown would.
  for (let tries = 0; !fs.existsSync(path.join(root, '.planted')); tries++) {
    expect(tries).toBeLessThan(3000);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  cancel.abort();
  const result = await call;
  expect(result.notice).toMatch(/removed \.git/);
  expect(fs.existsSync(path.join(root, '.git'))).toBe(false);
  git('init', '-q');
  git('status', '--short');
  expect(fs.existsSync(marker)).toBe(false);
}, 60_000);
