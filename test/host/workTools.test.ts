import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CHECKOUT_ROOT_ENV, checkoutRootFromEnv, createWorkToolActivities } from '../../activities/tools';
import { WORK_TOOL_CONTRACTS, WORK_TOOL_LIMITS, WORK_TOOL_NAMES } from '../../shared/agent/workTools';
import { toolSpec } from '../../shared/tools/tool';
import { giveToBash } from '../support/bashUser';

let sandbox: string;
let root: string;
let runWorkTool: ReturnType<typeof createWorkToolActivities>['runWorkTool'];

beforeEach(() => {
  sandbox = fs.mkdtempSync(path.join(os.tmpdir(), 'work-tools-'));
  root = path.join(sandbox, 'checkout');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(sandbox, 'outside.txt'), 'secret\n');
  giveToBash(root, sandbox);
  ({ runWorkTool } = createWorkToolActivities({ root }));
});

afterEach(() => {
  fs.rmSync(sandbox, { recursive: true, force: true });
});

const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

async function call(tool: string, args: unknown, cwd = '.') {
  const outcome = await runWorkTool({ tool, argumentsJson: typeof args === 'string' ? args : JSON.stringify(args), cwd });
  expect(outcome.text).not.toMatch(/\n/); // compact JSON: no newlines, no indentation
  return { ...outcome, result: JSON.parse(outcome.text) as Record<string, unknown> };
}

function put(relative: string, content: string) {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.writeFileSync(path.join(root, relative), content);
}
const contentOf = (relative: string) => fs.readFileSync(path.join(root, relative), 'utf8');

describe('contracts', () => {
  test('four tools in order, each with a model-facing spec; optional inputs are not required', () => {
    expect(WORK_TOOL_NAMES).toEqual(['read_file', 'write_file', 'edit_file', 'bash']);
    const specs = WORK_TOOL_CONTRACTS.map((c) => toolSpec(c));
    expect(specs.map((s) => s.parameters.required)).toEqual([['path'], ['path', 'content', 'version'], ['path', 'version', 'oldText', 'newText'], ['command']]);
    expect(specs[1]?.description).toMatch(/StaleVersion.*read_file again/);
  });

  test('the checkout root comes from AGENT_TEAMS_CHECKOUT, else the process directory', () => {
    expect(checkoutRootFromEnv({ [CHECKOUT_ROOT_ENV]: '/srv/checkout' })).toBe('/srv/checkout');
    expect(checkoutRootFromEnv({})).toBe(process.cwd());
  });
});

describe('read_file', () => {
  test('returns content, line count and the sha256 version of the bytes', async () => {
    put('sub/a.txt', 'one\ntwo\nthree\n');
    const { ok, result, cwd } = await call('read_file', { path: 'sub/a.txt' });
    expect(ok).toBe(true);
    expect(cwd).toBe('.');
    expect(result).toEqual({ path: 'sub/a.txt', content: 'one\ntwo\nthree\n', version: sha('one\ntwo\nthree\n'), totalLines: 3, truncated: false });
  });

  test('resolves paths against the member directory and pages by line', async () => {
    put('sub/a.txt', 'one\ntwo\nthree\nfour');
    const { result } = await call('read_file', { path: 'a.txt', offset: 2, limit: 2 }, 'sub');
    expect(result).toMatchObject({ path: 'sub/a.txt', content: 'two\nthree\n', totalLines: 4, truncated: true, version: sha('one\ntwo\nthree\nfour') });
    expect((await call('read_file', { path: 'a.txt', offset: 4 }, 'sub')).result).toMatchObject({ content: 'four', truncated: false });
    expect((await call('read_file', { path: 'a.txt', offset: 9 }, 'sub')).result).toMatchObject({ content: '', truncated: false, totalLines: 4 });
  });

  test('bounds the content by lines and bytes and says truncated', async () => {
    put('many.txt', Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n'));
    const many = (await call('read_file', { path: 'many.txt' })).result;
    expect(many.totalLines).toBe(2500);
    expect(many.truncated).toBe(true);
    expect((many.content as string).split('\n')).toHaveLength(2001); // 2000 lines, each with its newline
    put('wide.txt', `${'x'.repeat(60_000)}\n${'y'.repeat(60_000)}\n`);
    const wide = (await call('read_file', { path: 'wide.txt' })).result;
    expect(wide).toMatchObject({ content: `${'x'.repeat(60_000)}\n`, truncated: true, totalLines: 2 });
    put('long.txt', 'z'.repeat(150_000));
    const long = (await call('read_file', { path: 'long.txt' })).result;
    expect((long.content as string).length).toBe(WORK_TOOL_LIMITS.readMaxBytes);
    expect(long.truncated).toBe(true);
  });

  test('a missing file is FileNotFound; a directory is IsADirectory', async () => {
    expect((await call('read_file', { path: 'nope.txt' })).result).toEqual({ error: 'FileNotFound', message: 'nope.txt does not exist' });
    expect((await call('read_file', { path: 'sub' })).result).toMatchObject({ error: 'IsADirectory' });
  });
});

describe('write_file', () => {
  test('with the observed version succeeds and returns the new version', async () => {
    put('a.txt', 'old\n');
    const { version } = (await call('read_file', { path: 'a.txt' })).result;
    const written = await call('write_file', { path: 'a.txt', content: 'new\n', version });
    expect(written.ok).toBe(true);
    expect(written.result).toEqual({ path: 'a.txt', version: sha('new\n'), bytes: 4 });
    expect(contentOf('a.txt')).toBe('new\n');
    expect((await call('read_file', { path: 'a.txt' })).result.version).toBe(sha('new\n'));
  });

  test('with a stale version fails with StaleVersion and leaves the file unchanged', async () => {
    put('a.txt', 'mine\n');
    const { version } = (await call('read_file', { path: 'a.txt' })).result;
    put('a.txt', 'theirs\n');
    const stale = await call('write_file', { path: 'a.txt', content: 'mine, edited\n', version });
    expect(stale.ok).toBe(false);
    expect(stale.result).toEqual({
      error: 'StaleVersion',
      message: `a.txt changed since you read it (current version ${sha('theirs\n')}); read_file again and rebase your change`,
    });
    expect(contentOf('a.txt')).toBe('theirs\n');
  });

  test('version null creates a new file (and its directories) but never replaces an existing one', async () => {
    const created = await call('write_file', { path: 'deep/er/new.txt', content: 'hello', version: null }, 'sub');
    expect(created.result).toEqual({ path: 'sub/deep/er/new.txt', version: sha('hello'), bytes: 5 });
    expect(contentOf('sub/deep/er/new.txt')).toBe('hello');
    const again = await call('write_file', { path: 'deep/er/new.txt', content: 'other', version: null }, 'sub');
    expect(again.result).toMatchObject({ error: 'StaleVersion', message: expect.stringContaining(sha('hello')) });
    expect(contentOf('sub/deep/er/new.txt')).toBe('hello');
    expect(fs.readdirSync(path.join(root, 'sub/deep/er'))).toEqual(['new.txt']); // no temporary files left
  });

  test('a version for a file that no longer exists is StaleVersion', async () => {
    expect((await call('write_file', { path: 'gone.txt', content: 'x', version: sha('was here') })).result).toMatchObject({ error: 'StaleVersion' });
    expect(fs.existsSync(path.join(root, 'gone.txt'))).toBe(false);
  });

  test('a retried write whose content is already in place succeeds (idempotent retry)', async () => {
    put('a.txt', 'v1');
    await call('write_file', { path: 'a.txt', content: 'v2', version: sha('v1') });
    expect((await call('write_file', { path: 'a.txt', content: 'v2', version: sha('v1') })).result).toEqual({ path: 'a.txt', version: sha('v2'), bytes: 2 });
  });

  test('racing writers with the same version: exactly one wins', async () => {
    put('a.txt', 'base');
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call('write_file', { path: 'a.txt', content: `writer ${i}`, version: sha('base') })),
    );
    const winners = outcomes.filter((o) => o.ok);
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok).every((o) => o.result.error === 'StaleVersion')).toBe(true);
    expect(sha(contentOf('a.txt'))).toBe(winners[0]?.result.version);
  });

  test('keeps the file mode', async () => {
    put('run.sh', 'echo hi\n');
    fs.chmodSync(path.join(root, 'run.sh'), 0o755);
    await call('write_file', { path: 'run.sh', content: 'echo hello\n', version: sha('echo hi\n') });
    expect(fs.statSync(path.join(root, 'run.sh')).mode & 0o777).toBe(0o755);
  });
});

describe('edit_file', () => {
  test('replaces text that occurs exactly once', async () => {
    put('a.ts', 'const a = 1;\nconst b = 2;\n');
    const edited = await call('edit_file', { path: 'a.ts', version: sha('const a = 1;\nconst b = 2;\n'), oldText: 'b = 2', newText: 'b = $& 3' });
    expect(edited.result).toEqual({ path: 'a.ts', version: sha('const a = 1;\nconst b = $& 3;\n'), replacements: 1 });
    expect(contentOf('a.ts')).toBe('const a = 1;\nconst b = $& 3;\n');
  });

  test('text not found, ambiguous text and a stale version change nothing', async () => {
    const text = 'x = 1\nx = 1\nx = 1\n';
    put('a.txt', text);
    expect((await call('edit_file', { path: 'a.txt', version: sha(text), oldText: 'y = 1', newText: 'y = 2' })).result).toMatchObject({
      error: 'EditTextNotFound',
    });
    const ambiguous = (await call('edit_file', { path: 'a.txt', version: sha(text), oldText: 'x = 1', newText: 'x = 2' })).result;
    expect(ambiguous).toMatchObject({ error: 'EditTextAmbiguous', message: expect.stringMatching(/occurs 3 times.*replaceAll/) });
    expect((await call('edit_file', { path: 'a.txt', version: sha('older'), oldText: 'x = 1', newText: 'x = 2', replaceAll: true })).result).toMatchObject({
      error: 'StaleVersion',
      message: expect.stringContaining(sha(text)),
    });
    expect(contentOf('a.txt')).toBe(text);
  });

  test('replaceAll replaces every occurrence and counts them', async () => {
    const text = 'x = 1\nx = 1\nx = 1\n';
    put('a.txt', text);
    expect((await call('edit_file', { path: 'a.txt', version: sha(text), oldText: 'x = 1', newText: 'x = 2', replaceAll: true })).result).toEqual({
      path: 'a.txt',
      version: sha('x = 2\nx = 2\nx = 2\n'),
      replacements: 3,
    });
  });

  test('editing a missing file is FileNotFound', async () => {
    expect((await call('edit_file', { path: 'nope', version: sha(''), oldText: 'a', newText: 'b' })).result).toMatchObject({ error: 'FileNotFound' });
  });
});

describe('paths stay inside the checkout', () => {
  test('../, absolute paths and symlinks out are PathOutsideCheckout', async () => {
    fs.symlinkSync(sandbox, path.join(root, 'sub', 'escape'));
    fs.symlinkSync(path.join(sandbox, 'outside.txt'), path.join(root, 'link.txt'));
    fs.symlinkSync(path.join(sandbox, 'not-there.txt'), path.join(root, 'dangling.txt'));
    const attempts: Array<[string, unknown, string?]> = [
      ['read_file', { path: '../outside.txt' }],
      ['read_file', { path: '../../outside.txt' }, 'sub'],
      ['read_file', { path: path.join(sandbox, 'outside.txt') }],
      ['read_file', { path: '/etc/passwd' }],
      ['read_file', { path: 'escape/outside.txt' }, 'sub'],
      ['read_file', { path: 'link.txt' }],
      ['write_file', { path: 'link.txt', content: 'pwned', version: sha('secret\n') }],
      ['write_file', { path: 'sub/escape/new.txt', content: 'pwned', version: null }],
      ['write_file', { path: 'dangling.txt', content: 'pwned', version: null }],
      ['edit_file', { path: '../outside.txt', version: sha('secret\n'), oldText: 'secret', newText: 'pwned' }],
    ];
    for (const [tool, args, cwd] of attempts) {
      const outcome = await call(tool, args, cwd);
      expect([tool, args, outcome.ok, outcome.result.error]).toEqual([tool, args, false, 'PathOutsideCheckout']);
    }
    expect(fs.readFileSync(path.join(sandbox, 'outside.txt'), 'utf8')).toBe('secret\n');
    expect(fs.readdirSync(sandbox).sort()).toEqual(['checkout', 'outside.txt']);
  });

  test('absolute paths and symlinks inside the checkout are fine', async () => {
    put('sub/a.txt', 'a');
    fs.symlinkSync(path.join(root, 'sub'), path.join(root, 'alias'));
    expect((await call('read_file', { path: path.join(root, 'sub/a.txt') })).result).toMatchObject({ path: 'sub/a.txt', content: 'a' });
    expect((await call('read_file', { path: 'alias/a.txt' })).result).toMatchObject({ path: 'alias/a.txt', content: 'a' });
  });

  test('a member directory outside the checkout is refused and reset to the root', async () => {
    fs.symlinkSync(sandbox, path.join(root, 'escape'));
    for (const cwd of ['..', 'escape']) {
      const outcome = await call('bash', { command: 'touch pwned' }, cwd);
      expect([outcome.ok, outcome.result.error, outcome.cwd]).toEqual([false, 'PathOutsideCheckout', '.']);
    }
    expect(fs.existsSync(path.join(sandbox, 'pwned'))).toBe(false);
  });
});

describe('bash', () => {
  test('captures exit code, stdout and stderr', async () => {
    const { ok, result, cwd } = await call('bash', { command: 'echo out; echo err >&2; exit 3' });
    expect(ok).toBe(true);
    expect(cwd).toBe('.');
    expect(result).toEqual({ exitCode: 3, stdout: 'out\n', stderr: 'err\n', truncated: false, timedOut: false, cwd: '.' });
  });

  test('keeps the tail of long output and says truncated', async () => {
    const { result } = await call('bash', { command: 'for i in $(seq 1 20000); do echo "line $i"; done; echo done >&2' });
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.stdout as string)).toBeLessThanOrEqual(WORK_TOOL_LIMITS.bashOutputBytes);
    expect(result.stdout).toMatch(/line 20000\n$/);
    expect(result.stderr).toBe('done\n');
  });

  test('a timeout kills the whole process group and returns promptly (unsandboxed; sandboxed: bashSandbox.test.ts)', async () => {
    // $$ is a host pid only outside the sandbox's PID namespace.
    ({ runWorkTool } = createWorkToolActivities({ root, sandbox: { mode: 'none' } }));
    const started = Date.now();
    const { result } = await call('bash', { command: 'echo $$ > group.pid; sleep 30 & sleep 30; echo never', timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result).toMatchObject({ exitCode: null, timedOut: true, stdout: '', cwd: '.' });
    const group = Number(contentOf('group.pid'));
    expect(livingMembersOf(group)).toEqual([]);
  });

  test('cd stays with the member: the returned cwd is where the next call runs', async () => {
    put('sub/deeper/marker.txt', 'here');
    const first = await call('bash', { command: 'cd sub && ls' });
    expect([first.cwd, first.result.cwd, first.result.stdout]).toEqual(['sub', 'sub', 'deeper\n']);
    const second = await call('bash', { command: 'pwd; cd deeper; exit 1' }, first.cwd);
    expect(second.result).toMatchObject({ stdout: `${fs.realpathSync(root)}/sub\n`, exitCode: 1, cwd: 'sub/deeper' });
    expect((await call('read_file', { path: 'marker.txt' }, second.cwd)).result).toMatchObject({ path: 'sub/deeper/marker.txt', content: 'here' });
    const nochange = await call('bash', { command: 'true' }, 'sub/deeper');
    expect(nochange.cwd).toBe('sub/deeper');
  });

  test('a cd out of the checkout is not adopted', async () => {
    const outcome = await call('bash', { command: 'cd / && echo left' }, 'sub');
    expect(outcome.cwd).toBe('sub');
    expect(outcome.result).toMatchObject({ stdout: 'left\n', cwd: 'sub', notice: expect.stringMatching(/outside the checkout; your directory stays sub/) });
  });

  test('a member directory that disappeared resets to the root without running', async () => {
    const outcome = await call('bash', { command: 'touch ran' }, 'vanished');
    expect([outcome.ok, outcome.result.error, outcome.cwd]).toEqual([false, 'WorkingDirectoryMissing', '.']);
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false);
  });

  test('heartbeats while running; worker secrets are not in the environment', async () => {
    const heartbeat = jest.fn();
    process.env.MODEL_API_KEY = 'sk-test';
    try {
      const activities = createWorkToolActivities({ root, heartbeat, heartbeatIntervalMs: 50 });
      const outcome = await activities.runWorkTool({
        tool: 'bash',
        argumentsJson: '{"command":"sleep 0.4; echo \\"key=${MODEL_API_KEY:-unset}\\""}',
        cwd: '.',
      });
      expect(JSON.parse(outcome.text)).toMatchObject({ stdout: 'key=unset\n', exitCode: 0 });
    } finally {
      delete process.env.MODEL_API_KEY;
    }
    expect(heartbeat.mock.calls.length).toBeGreaterThanOrEqual(3);
  });

  test('bash without stdin does not wait for input', async () => {
    expect((await call('bash', { command: 'cat; echo after', timeoutMs: 5000 })).result).toMatchObject({ stdout: 'after\n', timedOut: false });
  });
});

describe('dispatch', () => {
  test('malformed JSON and invalid input are InvalidToolArguments', async () => {
    const malformed = await call('read_file', '{"path": ');
    expect([malformed.ok, malformed.result.error, malformed.cwd]).toEqual([false, 'InvalidToolArguments', '.']);
    expect((await call('bash', { command: 'true', timeoutMs: 600_001 })).result).toMatchObject({
      error: 'InvalidToolArguments',
      message: expect.stringMatching(/timeoutMs/),
    });
    expect((await call('write_file', { path: 'a.txt', content: 'x' })).result).toMatchObject({
      error: 'InvalidToolArguments',
      message: expect.stringMatching(/version/),
    });
  });

  test('an unknown tool lists the valid ones and keeps the directory', async () => {
    const outcome = await call('delete_everything', {}, 'sub');
    expect(outcome).toMatchObject({ ok: false, cwd: 'sub' });
    expect(outcome.result).toEqual({
      error: 'UnknownTool',
      message: 'there is no work tool named "delete_everything"; the work tools are read_file, write_file, edit_file, bash',
    });
  });
});

/** Processes of a process group that are still alive (zombies waiting for a reaper do not count). */
function livingMembersOf(group: number): number[] {
  if (!fs.existsSync('/proc/self/stat')) {
    try {
      process.kill(-group, 0);
      return [group];
    } catch {
      return [];
    }
  }
  const living: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === group && fields[0] !== 'Z') living.push(Number(entry));
  }
  return living;
}
