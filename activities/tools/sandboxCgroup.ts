/**
 * A cgroup per `bash` command (issue 21), so the memory and the number of processes of everything
 * the command starts are bounded together, and a hit limit is told by the kernel's own counters
 * (which no output of the command can forge).
 *
 * Each controller (memory, pids) is taken from wherever the host has it, so a host that mixes
 * versions is covered too:
 * - cgroup v1: a hierarchy the worker can create directories in (a worker running as root, on a
 *   host or in a privileged container); commands' cgroups go under `<the worker's cgroup>/agent-teams-bash`;
 * - cgroup v2: the worker's own cgroup, where it is delegated to the worker (cgroupDelegation.ts):
 *   the root of the worker's own cgroup namespace (a container's), or any with
 *   AGENT_TEAMS_BASH_CGROUP=delegated (a systemd unit with Delegate=yes).
 * Without either, bash runs without a cgroup: processes are still bounded per command by
 * RLIMIT_NPROC in the sandbox's user namespace, and memory per process by RLIMIT_AS
 * (sandboxLimits.ts), and a hit limit shows as the command's own failure. AGENT_TEAMS_BASH_CGROUP=off
 * turns cgroups off.
 *
 * Each command's cgroup is made before the command starts and removed after it, killing whatever is left.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { delegatedCommandCgroups } from './cgroupDelegation';
import { CGROUP_CONTROLLERS, type CgroupController, v1Holds, v1OwnDir, v2OwnDir, v2OwnPath } from './cgroupMounts';

export const BASH_CGROUP_ENV = 'AGENT_TEAMS_BASH_CGROUP';

/** Where one controller's command cgroups are made. */
export interface ControllerHome {
  version: 1 | 2;
  dir: string;
}

/** The controllers this worker bounds commands with, each with its home. */
export type CgroupHomes = Partial<Record<CgroupController, ControllerHome>>;

/** What a command's cgroup saw: the limits it hit. */
export interface CgroupOutcome {
  memory: boolean;
  processes: boolean;
}

export interface CommandCgroup {
  /** Which limits the cgroup holds (without memory, RLIMIT_AS still bounds each process). */
  bounds: { memory: boolean; processes: boolean };
  /** Moves a process into the cgroup (before it starts the command, so everything it forks is counted). */
  add(pid: number): void;
  /** Reads which limits were hit, then kills what is left and removes the cgroup (finishing in the background if it must wait). */
  finish(): CgroupOutcome;
}

export interface CgroupSources {
  mountinfo: string;
  ownCgroups: string;
}

function readSources(): CgroupSources | null {
  try {
    return { mountinfo: fs.readFileSync('/proc/self/mountinfo', 'utf8'), ownCgroups: fs.readFileSync('/proc/self/cgroup', 'utf8') };
  } catch {
    return null;
  }
}

/** `dir`/agent-teams-bash made and writable: a v1 home; null otherwise. */
function v1Home(ownDir: string | null): ControllerHome | null {
  if (ownDir === null) return null;
  const dir = path.join(ownDir, 'agent-teams-bash');
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
    return { version: 1, dir };
  } catch {
    return null;
  }
}

/**
 * The homes this worker can use, or null (no cgroups it may change, or turned off). On v2 this
 * may move the worker into its leaf cgroup (cgroupDelegation.ts), once.
 */
export function detectCgroups(env: Record<string, string | undefined> = process.env, sources: CgroupSources | null = readSources()): CgroupHomes | null {
  const mode = env[BASH_CGROUP_ENV]?.trim().toLowerCase();
  if (mode === 'off' || sources === null) return null;
  const homes: CgroupHomes = {};
  const onV2: CgroupController[] = [];
  for (const controller of CGROUP_CONTROLLERS) {
    if (!v1Holds(sources.mountinfo, controller)) {
      onV2.push(controller);
      continue;
    }
    const home = v1Home(v1OwnDir(sources.mountinfo, sources.ownCgroups, controller));
    if (home) homes[controller] = home;
  }
  // A v2 cgroup the worker may write is not always its own to change (a root worker in a systemd
  // unit without Delegate=, a user's terminal scope): only the root of the worker's own cgroup
  // namespace (a container's) is taken without being told, or any when the deployment says so.
  const mayChangeV2 = mode === 'delegated' || v2OwnPath(sources.ownCgroups) === '/';
  const ownV2 = onV2.length > 0 && mayChangeV2 ? v2OwnDir(sources.mountinfo, sources.ownCgroups) : null;
  const delegated = ownV2 === null ? null : delegatedCommandCgroups(ownV2, onV2);
  for (const controller of onV2) if (delegated?.controllers.includes(controller)) homes[controller] = { version: 2, dir: delegated.dir };
  return Object.keys(homes).length > 0 ? homes : null;
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
 * Kills what is left in cgroup `dir` and removes it, retrying off the event loop while its last
 * members are still being reaped (rmdir fails with EBUSY until then). v2's cgroup.kill also
 * reaches processes forked while the list is read.
 */
export function killAndRemove(dir: string, attempt = 0): void {
  let pids: string[] = [];
  try {
    pids = fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return; // already removed
  }
  try {
    if (pids.length > 0) fs.writeFileSync(path.join(dir, 'cgroup.kill'), '1');
  } catch {
    // v1, or a kernel before 5.14: signal each one
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

/** One directory of the command's cgroup, and the controllers it carries (a v2 one carries both). */
interface Leaf {
  dir: string;
  version: 1 | 2;
  controllers: CgroupController[];
}

function leavesFor(homes: CgroupHomes, name: string): Leaf[] {
  const leaves: Leaf[] = [];
  for (const controller of CGROUP_CONTROLLERS) {
    const home = homes[controller];
    if (!home) continue;
    const dir = path.join(home.dir, name);
    const same = leaves.find((leaf) => leaf.dir === dir);
    if (same) same.controllers.push(controller);
    else leaves.push({ dir, version: home.version, controllers: [controller] });
  }
  return leaves;
}

function writeLimits(leaf: Leaf, limits: { memory: number; processes: number }): void {
  const write = (file: string, value: string) => fs.writeFileSync(path.join(leaf.dir, file), value);
  if (leaf.controllers.includes('memory')) {
    if (leaf.version === 1) {
      write('memory.limit_in_bytes', String(limits.memory));
      // Without swap accounting the file is absent; with it, swap must not extend the limit.
      if (fs.existsSync(path.join(leaf.dir, 'memory.memsw.limit_in_bytes'))) write('memory.memsw.limit_in_bytes', String(limits.memory));
    } else {
      write('memory.max', String(limits.memory));
      // v2 counts swap apart: none at all, so RAM and swap together stay within the limit.
      if (fs.existsSync(path.join(leaf.dir, 'memory.swap.max'))) write('memory.swap.max', '0');
    }
  }
  if (leaf.controllers.includes('pids')) write('pids.max', String(limits.processes));
}

/** A cgroup with the command's memory (RAM and swap) and process limits, in each controller's home. */
export function createCommandCgroup(homes: CgroupHomes, limits: { memory: number; processes: number }): CommandCgroup {
  const leaves = leavesFor(homes, `${process.pid}-${++counter}`);
  try {
    for (const leaf of leaves) {
      fs.mkdirSync(leaf.dir);
      writeLimits(leaf, limits);
    }
  } catch (error) {
    for (const leaf of leaves) killAndRemove(leaf.dir);
    throw error;
  }
  const memoryLeaf = leaves.find((leaf) => leaf.controllers.includes('memory'));
  const pidsLeaf = leaves.find((leaf) => leaf.controllers.includes('pids'));
  return {
    bounds: { memory: memoryLeaf !== undefined, processes: pidsLeaf !== undefined },
    add(pid) {
      for (const leaf of leaves) fs.writeFileSync(path.join(leaf.dir, 'cgroup.procs'), String(pid));
    },
    finish() {
      const outcome = {
        memory:
          memoryLeaf !== undefined && counterIn(path.join(memoryLeaf.dir, memoryLeaf.version === 1 ? 'memory.oom_control' : 'memory.events'), 'oom_kill') > 0,
        processes: pidsLeaf !== undefined && counterIn(path.join(pidsLeaf.dir, 'pids.events'), 'max') > 0,
      };
      for (const leaf of leaves) killAndRemove(leaf.dir);
      return outcome;
    },
  };
}
