/**
 * The review's pure parts (cli/review.ts): which changed paths a tool runs, by category; whether a
 * package.json's scripts changed; the drivers named by a config's keys; the settings that turn off
 * everything git could run. The real git run on an armed checkout: test/host/reviewRunsNothing.test.ts.
 */
import { categorize, categoryOfPath, driverNames, quotePath, runsProgram, safeGit, scriptsChanged, type ChangedPath } from '../../cli/review';

const change = (p: string, status: ChangedPath['status'] = 'modified', oldMode: string | null = '100644', newMode: string | null = '100644'): ChangedPath => ({
  path: p,
  status,
  oldMode,
  newMode,
});

test.each([
  ['.husky/pre-commit', 'hook-framework'],
  ['packages/web/.husky/_/husky.sh', 'hook-framework'],
  ['lefthook.yml', 'hook-framework'],
  ['.lefthook-local.yaml', 'hook-framework'],
  ['.pre-commit-config.yaml', 'hook-framework'],
  ['.githooks/post-checkout', 'hook-framework'],
  ['Makefile', 'makefile'],
  ['build/rules.mk', 'makefile'],
  ['sub/.envrc', 'direnv'],
  ['.npmrc', 'package-manager-config'],
  ['.yarnrc.yml', 'package-manager-config'],
  ['.github/workflows/ci.yml', 'ci'],
  ['.gitlab-ci.yml', 'ci'],
  ['.circleci/config.yml', 'ci'],
  ['.vscode/tasks.json', 'editor-tasks'],
  ['.idea/workspace.xml', 'editor-tasks'],
  ['.gitattributes', 'git-attributes'],
  ['.gitmodules', 'git-attributes'],
])('%s is %s', (p, category) => {
  expect(categoryOfPath(p)?.category).toBe(category);
});

test.each(['src/index.ts', 'README.md', 'docs/Makefile.md', 'github/workflows/x.yml', '.vscode/extensions.json'])('%s is no finding', (p) => {
  expect(categoryOfPath(p)).toBeNull();
});

test("a path in the checkout's core.hooksPath is a hook", () => {
  expect(categoryOfPath('tools/hooks/pre-push', 'tools/hooks')?.category).toBe('hook-framework');
  expect(categoryOfPath('tools/hooksx/pre-push', 'tools/hooks')).toBeNull();
});

test('modes: new and changed executables, symlinks and gitlinks; package.json only when its scripts changed', () => {
  const findings = categorize([
    change('evil.sh', 'untracked', null, '100755'),
    change('bin/run', 'modified', '100644', '100755'),
    change('bin/tool', 'modified', '100755', '100755'),
    change('link', 'added', null, '120000'),
    change('vendor/lib', 'added', null, '160000'),
    { ...change('package.json'), scriptsChanged: true },
    { ...change('web/package.json'), scriptsChanged: false },
    change('old.mk', 'deleted', '100644', null),
    change('src/a.ts'),
  ]);
  expect(findings.map((f) => [f.category, f.path, f.detail])).toEqual([
    ['executable', 'evil.sh', 'new executable file'],
    ['executable', 'bin/run', 'made executable'],
    ['executable', 'bin/tool', 'changed executable file'],
    ['symlink', 'link', 'new symbolic link'],
    ['nested-repository', 'vendor/lib', 'gitlink (mode 160000): a commit of another repository'],
    ['package-scripts', 'package.json', 'its "scripts" changed'],
    ['makefile', 'old.mk', 'deleted: make runs its recipes'],
  ]);
});

test('scriptsChanged compares the parsed scripts field, key order aside', () => {
  const pkg = (scripts?: Record<string, string>, extra = {}) => JSON.stringify({ name: 'a', ...extra, ...(scripts ? { scripts } : {}) });
  expect(scriptsChanged(pkg({ a: '1', b: '2' }), pkg({ b: '2', a: '1' }, { version: '2.0.0' }))).toBe(false);
  expect(scriptsChanged(pkg({ test: 'jest' }), pkg({ test: 'jest', postinstall: 'sh evil' }))).toBe(true);
  expect(scriptsChanged(null, pkg({ test: 'jest' }))).toBe(true);
  expect(scriptsChanged(null, pkg())).toBe(false);
  expect(scriptsChanged(pkg(), '{ not json')).toBe(true);
});

test("driver names come from the config's keys, subsections with dots included", () => {
  const keys = ['filter.lfs.clean', 'filter.a.b.process', 'diff.x.textconv', 'core.fsmonitor', 'protocol.ext.allow', 'merge.ours.driver'];
  expect(driverNames(keys, 'filter')).toEqual(['lfs', 'a.b']);
  expect(driverNames(keys, 'diff')).toEqual(['x']);
  expect(driverNames(keys, 'protocol')).toEqual(['ext']);
  expect(driverNames(keys, 'merge')).toEqual(['ours']);
});

test('safeGit turns off every program git could run, and keeps none of the caller\u2019s GIT_ variables', () => {
  const safe = safeGit('/work/co', '/work/co/.git', ['filter.x.clean', 'diff.x.textconv', 'protocol.ext.allow'], {
    PATH: '/usr/bin:.:bin:/work/co/bin',
    HOME: '/home/op',
    GIT_EXTERNAL_DIFF: 'evil',
    GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='evil'",
    PAGER: 'evil',
  });
  const pairs = safe.configArgs.filter((_, i) => i % 2 === 1);
  for (const pair of [
    'core.hooksPath=/dev/null',
    'core.fsmonitor=false',
    'core.pager=cat',
    'diff.external=',
    'core.sshCommand=false',
    'credential.helper=',
    'protocol.allow=never',
    'protocol.ext.allow=never',
    'filter.x.clean=',
    'filter.x.smudge=',
    'filter.x.process=',
    'filter.x.required=false',
    'diff.x.textconv=',
    'diff.x.command=',
  ]) {
    expect(pairs).toContain(pair);
  }
  expect(safe.env).toMatchObject({
    GIT_DIR: '/work/co/.git',
    GIT_WORK_TREE: '/work/co',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    PATH: '/usr/bin',
  });
  expect(safe.env).not.toHaveProperty('GIT_EXTERNAL_DIFF');
  expect(safe.env).not.toHaveProperty('GIT_CONFIG_PARAMETERS');
  expect(safe.env.PAGER).toBe('cat');
});

test('a path with control characters is shown as a JSON string', () => {
  expect(quotePath('src/a.ts')).toBe('src/a.ts');
  expect(quotePath('\u001b[31mred')).toBe('"\\u001b[31mred"');
});

test('runsProgram names the config entries plain git would run', () => {
  expect(runsProgram('core.fsmonitor', '/tmp/x')).toBe(true);
  expect(runsProgram('filter.lfs.process', 'git-lfs filter-process')).toBe(true);
  expect(runsProgram('diff.x.textconv', 'cat')).toBe(true);
  expect(runsProgram('alias.st', '!sh evil')).toBe(true);
  expect(runsProgram('alias.st', 'status')).toBe(false);
  expect(runsProgram('remote.origin.url', 'ext::sh -c evil')).toBe(true);
  expect(runsProgram('remote.origin.url', 'https://example.com/r.git')).toBe(false);
  expect(runsProgram('user.name', 'x')).toBe(false);
});
