/**
 * The bubblewrap sandbox the `bash` work tool runs in (issues 9 and 21):
 *
 * - a cleared environment plus an allow-list;
 * - new user (with no further user namespaces), PID, IPC, UTS and, unless opted in, network
 *   namespaces, no capabilities, and a fresh /proc;
 * - private mounts: only the system directories commands need (SYSTEM_PATHS, plus the deployment's
 *   AGENT_TEAMS_BASH_BIND) read-only; /tmp, HOME, /run and /dev/shm private tmpfs of a fixed size;
 *   /home, /root, /var, /sys, other users' files and every socket of the host's are not there; the
 *   rest of the root is an empty read-only tmpfs;
 * - the checkout read-write at its real path, its git metadata pinned and its configuration
 *   read-only, bound from descriptors the worker opened without following anything
 *   (gitProtection.ts), and the credential files the worker names masked;
 * - each process under RLIMITs (sandboxLimits.ts), the whole command in a cgroup where
 *   the worker can make one (sandboxCgroup.ts), run as a user that is never root (sandboxIdentity.ts).
 *
 * `bwrapArgs`, `sandboxCommand` and `sandboxEnv` are pure; `probeSandbox` runs the sandbox once to
 * tell whether it starts here; `checkBashSandbox` is what a worker calls at start-up to log it.
 *
 * Configuration (environment of the worker):
 * - AGENT_TEAMS_BASH_SANDBOX=none: run bash unsandboxed (logged as a warning);
 * - AGENT_TEAMS_BASH_NETWORK=on: keep the host's network inside the sandbox (see docs/security.md);
 * - AGENT_TEAMS_BASH_ENV=NAME,NAME: worker variables passed into the sandbox besides PATH, LANG, TERM;
 * - AGENT_TEAMS_BASH_BIND=/opt/tool,...: more host directories bound read-only;
 * - AGENT_TEAMS_BASH_LIMITS, AGENT_TEAMS_BASH_USER, AGENT_TEAMS_BASH_CGROUP: see the modules above.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { credentialFiles, describeRefusedBashEnv, parseBashEnvAllowList } from './credentials';
import { isWithin } from './paths';
import { networkAuthorityWarning } from './sandboxNetwork';
import { BASH_LIMITS_ENV, parseSandboxLimits, ulimitArgs, RUN_BYTES, SandboxConfigInvalid, type SandboxLimits, SHM_BYTES } from './sandboxLimits';
import { type FileOwner, sandboxIdentity } from './sandboxIdentity';

export const BASH_SANDBOX_ENV = 'AGENT_TEAMS_BASH_SANDBOX';
export const BASH_NETWORK_ENV = 'AGENT_TEAMS_BASH_NETWORK';
export const BASH_ENV_ALLOW_ENV = 'AGENT_TEAMS_BASH_ENV';
export const BASH_BIND_ENV = 'AGENT_TEAMS_BASH_BIND';
export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';

/**
 * What commands need of the host, bound read-only when present: programs and libraries (/usr and
 * the merged-/usr links to it), and /etc (users, name service, TLS roots, alternatives). /etc holds
 * no socket, and the files in it only root may read stay unreadable, since bash is never root.
 */
export const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'] as const;
/** Paths a deployment may not bind, nor anything in them: other users' files, the host's sockets and devices. */
const UNBINDABLE = ['/home', '/root', '/run', '/var/run', '/proc', '/sys', '/dev'];
/** Directories a deployment may not bind as a whole (a toolchain directory inside them it may). */
const UNBINDABLE_WHOLE = ['/', '/tmp', '/var', '/var/tmp'];

/** Always passed into the sandbox when the worker has them (HOME is set to the sandbox's own). */
const BASE_ALLOWED_ENV = ['PATH', 'LANG', 'TERM'];
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface BashSandboxConfig {
  /** 'bwrap' (default) runs bash under bubblewrap; 'none' is the explicit opt-out. */
  mode: 'bwrap' | 'none';
  bwrapPath: string;
  /** Share the host network (default false: a fresh network namespace with only loopback). */
  network: boolean;
  /** Extra worker variables passed into the sandbox. */
  allowEnv: string[];
  /** Extra host directories bound read-only (absolute; AGENT_TEAMS_BASH_BIND). */
  binds: string[];
  limits: SandboxLimits;
}

type Env = Record<string, string | undefined>;

export function sandboxConfigFromEnv(env: Env = process.env): BashSandboxConfig {
  const mode = env[BASH_SANDBOX_ENV]?.trim().toLowerCase() === 'none' ? 'none' : 'bwrap';
  const network = env[BASH_NETWORK_ENV]?.trim().toLowerCase() === 'on';
  // Credential names are refused here (checkBashSandbox says which); a deployment cannot pass MODEL_API_KEY in.
  const allowEnv = parseBashEnvAllowList(env[BASH_ENV_ALLOW_ENV]).names;
  return { mode, bwrapPath: DEFAULT_BWRAP_PATH, network, allowEnv, binds: parseBinds(env[BASH_BIND_ENV]), limits: parseSandboxLimits(env[BASH_LIMITS_ENV]) };
}

/** AGENT_TEAMS_BASH_BIND: absolute host directories; throws SandboxConfigInvalid for one that would show what the sandbox hides. */
export function parseBinds(raw: string | undefined): string[] {
  const binds: string[] = [];
  for (const entry of (raw ?? '').split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const dir = path.resolve(entry);
    if (!path.isAbsolute(entry)) throw new SandboxConfigInvalid(`${BASH_BIND_ENV}: ${JSON.stringify(entry)} is not an absolute path`);
    if (UNBINDABLE_WHOLE.includes(dir) || UNBINDABLE.some((hidden) => isWithin(hidden, dir))) {
      throw new SandboxConfigInvalid(
        `${BASH_BIND_ENV}: ${dir} is one of ${UNBINDABLE_WHOLE.join(', ')} or lies in ${UNBINDABLE.join(', ')}, which the sandbox keeps private; ` +
          `bind the toolchain's own directory (e.g. /opt/toolchain)`,
      );
    }
    binds.push(dir);
  }
  return binds;
}

/**
 * The sandbox's HOME: the worker's HOME directory (hidden behind a private tmpfs) when it exists and
 * is safe to cover, else /tmp.
 */
export function sandboxHome(root: string, workerHome: string | undefined, isDirectory: (dir: string) => boolean = directoryExists): string {
  if (!workerHome || !path.isAbsolute(workerHome)) return '/tmp';
  const home = path.resolve(workerHome);
  if (home === '/' || isWithin(home, '/tmp') || isWithin(root, home) || !isDirectory(home)) return '/tmp';
  return home;
}

function directoryExists(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The environment bash sees: the allow-list only, HOME set to the sandbox's. */
export function sandboxEnv(workerEnv: Env, config: Pick<BashSandboxConfig, 'allowEnv'>, home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...BASE_ALLOWED_ENV, ...config.allowEnv]) {
    const value = workerEnv[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  env.HOME = home;
  return env;
}

/** A host path as the sandbox shows it: a directory bound read-only, or a symlink recreated (merged /usr). */
export type SystemMount = { kind: 'directory'; path: string } | { kind: 'symlink'; path: string; target: string };

/** SYSTEM_PATHS as they are on this host (missing ones left out). */
export function systemMounts(): SystemMount[] {
  const mounts: SystemMount[] = [];
  for (const dir of SYSTEM_PATHS) {
    try {
      const stat = fs.lstatSync(dir);
      if (stat.isSymbolicLink()) mounts.push({ kind: 'symlink', path: dir, target: fs.readlinkSync(dir) });
      else if (stat.isDirectory()) mounts.push({ kind: 'directory', path: dir });
    } catch {
      // not on this host
    }
  }
  return mounts;
}

export interface BwrapArgsOptions {
  /** The checkout's real path: bound read-write at the same path. */
  root: string;
  /** The directory the command starts in (inside root). */
  cwd: string;
  /** The sandbox's HOME (see sandboxHome). */
  home: string;
  network: boolean;
  /** What of the host is shown (systemMounts). */
  system: readonly SystemMount[];
  /** The deployment's directories (AGENT_TEAMS_BASH_BIND), bound read-only after the tmpfs mounts, which could cover them. */
  binds?: readonly string[];
  limits: Pick<SandboxLimits, 'tmp' | 'home'>;
  /** Files to hide behind /dev/null (credential files outside the checkout). */
  maskFiles?: string[];
  /**
   * The checkout's git metadata, bound from descriptors (gitProtection.ts): the i-th is the
   * command's fd PINNED_FD_BASE + i, bound at `dest` (inside the checkout), parents first.
   */
  pins?: ReadonlyArray<{ dest: string; readOnly: boolean }>;
}

/** The first descriptor bwrap gets a pinned directory or file on (0-5 are the command's pipes: bashRun.ts). */
export const PINNED_FD_BASE = 6;

/** The bwrap arguments (without the bwrap path and the command after them). */
export function bwrapArgs(options: BwrapArgsOptions): string[] {
  // --cap-drop ALL: a worker running as root would otherwise hand the command every capability,
  // and with CAP_SYS_ADMIN it could unmount the read-only binds below (seen: umount .git/config).
  // --disable-userns: a nested user namespace could mount a tmpfs of any size.
  const args = [
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--unshare-user',
    '--disable-userns',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
  ];
  if (!options.network) args.push('--unshare-net');
  for (const mount of options.system) {
    if (mount.kind === 'symlink') args.push('--symlink', mount.target, mount.path);
    else args.push('--ro-bind', mount.path, mount.path);
  }
  const tmpfs = (size: number, dir: string, perms = '0755') => args.push('--perms', perms, '--size', String(size), '--tmpfs', dir);
  args.push('--dev', '/dev', '--proc', '/proc');
  tmpfs(SHM_BYTES, '/dev/shm', '1777');
  tmpfs(RUN_BYTES, '/run');
  tmpfs(options.limits.tmp, '/tmp', '1777');
  args.push('--symlink', '../run', '/var/run', '--symlink', '../tmp', '/var/tmp');
  if (options.home !== '/tmp') tmpfs(options.limits.home, options.home, '0700');
  // After the tmpfs mounts, so these show through them even when they lie under /tmp or HOME.
  const binds = (options.binds ?? []).filter(directoryExists);
  for (const dir of binds) args.push('--ro-bind', dir, dir);
  // A credential file is masked where it would show; elsewhere it is not there at all.
  const shown = [...options.system.filter((mount) => mount.kind === 'directory').map((mount) => mount.path), ...binds];
  for (const file of options.maskFiles ?? []) {
    if (!isWithin(options.root, file) && shown.some((dir) => isWithin(dir, file))) args.push('--ro-bind', '/dev/null', file);
  }
  args.push('--bind', options.root, options.root);
  // Over the checkout's bind, from the descriptors the worker pinned: never a path bwrap would resolve again.
  (options.pins ?? []).forEach((pin, index) => {
    if (isWithin(options.root, pin.dest)) args.push(pin.readOnly ? '--ro-bind-fd' : '--bind-fd', String(PINNED_FD_BASE + index), pin.dest);
  });
  // The root and /dev bwrap made are tmpfs of RAM: read-only, nothing can be written outside the sized mounts.
  args.push('--remount-ro', '/dev', '--remount-ro', '/', '--chdir', options.cwd, '--');
  return args;
}

/** The descriptor the supervisor reports the private tmpfs mounts' free space on, after bash exits. */
export const TMPFS_REPORT_FD = 5;

/**
 * What bwrap runs: a small bash supervisor that sets the RLIMITs (without RLIMIT_AS when a memory cgroup
 * bounds the command's memory as a whole and reports it; a JVM reserves more address space than it
 * uses), runs `bash -c script` without the report descriptor, and, when it failed, writes
 * `dir free total` (blocks) of each private tmpfs on it, so a full one is told apart from a command
 * that failed for itself. The member can kill the supervisor; it then loses that report, not the limit.
 */
export function sandboxCommand(limits: SandboxLimits, script: string, home: string, options: { memoryBounded: boolean } = { memoryBounded: false }): string[] {
  const dirs = ['/tmp', '/dev/shm', '/run', ...(home === '/tmp' ? [] : [home])].map((dir) => `'${dir.replaceAll("'", "'\\''")}'`).join(' ');
  const supervisor =
    `${ulimitArgs(limits, options)} || exit 126; /bin/bash -c "$1" ${TMPFS_REPORT_FD}>&-; status=$?; ` +
    `[ $status -eq 0 ] || stat -f -c '%n %a %b' ${dirs} >&${TMPFS_REPORT_FD} 2>/dev/null; exit $status`;
  return ['/bin/bash', '-c', supervisor, 'supervisor', script];
}

export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** Runs `true` in the sandbox bash gets (mounts, limits, user) in root, to tell whether it starts on this machine. */
export function probeSandbox(
  config: BashSandboxConfig,
  root: string,
  mounts: { home?: string; maskFiles?: string[]; user?: FileOwner | null } = {},
  timeoutMs = 10_000,
): Promise<ProbeResult> {
  const home = mounts.home ?? '/tmp';
  const args = bwrapArgs({
    root,
    cwd: root,
    home,
    network: config.network,
    system: systemMounts(),
    binds: config.binds,
    limits: config.limits,
    maskFiles: mounts.maskFiles ?? [],
  });
  return new Promise((resolve) => {
    let stderr = '';
    let done = false;
    const settle = (result: ProbeResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
    };
    const child = spawn(config.bwrapPath, [...args, ...sandboxCommand(config.limits, 'true', home)], {
      env: { PATH: DEFAULT_PATH },
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(mounts.user ? { uid: mounts.user.uid, gid: mounts.user.gid } : {}),
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      settle({ ok: false, reason: `${config.bwrapPath} did not start within ${timeoutMs} ms` });
    }, timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'ENOENT' ? `${config.bwrapPath} not found (install bubblewrap)` : `${config.bwrapPath} could not be run: ${error.message}`;
      settle({ ok: false, reason });
    });
    child.on('close', (code, signal) => {
      if (code === 0) settle({ ok: true });
      else
        settle({
          ok: false,
          reason:
            `${config.bwrapPath} failed (${signal ?? `exit ${code}`}): ${stderr.trim() || 'no message'} ` +
            `(user namespaces disabled, or a container without the privileges bubblewrap needs?)`,
        });
    });
  });
}

export interface SandboxLog {
  warn: (message: string) => void;
  error: (message: string) => void;
  info?: (message: string) => void;
}

/**
 * Start-up check for a worker that runs bash: logs the opt-out as a warning, a sandbox that cannot
 * start as an error (bash then answers SandboxUnavailable), and a working sandbox as info.
 */
export async function checkBashSandbox(
  config: BashSandboxConfig,
  root: string,
  log: SandboxLog = console,
): Promise<ProbeResult | { ok: true; unsandboxed: true }> {
  const real = fs.realpathSync(root);
  const identity = sandboxIdentity(real, process.env);
  if (!identity.ok) {
    log.error(`bash unavailable, bash calls will fail with SandboxUnavailable: ${identity.reason}`);
    return { ok: false, reason: identity.reason };
  }
  const refused = parseBashEnvAllowList(process.env[BASH_ENV_ALLOW_ENV]).refused;
  if (refused.length > 0) log.warn(describeRefusedBashEnv(refused));
  if (config.mode === 'none') {
    log.warn(
      `${BASH_SANDBOX_ENV}=none: bash runs UNSANDBOXED as ${identity.run ? `uid ${identity.run.uid}` : "the worker's user"}, ` +
        `with an allow-list of the worker's environment, ` +
        `the worker's processes (/proc), its network and every path that user can write`,
    );
    return { ok: true, unsandboxed: true };
  }
  const unauthenticated = config.network ? networkAuthorityWarning(process.env) : null;
  if (unauthenticated !== null) log.warn(unauthenticated);
  const probe = await probeSandbox(config, real, { home: sandboxHome(real, process.env.HOME), maskFiles: credentialFiles(process.env), user: identity.run });
  const user = identity.run ? `uid ${identity.run.uid}` : "the worker's user";
  if (probe.ok) log.info?.(`bash sandbox: bubblewrap (${config.bwrapPath}) as ${user}, network ${config.network ? 'on' : 'off'}`);
  else log.error(`bash sandbox unavailable, bash calls will fail with SandboxUnavailable: ${probe.reason}. Fix it, or opt out with ${BASH_SANDBOX_ENV}=none`);
  return probe;
}
