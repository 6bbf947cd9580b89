/**
 * The pure parts of issue 21's sandbox: limits from AGENT_TEAMS_BASH_LIMITS, who bash runs as, the
 * cgroup v1 and v2 hierarchies from /proc texts, and a full tmpfs told from the supervisor's report.
 */
import { fullTmpfs, privateTmpfs } from '../../activities/tools/bashRun';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { v1Holds, v1OwnDir, v2OwnDir } from '../../activities/tools/cgroupMounts';
import { detectCgroups } from '../../activities/tools/sandboxCgroup';
import { parseBashUser, sandboxIdentity } from '../../activities/tools/sandboxIdentity';
import { DEFAULT_SANDBOX_LIMITS, formatBytes, parseSandboxLimits, parseSize } from '../../activities/tools/sandboxLimits';

test('sizes and limits: units, defaults, and what is refused', () => {
  expect([parseSize('512MiB'), parseSize('2g'), parseSize('1048576'), parseSize('1 KiB'), parseSize('-1'), parseSize('1TB')]).toEqual([
    512 * 1024 ** 2,
    2 * 1024 ** 3,
    1048576,
    1024,
    null,
    null,
  ]);
  expect(parseSandboxLimits(undefined)).toEqual(DEFAULT_SANDBOX_LIMITS);
  expect(parseSandboxLimits(' tmp=64MiB , cpuSeconds=30 ')).toEqual({ ...DEFAULT_SANDBOX_LIMITS, tmp: 64 * 1024 ** 2, cpuSeconds: 30 });
  expect(() => parseSandboxLimits('tmp=1KiB')).toThrow(/tmp/); // below 1 MiB
  expect(() => parseSandboxLimits('openFiles=8')).toThrow(/openFiles/);
  expect(() => parseSandboxLimits('__proto__=1')).toThrow(/unknown entry/);
  expect(() => parseSandboxLimits('memory=1g=2')).toThrow(/unknown entry/);
  expect([formatBytes(2 * 1024 ** 3), formatBytes(64 * 1024 ** 2), formatBytes(1000)]).toEqual(['2 GiB', '64 MiB', '1000 bytes']);
});

test('bash user: uid:gid, a uid (gid from passwd), a name; never root, and a root-owned checkout refused', () => {
  const passwd = 'root:x:0:0::/root:/bin/bash\nnode:x:1000:1000::/home/node:/bin/bash\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n';
  expect(parseBashUser('1000:2000', passwd)).toEqual({ uid: 1000, gid: 2000 });
  expect(parseBashUser('65534', passwd)).toEqual({ uid: 65534, gid: 65534 });
  expect(parseBashUser('4242', passwd)).toEqual({ uid: 4242, gid: 4242 });
  expect(parseBashUser('node', passwd)).toEqual({ uid: 1000, gid: 1000 });
  expect(parseBashUser('nosuchuser', passwd)).toBeNull();
  const ownedBy = (uid: number) => () => ({ uid, gid: uid });
  expect(sandboxIdentity('/co', {}, 1000, ownedBy(0))).toEqual({ ok: true, run: null }); // not root: bash runs as the worker
  expect(sandboxIdentity('/co', {}, 0, ownedBy(1000))).toEqual({ ok: true, run: { uid: 1000, gid: 1000 } });
  expect(sandboxIdentity('/co', {}, 0, ownedBy(0))).toMatchObject({ ok: false, reason: expect.stringMatching(/owned by root.*chown/) });
  expect(sandboxIdentity('/co', { AGENT_TEAMS_BASH_USER: '0:0' }, 0, ownedBy(1000))).toMatchObject({
    ok: false,
    reason: expect.stringMatching(/never runs as root/),
  });
  expect(sandboxIdentity('/co', { AGENT_TEAMS_BASH_USER: '4242:4242' }, 0, ownedBy(0))).toEqual({ ok: true, run: { uid: 4242, gid: 4242 } });
});

test('cgroup v1: the memory and pids hierarchies under the worker own cgroup, also in a container whose mount root is its own', () => {
  const mountinfo = [
    '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
    '36 31 0:33 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
    '39 31 0:36 /docker/abc /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  ].join('\n');
  const own = '8:pids:/docker/abc/sub\n4:memory:/process_api/x\n0::/\n';
  expect(v1OwnDir(mountinfo, own, 'memory')).toBe('/sys/fs/cgroup/memory/process_api/x');
  expect(v1OwnDir(mountinfo, own, 'pids')).toBe('/sys/fs/cgroup/pids/sub');
  expect(v1Holds(mountinfo, 'pids')).toBe(true);
  expect(v1OwnDir(mountinfo, '8:pids:/elsewhere\n4:memory:/x\n', 'pids')).toBeNull(); // not under the pids mount's root
  expect(v2OwnDir(mountinfo, own)).toBeNull(); // no unified hierarchy mounted
});

test('cgroup v2: the worker own cgroup in the unified hierarchy, alone or beside v1 hierarchies that keep some controllers', () => {
  const v2Only = '25 1 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate';
  const service = '0::/system.slice/agent-teams.service\n';
  expect(v2OwnDir(v2Only, service)).toBe('/sys/fs/cgroup/system.slice/agent-teams.service');
  expect(v1Holds(v2Only, 'memory')).toBe(false);
  expect(v1OwnDir(v2Only, service, 'memory')).toBeNull();
  // A container with its own cgroup namespace sees itself at the root.
  expect(v2OwnDir('40 30 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw', '0::/\n')).toBe('/sys/fs/cgroup');
  // systemd's hybrid layout: v1 holds memory, the unified mount holds what v1 does not.
  const hybrid = ['36 31 0:33 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory', '37 31 0:34 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw'].join('\n');
  expect(v1Holds(hybrid, 'memory')).toBe(true);
  expect(v1Holds(hybrid, 'pids')).toBe(false);
  expect(v2OwnDir(hybrid, '4:memory:/a\n0::/a\n')).toBe('/sys/fs/cgroup/unified/a');
  expect(v2OwnDir(v2Only, '4:memory:/a\n')).toBeNull(); // no 0:: line: not in the unified hierarchy
});

test('a full tmpfs is read from the supervisor report, under 1% free; anything else is not a limit', () => {
  const mounts = privateTmpfs(DEFAULT_SANDBOX_LIMITS, '/home/node');
  expect(fullTmpfs('/tmp 0 131072\n/dev/shm 16384 16384\n', mounts)).toMatchObject({ limit: 'tmp', value: '512 MiB' });
  expect(fullTmpfs('/tmp 131072 131072\n/home/node 100 32768\n', mounts)).toMatchObject({ limit: 'home', value: '128 MiB' });
  expect(fullTmpfs('/tmp 5000 131072\n', mounts)).toBeNull();
  expect(fullTmpfs('/etc 0 100\ngarbage\n', mounts)).toBeNull(); // only the private mounts count
});

test('cgroup v2 is changed only where it is plainly the worker own: its cgroup namespace root, or AGENT_TEAMS_BASH_CGROUP=delegated', () => {
  // A directory laid out like a cgroup2 mount (plain files: this checks the policy; test/host/cgroupV2.test.ts the kernel).
  const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'cgroup2-policy-'));
  try {
    const service = path.join(mount, 'system.slice', 'agent-teams.service');
    for (const dir of [mount, service]) {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'cgroup.controllers'), 'cpu memory pids\n');
      fs.writeFileSync(path.join(dir, 'cgroup.subtree_control'), '');
    }
    const mountinfo = `25 1 0:22 / ${mount} rw - cgroup2 cgroup2 rw`;
    const inService = { mountinfo, ownCgroups: '0::/system.slice/agent-teams.service\n' };
    // A unit's cgroup the worker can write, not said to be delegated: left alone, nothing made in it.
    expect(detectCgroups({}, inService)).toBeNull();
    expect(fs.existsSync(path.join(service, 'agent-teams-bash'))).toBe(false);
    const delegated = detectCgroups({ AGENT_TEAMS_BASH_CGROUP: 'delegated' }, inService);
    expect(delegated).toEqual({
      memory: { version: 2, dir: path.join(service, 'agent-teams-bash') },
      pids: { version: 2, dir: path.join(service, 'agent-teams-bash') },
    });
    // A container's own cgroup namespace: its root is the container's.
    expect(detectCgroups({}, { mountinfo, ownCgroups: '0::/\n' })).toEqual({
      memory: { version: 2, dir: path.join(mount, 'agent-teams-bash') },
      pids: { version: 2, dir: path.join(mount, 'agent-teams-bash') },
    });
    expect(detectCgroups({ AGENT_TEAMS_BASH_CGROUP: 'off' }, { mountinfo, ownCgroups: '0::/\n' })).toBeNull();
  } finally {
    fs.rmSync(mount, { recursive: true, force: true });
  }
});
