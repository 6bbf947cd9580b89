/**
 * A cgroup per `bash` command (issue 21), so the memory and the number of processes of everything
 * the command starts are bounded together, and a hit limit is told by the kernel's own counters
 * (which no output of the command can forge).
 *
 * Supported: cgroup v1 memory and pids hierarchies the worker can create directories in (a worker
 * running as root, on a host or in a privileged container). Not yet: cgroup v2 (a delegated
 * subtree); there, and for a worker that cannot write the hierarchies, bash runs without a cgroup:
 * processes are still bounded per command by RLIMIT_NPROC in the sandbox's user namespace, and
 * memory per process by RLIMIT_AS (sandboxLimits.ts). AGENT_TEAMS_BASH_CGROUP=off turns them off.
 *
 * Each command gets `<hierarchy><the worker's cgroup>/agent-teams-bash/<pid>-<n>` in each, made
 * before the command starts and removed after it (killing whatever is left).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const BASH_CGROUP_ENV = 'AGENT_TEAMS_BASH_CGROUP';

export interface CgroupHierarchies {
  /** The directory (mount point plus the worker's own cgroup) commands' cgroups are made under. */
  memory: string;
  pids: string;
}

/** What a command's cgroup saw: the limits it hit. */
export interface CgroupOutcome {
  memory: boolean;
  processes: boolean;
}

export interface CommandCgroup {
  /** Moves a process into the cgroup (before it starts the command, so everything it forks is counted). */
  add(pid: number): void;
  /** Reads which limits were hit, then kills what is left and removes the cgroup (finishing in the background if it must wait). */
  finish(): CgroupOutcome;
}

/** v1 hierarchies from /proc/self/mountinfo and /proc/self/cgroup texts (pure). */
export function v1Hierarchies(mountinfo: string, ownCgroups: string): CgroupHierarchies | null {
  // A mount's root (field 4) is the cgroup it shows at its mount point (field 5): a container's may be its own.
  const mountOf = (controller: string): { root: string; point: string } | null => {
    for (const line of mountinfo.split('\n')) {
      const [left, right] = line.split(' - ');
      if (!left || !right) continue;
      const [fstype, , superOptions = ''] = right.split(' ');
      const fields = left.split(' ');
      if (fstype === 'cgroup' && superOptions.split(',').includes(controller) && fields[3] && fields[4]) return { root: fields[3], point: fields[4] };
    }
    return null;
  };
  const ownOf = (controller: string): string | null => {
    for (const line of ownCgroups.split('\n')) {
      const [, controllers = '', own] = line.split(':');
      if (own !== undefined && controllers.split(',').includes(controller)) return own;
    }
    return null;
  };
  const result: Partial<CgroupHierarchies> = {};
  for (const controller of ['memory', 'pids'] as const) {
    const mount = mountOf(controller);
    const own = ownOf(controller);
    if (mount === null || own === null) return null;
    const relative = path.posix.relative(mount.root, own);
    if (relative.startsWith('..')) return null; // the worker's cgroup is not under this mount
    result[controller] = path.join(mount.point, relative, 'agent-teams-bash');
  }
  return result as CgroupHierarchies;
}

/** The hierarchies this worker can use, or null (none, v2 only, not writable, or turned off). */
export function detectCgroups(env: Record<string, string | undefined> = process.env): CgroupHierarchies | null {
  if (env[BASH_CGROUP_ENV]?.trim().toLowerCase() === 'off') return null;
  let hierarchies: CgroupHierarchies | null;
  try {
    hierarchies = v1Hierarchies(fs.readFileSync('/proc/self/mountinfo', 'utf8'), fs.readFileSync('/proc/self/cgroup', 'utf8'));
  } catch {
    return null;
  }
  if (hierarchies === null) return null;
  try {
    for (const dir of [hierarchies.memory, hierarchies.pids]) fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(hierarchies.memory, fs.constants.W_OK);
    fs.accessSync(hierarchies.pids, fs.constants.W_OK);
  } catch {
    return null;
  }
  return hierarchies;
}

let counter = 0;

function counterIn(file: string, name: string): number {
  try {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const [key, value] = line.trim().split(/\s+/);
      if (key === name) return Number(value) || 0;
    }
  } catch {
    // gone or unreadable: nothing seen
  }
  return 0;
}

/**
 * Kills what is left in `dir` and removes it, retrying off the event loop while its last members
 * are still being reaped (rmdir fails with EBUSY until then).
 */
function killAndRemove(dir: string, attempt = 0): void {
  let pids: string[] = [];
  try {
    pids = fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return; // already removed
  }
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  try {
    fs.rmdirSync(dir);
  } catch {
    if (attempt < 200) setTimeout(() => killAndRemove(dir, attempt + 1), Math.min(5 * (attempt + 1), 100)).unref();
  }
}

/** A cgroup in each hierarchy with the command's memory (RAM and swap) and process limits. */
export function createCommandCgroup(hierarchies: CgroupHierarchies, limits: { memory: number; processes: number }): CommandCgroup {
  const name = `${process.pid}-${++counter}`;
  const memory = path.join(hierarchies.memory, name);
  const pids = path.join(hierarchies.pids, name);
  fs.mkdirSync(memory);
  fs.mkdirSync(pids);
  try {
    fs.writeFileSync(path.join(memory, 'memory.limit_in_bytes'), String(limits.memory));
    // Without swap accounting the file is absent; with it, swap must not extend the limit.
    const swap = path.join(memory, 'memory.memsw.limit_in_bytes');
    if (fs.existsSync(swap)) fs.writeFileSync(swap, String(limits.memory));
    fs.writeFileSync(path.join(pids, 'pids.max'), String(limits.processes));
  } catch (error) {
    killAndRemove(memory);
    killAndRemove(pids);
    throw error;
  }
  return {
    add(pid) {
      fs.writeFileSync(path.join(memory, 'cgroup.procs'), String(pid));
      fs.writeFileSync(path.join(pids, 'cgroup.procs'), String(pid));
    },
    finish() {
      const outcome = {
        memory: counterIn(path.join(memory, 'memory.oom_control'), 'oom_kill') > 0,
        processes: counterIn(path.join(pids, 'pids.events'), 'max') > 0,
      };
      killAndRemove(memory);
      killAndRemove(pids);
      return outcome;
    },
  };
}
