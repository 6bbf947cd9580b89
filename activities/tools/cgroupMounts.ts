/**
 * Where the worker's own cgroups are, read from /proc/self/mountinfo and /proc/self/cgroup texts
 * (pure, so the parsing is tested without a kernel). A host may mix versions: cgroup v1 hierarchies
 * for some controllers and the v2 (unified) hierarchy for the rest, so each controller is looked
 * up on its own.
 */
import * as path from 'node:path';

/** The controllers a command's cgroup bounds it with. */
export const CGROUP_CONTROLLERS = ['memory', 'pids'] as const;
export type CgroupController = (typeof CGROUP_CONTROLLERS)[number];

interface CgroupMount {
  fstype: 'cgroup' | 'cgroup2';
  /** The cgroup shown at the mount point (field 4): a container's may be its own. */
  root: string;
  point: string;
  /** v1: the controllers this hierarchy holds (super options). */
  options: string[];
}

function cgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const [fstype, , superOptions = ''] = right.split(' ');
    const fields = left.split(' ');
    if ((fstype === 'cgroup' || fstype === 'cgroup2') && fields[3] && fields[4]) {
      mounts.push({ fstype, root: fields[3], point: fields[4], options: superOptions.split(',') });
    }
  }
  return mounts;
}

/** The directory under `mount` that shows cgroup `own`, or null when `own` lies outside what the mount shows. */
function dirOf(mount: { root: string; point: string }, own: string): string | null {
  const relative = path.posix.relative(mount.root, own);
  if (relative.startsWith('..')) return null;
  return path.join(mount.point, relative);
}

/** The worker's own cgroup directory in the v1 hierarchy that holds `controller`, or null (no such hierarchy, or not mounted here). */
export function v1OwnDir(mountinfo: string, ownCgroups: string, controller: CgroupController): string | null {
  const mount = cgroupMounts(mountinfo).find((entry) => entry.fstype === 'cgroup' && entry.options.includes(controller));
  if (!mount) return null;
  for (const line of ownCgroups.split('\n')) {
    const [, controllers = '', own] = line.split(':');
    if (own !== undefined && controllers.split(',').includes(controller)) return dirOf(mount, own);
  }
  return null;
}

/** Whether some v1 hierarchy holds `controller`: then the v2 hierarchy cannot have it. */
export function v1Holds(mountinfo: string, controller: CgroupController): boolean {
  return cgroupMounts(mountinfo).some((entry) => entry.fstype === 'cgroup' && entry.options.includes(controller));
}

/** The worker's own v2 cgroup as /proc/self/cgroup names it (`/` at the root of its cgroup namespace), or null. */
export function v2OwnPath(ownCgroups: string): string | null {
  const line = ownCgroups.split('\n').find((entry) => entry.startsWith('0::'));
  return line === undefined ? null : line.slice(3);
}

/** The worker's own cgroup directory in the v2 (unified) hierarchy, or null (not mounted, or the worker's cgroup not under it). */
export function v2OwnDir(mountinfo: string, ownCgroups: string): string | null {
  const mount = cgroupMounts(mountinfo).find((entry) => entry.fstype === 'cgroup2');
  const own = v2OwnPath(ownCgroups);
  return mount && own !== null ? dirOf(mount, own) : null;
}
