/**
 * Who `bash` runs as (issue 21): never root, even when the worker is.
 *
 * - A worker that is not root runs bash as itself (bubblewrap maps it into the sandbox's user
 *   namespace as the same uid).
 * - A worker running as root runs bash as the checkout's owner, so bash can write what the
 *   checkout holds; AGENT_TEAMS_BASH_USER (`uid:gid`, a bare uid, or a user name from /etc/passwd)
 *   names another user. Root (kernel uid 0) is exempt from RLIMIT_NPROC and reads every root-owned
 *   file it can see, so a root-owned checkout with no AGENT_TEAMS_BASH_USER is refused: bash
 *   answers SandboxUnavailable and the worker says so at start.
 *
 * A user namespace alone does not help: bubblewrap run by root maps the sandbox's uid onto kernel
 * uid 0. The identity is applied with spawn's uid/gid (setgid, setuid, and no supplementary groups,
 * as libuv does it) before bubblewrap starts, which then makes its namespace as that user.
 */
import * as fs from 'node:fs';

export const BASH_USER_ENV = 'AGENT_TEAMS_BASH_USER';

export interface FileOwner {
  uid: number;
  gid: number;
}

/** `run` null: bash runs as the worker's own (unprivileged) user. */
export type SandboxIdentity = { ok: true; run: FileOwner | null } | { ok: false; reason: string };

/** `1000:1000`, `1000` (its gid from /etc/passwd, else the same number) or a user name; null when unknown. */
export function parseBashUser(text: string, passwd: string | null): FileOwner | null {
  const value = text.trim();
  const numeric = /^(\d+)(?::(\d+))?$/.exec(value);
  const entries = (passwd ?? '').split('\n').map((line) => line.split(':'));
  if (numeric) {
    const uid = Number(numeric[1]);
    const listed = entries.find((fields) => fields[2] === numeric[1]);
    const gid = numeric[2] !== undefined ? Number(numeric[2]) : listed ? Number(listed[3]) : uid;
    return Number.isSafeInteger(uid) && Number.isSafeInteger(gid) ? { uid, gid } : null;
  }
  const named = entries.find((fields) => fields[0] === value && fields.length >= 4);
  if (!named) return null;
  const uid = Number(named[2]);
  const gid = Number(named[3]);
  return Number.isSafeInteger(uid) && Number.isSafeInteger(gid) ? { uid, gid } : null;
}

function readPasswd(): string | null {
  try {
    return fs.readFileSync('/etc/passwd', 'utf8');
  } catch {
    return null;
  }
}

/** Who bash runs as for the checkout at `rootReal`, given the worker's uid and environment. */
export function sandboxIdentity(
  rootReal: string,
  env: Record<string, string | undefined>,
  workerUid: number = process.getuid?.() ?? 0,
  owner: (dir: string) => FileOwner = (dir) => fs.statSync(dir),
): SandboxIdentity {
  if (workerUid !== 0) return { ok: true, run: null };
  const configured = env[BASH_USER_ENV]?.trim();
  if (configured) {
    const user = parseBashUser(configured, readPasswd());
    if (user === null)
      return { ok: false, reason: `${BASH_USER_ENV}=${JSON.stringify(configured)} names no user (use uid:gid, a uid, or a name in /etc/passwd)` };
    if (user.uid === 0) return { ok: false, reason: `${BASH_USER_ENV} names root; bash never runs as root` };
    return { ok: true, run: user };
  }
  const { uid, gid } = owner(rootReal);
  if (uid !== 0) return { ok: true, run: { uid, gid } };
  return {
    ok: false,
    reason:
      `the worker runs as root and the checkout ${rootReal} is owned by root, so bash would run as root. ` +
      `chown the checkout to the unprivileged user bash should run as (bash runs as the checkout's owner), ` +
      `or set ${BASH_USER_ENV}=uid:gid of a user that can write it`,
  };
}
