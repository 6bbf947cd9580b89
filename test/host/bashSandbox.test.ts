/**
 * The bash sandbox (issue 9): the pure argv/env builders, and real commands through the work tool
 * under bubblewrap on this machine (.ci/run installs it).
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  type BashSandboxConfig,
  bwrapArgs,
  checkBashSandbox,
  sandboxCommand,
  sandboxConfigFromEnv,
  sandboxEnv,
  sandboxHome,
} from '../../activities/tools/bashSandbox';
import { DEFAULT_SANDBOX_LIMITS, SandboxConfigInvalid } from '../../activities/tools/sandboxLimits';
import { giveToBash } from '../support/bashUser';
import { networkAuthorityWarning } from '../../activities/tools/sandboxNetwork';
import { createWorkToolActivities } from '../../activities/tools';

const SECRET_NAME = 'AGENT_TEAMS_TEST_SECRET_TOKEN';
const SECRET = 'sk-sandbox-test-3f9c1b7e';

let scratch: string;
let root: string;

beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bash-sandbox-'));
  root = path.join(scratch, 'checkout');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  giveToBash(root, scratch);
  process.env[SECRET_NAME] = SECRET;
  process.env.MODEL_API_KEY = 'sk-model-key-test';
});

afterEach(() => {
  delete process.env[SECRET_NAME];
  delete process.env.MODEL_API_KEY;
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function bash(command: string, options: { cwd?: string; timeoutMs?: number; sandbox?: Partial<BashSandboxConfig> } = {}) {
  const { runWorkTool } = createWorkToolActivities({ root, ...(options.sandbox ? { sandbox: options.sandbox } : {}) });
  const outcome = await runWorkTool({
    tool: 'bash',
    argumentsJson: JSON.stringify({ command, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) }),
    cwd: options.cwd ?? '.',
  });
  return { ...outcome, result: JSON.parse(outcome.text) as Record<string, unknown> };
}

describe('configuration and argv (pure)', () => {
  test('from the environment: sandbox on, network off by default; opt-out, opt-in and allow-list', () => {
    expect(sandboxConfigFromEnv({})).toEqual({
      mode: 'bwrap',
      bwrapPath: '/usr/bin/bwrap',
      network: false,
      allowEnv: [],
      binds: [],
      limits: DEFAULT_SANDBOX_LIMITS,
    });
    expect(
      sandboxConfigFromEnv({
        AGENT_TEAMS_BASH_SANDBOX: 'none',
        AGENT_TEAMS_BASH_NETWORK: 'on',
        AGENT_TEAMS_BASH_ENV: 'GOPATH, CARGO_HOME,',
        AGENT_TEAMS_BASH_BIND: '/opt/toolchain',
        AGENT_TEAMS_BASH_LIMITS: 'memory=1GiB,processes=64',
      }),
    ).toEqual({
      mode: 'none',
      bwrapPath: '/usr/bin/bwrap',
      network: true,
      allowEnv: ['GOPATH', 'CARGO_HOME'],
      binds: ['/opt/toolchain'],
      limits: { ...DEFAULT_SANDBOX_LIMITS, memory: 1024 ** 3, processes: 64 },
    });
  });

  test('a bind that would show what the sandbox hides, or a limit it cannot read, stops the worker with the fix', () => {
    for (const bind of ['/', '/home/alice/tools', '/run/user/1000', '/var/run', 'relative/dir', '/root']) {
      expect(() => sandboxConfigFromEnv({ AGENT_TEAMS_BASH_BIND: bind })).toThrow(SandboxConfigInvalid);
    }
    expect(() => sandboxConfigFromEnv({ AGENT_TEAMS_BASH_LIMITS: 'memory=lots' })).toThrow(/memory="lots" is not a size such as 512MiB/);
    expect(() => sandboxConfigFromEnv({ AGENT_TEAMS_BASH_LIMITS: 'swap=1g' })).toThrow(/unknown entry "swap=1g"; the keys are memory, processes/);
    expect(() => sandboxConfigFromEnv({ AGENT_TEAMS_BASH_LIMITS: 'processes=0' })).toThrow(/processes/);
  });

  test('the environment is the allow-list only, with the sandbox HOME', () => {
    const env = sandboxEnv(
      { PATH: '/bin', LANG: 'C.UTF-8', TERM: 'xterm', HOME: '/root', MODEL_API_KEY: 'k', GOPATH: '/go', TEMPORAL_TLS_CLIENT_KEY_DATA: 'x' },
      { allowEnv: ['GOPATH'] },
      '/root',
    );
    expect(env).toEqual({ PATH: '/bin', LANG: 'C.UTF-8', TERM: 'xterm', GOPATH: '/go', HOME: '/root' });
  });

  test('HOME is the worker HOME behind a tmpfs unless that would cover the checkout or /tmp', () => {
    const exists = () => true;
    expect(sandboxHome('/srv/checkout', '/home/node', exists)).toBe('/home/node');
    expect(sandboxHome('/home/node/checkout', '/home/node', exists)).toBe('/home/node'); // the checkout is bound over it
    expect(sandboxHome('/srv/checkout', '/srv/checkout/home', exists)).toBe('/tmp');
    expect(sandboxHome('/srv/checkout', '/', exists)).toBe('/tmp');
    expect(sandboxHome('/srv/checkout', undefined, exists)).toBe('/tmp');
    expect(sandboxHome('/srv/checkout', '/nonexistent/home')).toBe('/tmp'); // a tmpfs cannot be made there on a read-only root
  });

  test('argv: no capabilities, namespaces, only the system paths, sized private tmpfs, masked files, the checkout, its git metadata, read-only root', () => {
    const system = [
      { kind: 'directory', path: '/usr' },
      { kind: 'symlink', path: '/bin', target: 'usr/bin' },
      { kind: 'directory', path: '/etc' },
    ] as const;
    const limits = { tmp: 8 * 1024 * 1024, home: 4 * 1024 * 1024 };
    const args = bwrapArgs({
      root: '/srv/co',
      cwd: '/srv/co/sub',
      home: '/home/node',
      network: false,
      system,
      limits,
      maskFiles: ['/etc/temporal/key.pem', '/srv/co/inside.pem', '/home/node/.temporal/key.pem'],
      pins: [
        { dest: '/srv/co/.git', readOnly: false },
        { dest: '/elsewhere/.git', readOnly: false },
        { dest: '/srv/co/.git/config', readOnly: true },
        { dest: '/srv/co/.git/hooks', readOnly: true },
      ],
    });
    expect(args).toEqual([
      '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--unshare-user', '--disable-userns',
      '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net',
      '--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--ro-bind', '/etc', '/etc',
      '--dev', '/dev', '--proc', '/proc',
      '--perms', '1777', '--size', String(64 * 1024 * 1024), '--tmpfs', '/dev/shm',
      '--perms', '0755', '--size', String(1024 * 1024), '--tmpfs', '/run',
      '--perms', '1777', '--size', String(8 * 1024 * 1024), '--tmpfs', '/tmp',
      '--symlink', '../run', '/var/run', '--symlink', '../tmp', '/var/tmp',
      '--perms', '0700', '--size', String(4 * 1024 * 1024), '--tmpfs', '/home/node',
      '--ro-bind', '/dev/null', '/etc/temporal/key.pem',
      '--bind', '/srv/co', '/srv/co',
      '--bind-fd', '6', '/srv/co/.git',
      '--ro-bind-fd', '8', '/srv/co/.git/config', '--ro-bind-fd', '9', '/srv/co/.git/hooks',
      '--remount-ro', '/dev', '--remount-ro', '/', '--chdir', '/srv/co/sub', '--',
    ]); // prettier-ignore
    expect(bwrapArgs({ root: '/srv/co', cwd: '/srv/co', home: '/tmp', network: true, system, limits })).not.toContain('--unshare-net');
  });

  test('the command: a supervisor sets the RLIMITs (hard = soft), runs bash without fd 5, and reports each private tmpfs when it failed', () => {
    const command = sandboxCommand(DEFAULT_SANDBOX_LIMITS, 'echo hi', "/home/o'brien");
    expect(command.slice(0, 2)).toEqual(['/bin/bash', '-c']);
    const limit = (option: string) => `{ ulimit -SH ${option} 2>/dev/null || ulimit -S ${option.split(' ')[0]} "$(ulimit -H ${option.split(' ')[0]})"; }`;
    const ulimits = ['-u 256', `-v ${4 * 1024 * 1024}`, `-f ${1024 * 1024}`, '-n 1024', '-t 600', '-c 0'].map(limit).join(' && ');
    expect(command[2]).toBe(
      `${ulimits} || exit 126; /bin/bash -c "$1" 5>&-; status=$?; ` +
        `[ $status -eq 0 ] || stat -f -c '%n %a %b' '/tmp' '/dev/shm' '/run' '/home/o'\\''brien' >&5 2>/dev/null; exit $status`,
    );
    expect(command.slice(3)).toEqual(['supervisor', 'echo hi']);
    expect(sandboxCommand(DEFAULT_SANDBOX_LIMITS, 'x', '/tmp', { memoryBounded: true })[2]).not.toContain('-v ');
  });
});

describe('bash under bubblewrap (real commands)', () => {
  test('env and /proc/*/environ show none of the worker variables', async () => {
    const { result } = await bash('env; echo ---; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; echo ---; ls /proc | grep -c "^[0-9]"');
    const stdout = result.stdout as string;
    expect(result.exitCode).toBe(0);
    expect(stdout).not.toContain(SECRET);
    expect(stdout).not.toContain(SECRET_NAME);
    expect(stdout).not.toContain('sk-model-key-test');
    const names = new Set(
      (stdout.split('---')[0] ?? '')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('=')[0]),
    );
    for (const name of names) expect(['PATH', 'HOME', 'LANG', 'TERM', 'PWD', 'SHLVL', '_', 'OLDPWD']).toContain(name);
    // Only the sandbox's own few processes are visible.
    expect(Number((stdout.split('---')[2] ?? '').trim())).toBeLessThan(10);
  });

  test('a name the deployment allows is passed in', async () => {
    const { result } = await bash(`echo "$${SECRET_NAME}"`, { sandbox: { allowEnv: [SECRET_NAME] } });
    expect(result.stdout).toBe(`${SECRET}\n`);
  });

  test('the credential files the worker names cannot be read; the worker HOME is a private tmpfs', async () => {
    // /var is not shown at all; a key under a system path (/etc, as root may write it) is masked by /dev/null.
    const key = path.join('/var/tmp', `agent-teams-test-key-${process.pid}.pem`);
    fs.writeFileSync(key, `${SECRET}\n`);
    try {
      const { runWorkTool } = createWorkToolActivities({ root, env: { ...process.env, TEMPORAL_TLS_CLIENT_KEY_PATH: key } });
      const outcome = await runWorkTool({ tool: 'bash', argumentsJson: JSON.stringify({ command: `cat ${key}; ls -A "$HOME" | wc -l` }), cwd: '.' });
      expect(outcome.text).not.toContain(SECRET);
      expect(JSON.parse(outcome.text)).toMatchObject({ stdout: '0\n', stderr: expect.stringMatching(/No such file or directory/), exitCode: 0 });
    } finally {
      fs.rmSync(key, { force: true });
    }
  });

  test('a write outside the checkout fails (or stays in the private /tmp); one inside lands', async () => {
    const { result } = await bash(
      `echo x > /usr/pwned-by-bash; echo "usr=$?"; echo x > ${scratch}/outside.txt; echo inside > sub/inside.txt; echo x > "$HOME/h"`,
    );
    expect(result.stdout).toMatch(/usr=[1-9]/);
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(fs.existsSync('/usr/pwned-by-bash')).toBe(false);
    expect(fs.existsSync(path.join(scratch, 'outside.txt'))).toBe(false); // the sandbox's /tmp is private
    expect(fs.readFileSync(path.join(root, 'sub/inside.txt'), 'utf8')).toBe('inside\n');
    if (process.env.HOME) expect(fs.existsSync(path.join(process.env.HOME, 'h'))).toBe(false);
  });

  test('a connection to 127.0.0.1 fails without the network opt-in and works with it', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => {
      sockets.push(socket);
      socket.end('hello\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`;
    try {
      const closed = await bash(connect, { timeoutMs: 10_000 });
      expect(closed.result).toMatchObject({ stdout: '', timedOut: false });
      expect(closed.result.exitCode).not.toBe(0);
      const open = await bash(connect, { timeoutMs: 10_000, sandbox: { network: true } });
      expect(open.result).toMatchObject({ stdout: 'hello\n', exitCode: 0 });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 30_000);

  test('a runaway command is killed at its timeout, background processes included', async () => {
    const marker = `31.${Date.now() % 100000}`;
    const started = Date.now();
    const { result } = await bash(`sleep ${marker} & sleep ${marker}; echo never`, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result).toMatchObject({ exitCode: null, timedOut: true, stdout: '' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processesRunning(`sleep ${marker}`)).toEqual([]);
  });

  test('cd stays with the member', async () => {
    fs.mkdirSync(path.join(root, 'sub/deeper'));
    const first = await bash('cd sub/deeper && pwd');
    expect([first.cwd, first.result.stdout]).toEqual(['sub/deeper', `${fs.realpathSync(root)}/sub/deeper\n`]);
    const second = await bash('pwd; cd ..', { cwd: first.cwd });
    expect([second.result.stdout, second.cwd]).toEqual([`${fs.realpathSync(root)}/sub/deeper\n`, 'sub']);
  });
});

describe('the network opt-in', () => {
  test('the worker warns at start when the network is on and the frontend takes it without credentials', async () => {
    const bare = { TEMPORAL_ADDRESS: '127.0.0.1:7233', TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' };
    expect(networkAuthorityWarning(bare)).toMatch(
      /AGENT_TEAMS_BASH_NETWORK=on, and this worker reaches the Temporal frontend at 127.0.0.1:7233 without credentials/,
    );
    expect(networkAuthorityWarning({ ...bare, TEMPORAL_API_KEY: 'k' })).toBeNull();
    expect(networkAuthorityWarning({ ...bare, TEMPORAL_GRPC_META_AUTHORIZATION: 'Bearer k' })).toBeNull();
    const log = { warn: jest.fn(), error: jest.fn(), info: jest.fn() };
    const saved = { ...process.env };
    Object.assign(process.env, bare);
    try {
      await checkBashSandbox({ ...sandboxConfigFromEnv({}), network: true }, root, log);
      expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/without credentials: a member's bash can reach it too/));
      log.warn.mockClear();
      await checkBashSandbox(sandboxConfigFromEnv({}), root, log);
      expect(log.warn).not.toHaveBeenCalled();
    } finally {
      for (const name of Object.keys(bare)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });
});

describe('sandbox unavailable and the explicit opt-out', () => {
  test('a missing bubblewrap returns SandboxUnavailable and runs nothing', async () => {
    const outcome = await bash('touch ran', { sandbox: { bwrapPath: path.join(scratch, 'no-such-bwrap') } });
    expect([outcome.ok, outcome.result.error]).toEqual([false, 'SandboxUnavailable']);
    expect(outcome.result.message).toMatch(/not found.*nothing ran/);
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false);
  });

  test('AGENT_TEAMS_BASH_SANDBOX=none runs unsandboxed with an allow-list of the environment: no key, TLS data or gRPC metadata', async () => {
    const leaks = { TEMPORAL_TLS_CLIENT_KEY_DATA: 'tls-key-data', TEMPORAL_GRPC_META_AUTHORIZATION: 'Bearer meta', TEMPORAL_API_KEY: 'temporal-key' };
    Object.assign(process.env, leaks);
    try {
      const { result } = await bash(`env; echo "lang=$LANG"`, { sandbox: { mode: 'none' } });
      expect(result.exitCode).toBe(0);
      for (const value of [SECRET, 'sk-model-key-test', ...Object.values(leaks)]) expect(result.stdout).not.toContain(value);
      expect(result.stdout).toContain('PATH=');
    } finally {
      for (const name of Object.keys(leaks)) delete process.env[name];
    }
  });

  test('AGENT_TEAMS_BASH_ENV cannot name a credential: it is left out, and the worker says so at start', async () => {
    const config = sandboxConfigFromEnv({ AGENT_TEAMS_BASH_ENV: 'GOPATH,MODEL_API_KEY,GITHUB_TOKEN,DB_PASSWORD_FILE,AWS_SECRET' });
    expect(config.allowEnv).toEqual(['GOPATH']);
    const { result } = await bash('echo "${MODEL_API_KEY:-unset}"', { sandbox: { allowEnv: config.allowEnv } });
    expect(result.stdout).toBe('unset\n');
    const log = { warn: jest.fn(), error: jest.fn(), info: jest.fn() };
    process.env.AGENT_TEAMS_BASH_ENV = 'GOPATH,MODEL_API_KEY';
    try {
      await checkBashSandbox(config, root, log);
    } finally {
      delete process.env.AGENT_TEAMS_BASH_ENV;
    }
    expect(log.warn).toHaveBeenCalledWith(expect.stringContaining('MODEL_API_KEY'));
  });

  test('a key file named only inside the TOML profile is masked where the sandbox shows its directory', async () => {
    const conf = path.join(scratch, 'conf');
    fs.mkdirSync(conf);
    fs.writeFileSync(path.join(conf, 'client.key'), `${SECRET}\n`);
    fs.writeFileSync(path.join(conf, 'readme.txt'), 'shown\n');
    fs.writeFileSync(
      path.join(conf, 'temporal.toml'),
      `[profile.default]\naddress = "127.0.0.1:7233"\n[profile.default.tls]\nclient_cert_path = "${conf}/client.pem"\nclient_key_path = "${conf}/client.key"\n`,
    );
    fs.writeFileSync(path.join(conf, 'client.pem'), 'cert\n');
    giveToBash(conf, scratch);
    const { runWorkTool } = createWorkToolActivities({
      root,
      env: { ...process.env, TEMPORAL_CONFIG_FILE: path.join(conf, 'temporal.toml'), AGENT_TEAMS_BASH_BIND: conf },
    });
    const outcome = await runWorkTool({
      tool: 'bash',
      argumentsJson: JSON.stringify({ command: `cat ${conf}/readme.txt; cat ${conf}/client.key | wc -c; cat ${conf}/temporal.toml | wc -c` }),
      cwd: '.',
    });
    expect(outcome.text).not.toContain(SECRET);
    expect(JSON.parse(outcome.text)).toMatchObject({ stdout: 'shown\n0\n0\n', exitCode: 0 });
  });

  test('start-up check: warns on the opt-out, errors when the sandbox cannot start, informs when it can', async () => {
    const log = { warn: jest.fn(), error: jest.fn(), info: jest.fn() };
    const base = sandboxConfigFromEnv({});
    expect(await checkBashSandbox({ ...base, mode: 'none' }, root, log)).toMatchObject({ ok: true, unsandboxed: true });
    expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/AGENT_TEAMS_BASH_SANDBOX=none: bash runs UNSANDBOXED/));
    expect(await checkBashSandbox({ ...base, bwrapPath: '/nonexistent/bwrap' }, root, log)).toMatchObject({ ok: false });
    expect(log.error).toHaveBeenCalledWith(expect.stringMatching(/SandboxUnavailable: \/nonexistent\/bwrap not found.*AGENT_TEAMS_BASH_SANDBOX=none/));
    expect(await checkBashSandbox(base, root, log)).toEqual({ ok: true });
    expect(log.info).toHaveBeenCalledWith(expect.stringMatching(/bubblewrap.*network off/));
  });
});

/** Pids of host processes whose command line is exactly `command`. */
function processesRunning(command: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim() === command) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}
