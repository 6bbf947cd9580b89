/**
 * cgroup v2 delegation on the real kernel (issue 21). This host's memory and pids controllers are
 * held by cgroup v1 hierarchies that its pid 1 keeps open, so a v2 mount here offers only
 * `hugetlb`; it stands in for them below. What it shows holds for any domain controller: the
 * kernel's "no internal processes" rule refuses to enable one in a cgroup that holds a process,
 * and the worker moves its cgroup's processes into a leaf to get past it. The limits themselves
 * (memory.max, pids.max) cannot be exercised on v2 here.
 *
 * Root only: it mounts the unified hierarchy and makes cgroups in it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { COMMANDS_DIR, delegatedCommandCgroups, WORKER_LEAF } from '../../activities/tools/cgroupDelegation';
import { v2OwnDir } from '../../activities/tools/cgroupMounts';
import { killAndRemove } from '../../activities/tools/sandboxCgroup';
import { runningAsRoot } from '../support/bashUser';
import { eventually } from '../support/teams';

const describeAsRoot = runningAsRoot() ? describe : describe.skip;

describeAsRoot('cgroup v2 delegation on the real kernel', () => {
  let mount: string;
  let delegated: string;
  let rootHadHugetlb: boolean;
  const children: ChildProcess[] = [];

  const read = (file: string) => fs.readFileSync(file, 'utf8').split(/\s+/).filter(Boolean);
  const sleeper = () => {
    const child = spawn('sleep', ['300'], { stdio: 'ignore' });
    children.push(child);
    return child.pid!;
  };
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
    } catch {
      return false;
    }
  };

  beforeAll(() => {
    mount = fs.mkdtempSync(path.join(os.tmpdir(), 'cgroup2-'));
    const mounted = spawnSync('mount', ['-t', 'cgroup2', 'none', mount], { encoding: 'utf8' });
    expect(mounted.stderr).toBe('');
    rootHadHugetlb = read(path.join(mount, 'cgroup.subtree_control')).includes('hugetlb');
    expect(read(path.join(mount, 'cgroup.controllers'))).toContain('hugetlb');
    fs.writeFileSync(path.join(mount, 'cgroup.subtree_control'), '+hugetlb');
  });

  beforeEach(() => {
    // The worker's delegated cgroup, holding a process, as a service's does.
    delegated = path.join(mount, `agent-teams-test-${process.pid}-${Date.now()}`);
    fs.mkdirSync(delegated);
  });

  /** Every cgroup directory at or under `dir`, deepest first. */
  const cgroupsUnder = (dir: string): string[] => [
    ...fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => cgroupsUnder(path.join(dir, entry.name))),
    dir,
  ];

  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const dir of cgroupsUnder(delegated)) {
      await eventually(
        () => {
          try {
            fs.rmdirSync(dir);
          } catch (error) {
            return Promise.resolve((error as NodeJS.ErrnoException).code === 'ENOENT');
          }
          return Promise.resolve(true);
        },
        (removed) => removed,
        10_000,
      );
    }
  }, 20_000);

  afterAll(() => {
    if (!rootHadHugetlb) fs.writeFileSync(path.join(mount, 'cgroup.subtree_control'), '-hugetlb');
    spawnSync('umount', [mount]);
    fs.rmdirSync(mount);
  });

  test('the worker own cgroup is found from /proc texts at this mount', () => {
    const mountinfo = `99 1 0:99 / ${mount} rw - cgroup2 none rw`;
    expect(v2OwnDir(mountinfo, `0::/${path.basename(delegated)}\n`)).toBe(delegated);
  });

  test('enabling a controller in a cgroup that holds the worker needs the move into its leaf, and the commands dir then has it', () => {
    const worker = sleeper();
    fs.writeFileSync(path.join(delegated, 'cgroup.procs'), String(worker));
    // The kernel's rule, shown without the module: EBUSY while the cgroup holds a process.
    let refusal: unknown;
    try {
      fs.writeFileSync(path.join(delegated, 'cgroup.subtree_control'), '+hugetlb');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: 'EBUSY' });

    const result = delegatedCommandCgroups(delegated, ['hugetlb', 'memory']);
    expect(result).toEqual({ dir: path.join(delegated, COMMANDS_DIR), controllers: ['hugetlb'] });
    expect(read(path.join(delegated, 'cgroup.procs'))).toEqual([]);
    expect(read(path.join(delegated, WORKER_LEAF, 'cgroup.procs'))).toEqual([String(worker)]);
    expect(read(path.join(delegated, 'cgroup.subtree_control'))).toContain('hugetlb');
    // A command's cgroup made there carries the controller's files.
    const command = path.join(result!.dir, 'command-1');
    fs.mkdirSync(command);
    expect(fs.readdirSync(command).some((file) => file.startsWith('hugetlb.'))).toBe(true);
    fs.rmdirSync(command);

    // A worker process that starts in the leaf (a restart, or a second one) uses the same pair.
    expect(delegatedCommandCgroups(path.join(delegated, WORKER_LEAF), ['hugetlb'])).toEqual(result);
    expect(fs.existsSync(path.join(delegated, WORKER_LEAF, WORKER_LEAF))).toBe(false);
  });

  test('a controller the unified hierarchy does not have here (memory, held by v1) gives no cgroup, and nothing is moved', () => {
    const worker = sleeper();
    fs.writeFileSync(path.join(delegated, 'cgroup.procs'), String(worker));
    expect(delegatedCommandCgroups(delegated, ['memory', 'pids'])).toBeNull();
    expect(read(path.join(delegated, 'cgroup.procs'))).toEqual([String(worker)]);
    expect(fs.existsSync(path.join(delegated, WORKER_LEAF))).toBe(false);
  });

  test('a command cgroup is emptied with cgroup.kill, background processes included, and removed', async () => {
    const command = path.join(delegated, 'command');
    fs.mkdirSync(command);
    // The shell forks its background sleeps only once it is in the cgroup.
    const shell = spawn('sh', ['-c', 'read _; sleep 300 & sleep 300 & wait'], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(shell);
    fs.writeFileSync(path.join(command, 'cgroup.procs'), String(shell.pid));
    shell.stdin.end('\n');
    const members = await eventually(
      () => Promise.resolve(read(path.join(command, 'cgroup.procs')).map(Number)),
      (pids) => pids.length === 3,
      10_000,
    );
    killAndRemove(command);
    await eventually(
      () => Promise.resolve(fs.existsSync(command)),
      (exists) => !exists,
      10_000,
    );
    expect(members.filter(alive)).toEqual([]);
  }, 20_000);
});
