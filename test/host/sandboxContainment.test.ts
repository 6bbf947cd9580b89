/**
 * Issue 21, played as the attacker under real bubblewrap: what one `bash` command can reach (the
 * host's Unix sockets, other users' files, root) and what it can consume (memory, processes, the
 * private tmpfs mounts, the output channels). Each case fails on the sandbox before issue 21.
 *
 * Run as root (CI) and, by `npm run test:unprivileged`, as an unprivileged user: where the worker
 * can make cgroups (root here) the memory and process limits are reported as SandboxLimit; without
 * them the limits still hold, per process and per user namespace, and the command fails as its
 * programs report it.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createWorkToolActivities } from '../../activities/tools';
import { detectCgroups } from '../../activities/tools/sandboxCgroup';
import { forkBombPython, UNIX_SOCKET_PROBE_PYTHON } from '../support/attackScripts';
import { giveToBash, runningAsRoot } from '../support/bashUser';

let scratch: string;
let root: string;
const cgroups = detectCgroups();

beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-containment-'));
  root = path.join(scratch, 'checkout');
  fs.mkdirSync(root);
  giveToBash(root, scratch);
});

afterEach(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function bash(command: string, options: { timeoutMs?: number; env?: Record<string, string>; network?: boolean } = {}) {
  const { runWorkTool } = createWorkToolActivities({
    root,
    env: { ...process.env, ...options.env },
    ...(options.network ? { sandbox: { network: true } } : {}),
  });
  const outcome = await runWorkTool({ tool: 'bash', argumentsJson: JSON.stringify({ command, timeoutMs: options.timeoutMs ?? 30_000 }), cwd: '.' });
  return { ok: outcome.ok, result: JSON.parse(outcome.text) as Record<string, unknown> };
}

/** Processes on the host whose command line contains `marker`. */
function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (command.includes(marker)) found.push(`${entry}: ${command}`);
    } catch {
      // gone
    }
  }
  return found;
}

describe('what a command can reach', () => {
  /** Listening Unix sockets where the host keeps them, with a count of connections each accepted. */
  async function listenAt(dirs: string[]) {
    const servers: Array<{ file: string; server: net.Server; accepted: number }> = [];
    for (const dir of dirs) {
      try {
        fs.mkdirSync(dir, { recursive: true });
      } catch {
        continue; // not ours to create (an unprivileged run cannot make /run/...)
      }
      const file = path.join(dir, `agent-teams-test-${process.pid}.sock`);
      fs.rmSync(file, { force: true });
      const entry = { file, server: net.createServer((socket) => (entry.accepted++, socket.end('owned\n'))), accepted: 0 };
      await new Promise<void>((resolve, reject) => entry.server.once('error', reject).listen(file, resolve));
      fs.chmodSync(file, 0o777);
      servers.push(entry);
    }
    return servers;
  }

  test.each([false, true])(
    'no socket of the host is reachable, network opt-in %s (the listener answers the host itself)',
    async (network) => {
      const dirs = ['/run/agent-teams-test', '/var/run/agent-teams-test-var', '/tmp', '/dev/shm', path.join(os.homedir(), '.agent-teams-test'), scratch];
      const servers = await listenAt(dirs);
      expect(servers.length).toBeGreaterThanOrEqual(4);
      try {
        const files = servers.map((entry) => entry.file);
        fs.writeFileSync(path.join(root, 'probe.py'), UNIX_SOCKET_PROBE_PYTHON);
        giveToBash(root);
        // The control: the same probe from the host connects to every one (asynchronously: the listeners are in this process).
        const host = await promisify(execFile)('python3', [path.join(root, 'probe.py'), ...files], { encoding: 'utf8', timeout: 10_000 });
        expect(host.stdout.match(/CONNECTED/g)?.length).toBe(files.length);
        const before = servers.map((entry) => entry.accepted);
        const { result } = await bash(`python3 probe.py ${files.map((file) => `'${file}'`).join(' ')}`, { network });
        expect(result.stdout).not.toMatch(/CONNECTED/);
        expect((result.stdout as string).match(/refused/g)?.length).toBe(files.length);
        expect(servers.map((entry) => entry.accepted)).toEqual(before);
      } finally {
        for (const entry of servers) {
          await new Promise((resolve) => entry.server.close(resolve));
          fs.rmSync(entry.file, { force: true });
        }
        fs.rmSync('/run/agent-teams-test', { recursive: true, force: true });
        fs.rmSync('/var/run/agent-teams-test-var', { recursive: true, force: true });
        fs.rmSync(path.join(os.homedir(), '.agent-teams-test'), { recursive: true, force: true });
      }
    },
    30_000,
  );

  test('only the system paths are there: no /home, /root, /var, /sys; /run, /tmp and HOME are private and empty', async () => {
    const { result } = await bash(
      'ls -A / | tr "\\n" " "; echo; for d in /run /tmp /dev/shm "$HOME"; do echo "$d:$(ls -A "$d" | wc -l)"; done; ls /home /sys /var/lib 2>&1 | head -3',
    );
    const [top = '', ...rest] = (result.stdout as string).split('\n');
    expect(top.trim().split(' ').sort()).toEqual(expect.arrayContaining(['usr', 'etc', 'proc', 'dev', 'tmp', 'run']));
    // The first component of HOME (a private tmpfs) and of the checkout are there as the way to them.
    const shownWays = [process.env.HOME ?? '/', fs.realpathSync(root)].map((dir) => dir.split('/')[1]);
    for (const hidden of ['home', 'sys', 'srv', 'opt', 'mnt', 'boot'].filter((name) => !shownWays.includes(name))) expect(top.split(' ')).not.toContain(hidden);
    // /tmp holds only the way to the checkout when the checkout lies under it.
    const tmpEntries = fs.realpathSync(root).startsWith('/tmp/') ? 1 : 0;
    const home = process.env.HOME && process.env.HOME !== '/' ? process.env.HOME : '/tmp';
    expect(rest.slice(0, 4)).toEqual(['/run:0', `/tmp:${tmpEntries}`, '/dev/shm:0', `${home}:${home === '/tmp' ? tmpEntries : 0}`]);
    if (!shownWays.includes('home')) expect(result.stdout).toMatch(/ls: cannot access '\/home': No such file or directory/);
    expect(result.stdout).toMatch(/ls: cannot access '\/sys'/);
  });

  test('a deployment binds a toolchain directory read-only with AGENT_TEAMS_BASH_BIND', async () => {
    const toolchain = path.join(scratch, 'toolchain'); // under /tmp: its own subdirectory may be bound, /tmp itself not
    fs.mkdirSync(path.join(toolchain, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(toolchain, 'bin', 'tool'), '#!/bin/sh\necho tool ran\n', { mode: 0o755 });
    giveToBash(toolchain, scratch);
    const { result } = await bash(`${toolchain}/bin/tool; touch ${toolchain}/x 2>&1 | grep -o 'Read-only file system'`, {
      env: { AGENT_TEAMS_BASH_BIND: toolchain },
    });
    expect(result.stdout).toBe('tool ran\nRead-only file system\n');
  });

  test('bash is never root: not uid 0, no /etc/shadow, no new user namespace; a root-owned checkout or AGENT_TEAMS_BASH_USER=root is refused', async () => {
    const { result } = await bash('id -u; cat /etc/shadow 2>&1 | head -n1; unshare -Ur true 2>&1 | head -n1');
    const [uid, shadow, unshare] = (result.stdout as string).split('\n');
    expect(uid).not.toBe('0');
    expect(uid).toBe(String(fs.statSync(root).uid));
    expect(shadow).toMatch(/Permission denied/);
    expect(unshare).toMatch(/unshare failed/);
    if (!runningAsRoot()) return; // the refusals below are about a worker running as root
    fs.chownSync(root, 0, 0);
    const refused = await bash('touch ran');
    expect(refused).toMatchObject({
      ok: false,
      result: { error: 'SandboxUnavailable', message: expect.stringMatching(/owned by root.*AGENT_TEAMS_BASH_USER/) },
    });
    const named = await bash('touch ran', { env: { AGENT_TEAMS_BASH_USER: 'root' } });
    expect(named.result).toMatchObject({ error: 'SandboxUnavailable', message: expect.stringMatching(/names root; bash never runs as root/) });
    expect(fs.existsSync(path.join(root, 'ran'))).toBe(false);
  });
});

describe('what a command can consume: each limit ends as SandboxLimit, the worker unharmed', () => {
  test.each([
    ['stdout', 'head -c 200000000 /dev/zero', 'output'],
    ['stderr', 'head -c 200000000 /dev/zero >&2', 'output'],
    ['fd 3, the directory report', 'head -c 200000000 /dev/zero >&3', 'directoryReport'],
  ])('a 200 MB flood on %s is stopped at its cap; worker RSS stays flat', async (_channel, command, limit) => {
    const before = process.memoryUsage().rss;
    const { ok, result } = await bash(command);
    expect(ok).toBe(false);
    expect(result).toMatchObject({ error: 'SandboxLimit', message: expect.stringContaining(`sandbox's ${limit} limit`) });
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  test('a 6 GiB write to /tmp, and one to HOME, fill only their private tmpfs', async () => {
    const tmp = await bash('dd if=/dev/zero of=/tmp/big bs=1M count=6144 status=none');
    expect(tmp.result).toMatchObject({ error: 'SandboxLimit', message: expect.stringMatching(/tmp limit \(512 MiB\): \/tmp is full/) });
    if (process.env.HOME && process.env.HOME !== '/' && fs.existsSync(process.env.HOME)) {
      const home = await bash('dd if=/dev/zero of="$HOME/big" bs=1M count=6144 status=none');
      expect(home.result).toMatchObject({ error: 'SandboxLimit', message: expect.stringMatching(/home limit \(128 MiB\)/) });
    }
    const shm = await bash('dd if=/dev/zero of=/dev/shm/big bs=1M count=6144 status=none');
    expect(shm.result).toMatchObject({ error: 'SandboxLimit', message: expect.stringMatching(/shm limit \(64 MiB\)/) });
  });

  test('a file past the file-size limit is cut and its writer killed', async () => {
    const { result } = await bash('head -c 40M /dev/zero > big', { env: { AGENT_TEAMS_BASH_LIMITS: 'fileSize=16MiB' } });
    expect(result).toMatchObject({ error: 'SandboxLimit', message: expect.stringMatching(/fileSize limit \(16 MiB\)/) });
    expect(fs.statSync(path.join(root, 'big')).size).toBe(16 * 1024 * 1024);
  });

  test('the cgroups commands get: v1 memory and pids for a root worker on a v1 host (this one), never a v1 one unprivileged', () => {
    const v1Host = ['memory', 'pids'].every((controller) => fs.existsSync(`/sys/fs/cgroup/${controller}/cgroup.procs`));
    const v1Home = (controller: string) => ({ version: 1, dir: expect.stringMatching(new RegExp(`^/sys/fs/cgroup/${controller}(/.*)?/agent-teams-bash$`)) });
    if (runningAsRoot() && v1Host) expect(cgroups).toEqual({ memory: v1Home('memory'), pids: v1Home('pids') });
    // Unprivileged, only a v2 subtree delegated to the user (systemd's user@.service) can give one.
    if (!runningAsRoot()) expect(Object.values(cgroups ?? {}).every((home) => home.version === 2)).toBe(true);
  });

  test('an 8 GiB allocation fails (SandboxLimit where the worker has cgroups)', async () => {
    const before = process.memoryUsage().rss;
    const { result } = await bash('python3 -c "b = bytearray(8 * 1024**3); print(len(b))"', { timeoutMs: 60_000 });
    if (cgroups?.memory) expect(result).toMatchObject({ error: 'SandboxLimit', message: expect.stringMatching(/memory limit \(2 GiB\)/) });
    else expect(result).toMatchObject({ exitCode: 1, stderr: expect.stringMatching(/MemoryError/) }); // RLIMIT_AS, 4 GiB a process
    expect(result.stdout ?? '').not.toMatch(/8589934592/);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  }, 90_000);

  test('a fork bomb is held at the process limit and leaves nothing behind', async () => {
    const marker = `agent-teams-fork-${process.pid}`;
    fs.writeFileSync(path.join(root, 'bomb.py'), forkBombPython(marker));
    giveToBash(root);
    const { result } = await bash(`python3 bomb.py ${marker}`, { timeoutMs: 60_000, env: { AGENT_TEAMS_BASH_LIMITS: 'processes=64' } });
    if (cgroups?.pids) expect(result).toMatchObject({ error: 'SandboxLimit', message: expect.stringMatching(/processes limit \(64 processes\)/) });
    else expect(Number(/forks refused: (\d+)/.exec(String(result.stdout))?.[1])).toBeGreaterThan(1000); // RLIMIT_NPROC in the sandbox's user namespace
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processesWith(marker)).toEqual([]);
  }, 90_000);
});
