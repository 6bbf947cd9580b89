/**
 * Issue 20, played as the attacker: a member's bash (under real bubblewrap) and its file tools try
 * to plant something in the checkout's git metadata that the operator's own `git status` on the
 * host would run later. Each attempt is followed by that `git status`, which must run nothing.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorkToolActivities } from '../../activities/tools';
import { giveToBash } from '../support/bashUser';

let scratch: string;
let root: string;
let marker: string;
/** As root the operator's git checks the repository's owner (bash's user, bashUser.ts); it trusts this one. */
const OPERATOR_TRUSTS_CHECKOUT = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' };
let runWorkTool: ReturnType<typeof createWorkToolActivities>['runWorkTool'];

const git = (...args: string[]) =>
  execFileSync('git', ['-C', root, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...OPERATOR_TRUSTS_CHECKOUT },
  });

beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'git-protection-'));
  root = path.join(scratch, 'checkout');
  marker = path.join(scratch, 'PWNED');
  fs.mkdirSync(root);
  git('init', '-q');
  git('config', 'user.email', 'lead@example.invalid');
  git('config', 'user.name', 'Lead');
  git('config', 'core.hooksPath', 'tools/hooks');
  fs.mkdirSync(path.join(root, 'tools', 'hooks'), { recursive: true });
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  git('add', '-A');
  git('commit', '-qm', 'initial');
  giveToBash(root, scratch);
  ({ runWorkTool } = createWorkToolActivities({ root }));
});

afterEach(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function call(tool: string, args: unknown) {
  const outcome = await runWorkTool({ tool, argumentsJson: JSON.stringify(args), cwd: '.' });
  return { ok: outcome.ok, result: JSON.parse(outcome.text) as Record<string, unknown> };
}

async function bash(command: string) {
  const { ok, result } = await call('bash', { command });
  expect(ok).toBe(true);
  return result as { exitCode: number; stdout: string; stderr: string; notice?: string };
}

/** The operator's next look at the checkout: nothing a member planted may run. */
function operatorGitStatusRunsNothing() {
  try {
    git('status', '--short');
  } catch {
    // a broken repository is not code running on the host
  }
  expect(fs.existsSync(marker)).toBe(false);
}

const payload = () => `sh -c 'touch ${marker}'`;

test('bash cannot configure an fsmonitor, pager or hooks path, nor add a hook', async () => {
  const configBefore = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
  const run = await bash(
    [
      `git config core.fsmonitor "${payload()}"; echo fsmonitor=$?`,
      `git config core.pager "${payload()}"; echo pager=$?`,
      `printf '[core]\\n\\tfsmonitor = x\\n' >> .git/config; echo append=$?`,
      `printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/pre-commit; echo hook=$?`,
      `printf '#!/bin/sh\\ntouch ${marker}\\n' > tools/hooks/pre-commit; echo hookspath=$?`,
      `umount .git/config; echo umount=$?`,
    ].join('\n'),
  );
  for (const attempt of ['fsmonitor', 'pager', 'append', 'hook', 'hookspath', 'umount']) expect(run.stdout).not.toContain(`${attempt}=0`);
  expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(configBefore);
  expect(fs.existsSync(path.join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
  expect(fs.existsSync(path.join(root, 'tools', 'hooks', 'pre-commit'))).toBe(false);
  fs.writeFileSync(path.join(root, 'a.txt'), 'two\n');
  git('commit', '-qam', 'operator commit'); // the hooks directory the config names runs nothing
  operatorGitStatusRunsNothing();
}, 30_000);

test('bash cannot move .git away or replace it with a fresh git init', async () => {
  const inode = fs.statSync(path.join(root, '.git')).ino;
  const run = await bash(
    [
      `mv .git .git-old; echo mv=$?`,
      `git init -q; echo init=$?`,
      `git config core.fsmonitor "${payload()}"; echo fsmonitor=$?`,
      `printf 'gitdir: /tmp/evil\\n' > .git; echo gitfile=$?`,
    ].join('\n'),
  );
  for (const attempt of ['mv', 'init', 'fsmonitor', 'gitfile']) expect(run.stdout).not.toContain(`${attempt}=0`);
  expect(fs.statSync(path.join(root, '.git')).ino).toBe(inode);
  expect(fs.existsSync(path.join(root, '.git-old'))).toBe(false);
  operatorGitStatusRunsNothing();
}, 30_000);

test('a commondir that would send git to a member-written config is removed when the run ends', async () => {
  const run = await bash(
    [
      'mkdir -p evil && cp -r .git/HEAD .git/objects .git/refs evil/',
      `printf '[core]\\n\\tfsmonitor = ${payload().replace(/'/g, "'\\''")}\\n' > evil/config`,
      'echo ../evil > .git/commondir; echo commondir=$?',
      "printf '[core]\\n\\tpager = x\\n' > .git/config.worktree; echo worktree=$?",
    ].join('\n'),
  );
  expect(run.stdout).toContain('commondir=0'); // the write itself is possible: the sweep is what stops it
  expect(run.notice).toMatch(/removed \.git\/commondir, \.git\/config\.worktree: git would read its configuration or hooks from there/);
  expect(fs.existsSync(path.join(root, '.git', 'commondir'))).toBe(false);
  expect(fs.existsSync(path.join(root, '.git', 'config.worktree'))).toBe(false);
  operatorGitStatusRunsNothing();
}, 30_000);

test('a configured hooks directory that does not exist yet, also one a global relative core.hooksPath names, is removed when a run creates it', async () => {
  const home = path.join(scratch, 'home');
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(home, '.gitconfig'), '[core]\n\thooksPath = .githooks\n');
  git('config', '--unset', 'core.hooksPath'); // only the global one names a directory now
  const previousHome = process.env.HOME;
  process.env.HOME = home;
  try {
    ({ runWorkTool } = createWorkToolActivities({ root }));
    const write = await call('write_file', { path: '.githooks/pre-commit', content: `#!/bin/sh\ntouch ${marker}\n`, version: null });
    expect([write.ok, write.result.error]).toEqual([false, 'ProtectedPath']);
    expect(fs.existsSync(path.join(root, '.githooks'))).toBe(false); // refused before any directory was made
    const run = await bash(
      `mkdir .githooks && printf '#!/bin/sh\\ntouch ${marker}\\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit; echo planted=$?`,
    );
    expect(run.stdout).toBe('planted=0\n'); // nothing to bind before it exists: the sweep is what stops it
    expect(run.notice).toMatch(/removed \.githooks: git would read its configuration or hooks from there/);
    expect(fs.existsSync(path.join(root, '.githooks'))).toBe(false);
    fs.writeFileSync(path.join(root, 'a.txt'), 'three\n');
    execFileSync('git', ['-C', root, 'commit', '-qam', 'operator commit'], { env: { ...process.env, HOME: home, ...OPERATOR_TRUSTS_CHECKOUT } });
    expect(fs.existsSync(marker)).toBe(false);
  } finally {
    process.env.HOME = previousHome;
  }
}, 30_000);

test('members still stage and commit with git in bash', async () => {
  const run = await bash("echo change >> a.txt && git add a.txt && git commit -qm 'member commit' && git log --format=%s -1");
  expect([run.exitCode, run.stdout]).toEqual([0, 'member commit\n']);
  expect(git('log', '--format=%s', '-1')).toBe('member commit\n');
}, 30_000);

test('the file tools refuse git metadata, also through a symlink and in the configured hooks directory', async () => {
  fs.symlinkSync('.git', path.join(root, 'meta'));
  const attempts = [
    { path: '.git/config', content: `[core]\n\tfsmonitor = ${payload()}\n` },
    { path: '.git/hooks/pre-commit', content: `#!/bin/sh\ntouch ${marker}\n` },
    { path: 'meta/hooks/post-checkout', content: `#!/bin/sh\ntouch ${marker}\n` },
    { path: 'meta/new/dir/x', content: 'x\n' },
    { path: 'tools/hooks/pre-commit', content: `#!/bin/sh\ntouch ${marker}\n` },
    { path: '.git/commondir', content: '../evil\n' },
    { path: 'sub/.GIT/config', content: '[core]\n' },
  ];
  for (const attempt of attempts) {
    const write = await call('write_file', { ...attempt, version: null });
    expect([attempt.path, write.ok, write.result.error]).toEqual([attempt.path, false, 'ProtectedPath']);
  }
  const read = await call('read_file', { path: '.git/config' });
  const edit = await call('edit_file', { path: '.git/config', version: read.result.version, oldText: '[core]', newText: '[core]\n\tpager = x' });
  expect([read.ok, edit.ok, edit.result.error]).toEqual([true, false, 'ProtectedPath']);
  expect(fs.existsSync(path.join(root, '.git', 'commondir'))).toBe(false);
  expect(fs.existsSync(path.join(root, '.git', 'new'))).toBe(false); // no directory made inside .git through the symlink
  operatorGitStatusRunsNothing();
}, 30_000);
