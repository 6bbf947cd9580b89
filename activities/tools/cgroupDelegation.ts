/**
 * Commands' cgroups in a cgroup v2 subtree the worker was given (systemd's `Delegate=yes`, a
 * container with its own writable cgroup namespace, or a root worker).
 *
 * v2 lets a cgroup hand a controller to its children only while it holds no process itself (the
 * "no internal processes" rule; the root cgroup is exempt). The worker's own cgroup holds the
 * worker, so enabling fails with EBUSY there; the worker then moves every process of its cgroup
 * into a leaf child, `agent-teams-worker`, as the kernel's delegation guide expects of a delegatee,
 * and enables the controllers again. Commands' cgroups are made under the sibling
 * `agent-teams-bash`. A worker found already in `agent-teams-worker` (a restart, or a second
 * worker process of the deployment) uses the same pair, never a nested one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const WORKER_LEAF = 'agent-teams-worker';
export const COMMANDS_DIR = 'agent-teams-bash';

/** Where commands' cgroups are made, and the controllers they get. */
export interface DelegatedCommands {
  dir: string;
  controllers: string[];
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function listed(file: string): string[] {
  return fs.readFileSync(file, 'utf8').split(/\s+/).filter(Boolean);
}

/** Enables each controller for `dir`'s children; those the kernel refuses for a reason other than EBUSY are left out. */
function enable(dir: string, controllers: string[]): string[] {
  const enabled: string[] = [];
  for (const controller of controllers) {
    try {
      fs.writeFileSync(path.join(dir, 'cgroup.subtree_control'), `+${controller}`);
      enabled.push(controller);
    } catch (error) {
      if (errnoCode(error) === 'EBUSY') throw error;
    }
  }
  return enabled;
}

/** Moves every process of `dir` into its leaf `agent-teams-worker` (a process that exits meanwhile is no longer there to move). */
function moveProcessesIntoLeaf(dir: string): void {
  const leaf = path.join(dir, WORKER_LEAF);
  fs.mkdirSync(leaf, { recursive: true });
  for (const pid of listed(path.join(dir, 'cgroup.procs'))) {
    try {
      fs.writeFileSync(path.join(leaf, 'cgroup.procs'), pid);
    } catch (error) {
      if (errnoCode(error) !== 'ESRCH') throw error;
    }
  }
}

/**
 * Prepares `ownDir` (the worker's v2 cgroup) so commands get `wanted` controllers, moving the
 * worker into its leaf when the kernel requires it. Null when none of them is available there or
 * the subtree is not the worker's to change.
 */
export function delegatedCommandCgroups(ownDir: string, wanted: readonly string[]): DelegatedCommands | null {
  const owner = path.basename(ownDir) === WORKER_LEAF ? path.dirname(ownDir) : ownDir;
  try {
    const available = listed(path.join(owner, 'cgroup.controllers')).filter((controller) => wanted.includes(controller));
    if (available.length === 0) return null;
    let enabled: string[];
    try {
      enabled = enable(owner, available);
    } catch (error) {
      if (errnoCode(error) !== 'EBUSY') throw error;
      moveProcessesIntoLeaf(owner);
      enabled = enable(owner, available);
    }
    const dir = path.join(owner, COMMANDS_DIR);
    fs.mkdirSync(dir, { recursive: true });
    const controllers = enable(dir, enabled);
    return controllers.length === 0 ? null : { dir, controllers };
  } catch {
    return null; // not ours to change (EACCES, EROFS), or a process we may not move
  }
}
