/**
 * The bubblewrap sandbox the `bash` work tool runs in (issue 9): a cleared environment plus an
 * allow-list, new PID/IPC/UTS (and, unless opted in, network) namespaces with a fresh /proc, the
 * filesystem read-only except the checkout (bound read-write at its real path), a private tmpfs
 * /tmp and HOME (the worker's HOME is hidden), credential files the worker names masked, and the
 * checkout's git metadata pinned and its configuration read-only (gitProtection.ts).
 *
 * `bwrapArgs` and `sandboxEnv` are pure; `probeSandbox` runs `bwrap ... true` once to tell whether
 * the sandbox can start here; `checkBashSandbox` is what a worker calls at start-up to log it.
 *
 * Configuration (environment of the worker):
 * - AGENT_TEAMS_BASH_SANDBOX=none: run bash unsandboxed, as before (logged as a warning);
 * - AGENT_TEAMS_BASH_NETWORK=on: keep the host's network inside the sandbox;
 * - AGENT_TEAMS_BASH_ENV=NAME,NAME: worker variables passed into the sandbox besides PATH, LANG, TERM.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GitMounts } from './gitProtection';
import { isWithin } from './paths';

export const BASH_SANDBOX_ENV = 'AGENT_TEAMS_BASH_SANDBOX';
export const BASH_NETWORK_ENV = 'AGENT_TEAMS_BASH_NETWORK';
export const BASH_ENV_ALLOW_ENV = 'AGENT_TEAMS_BASH_ENV';
export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';

/** Always passed into the sandbox when the worker has them (HOME is set to the sandbox's own). */
const BASE_ALLOWED_ENV = ['PATH', 'LANG', 'TERM'];
/** Worker variables naming credential files: masked inside the sandbox (/dev/null bound over them; opening it is refused). */
const CREDENTIAL_FILE_ENV = ['TEMPORAL_TLS_CLIENT_KEY_PATH', 'TEMPORAL_CONFIG_FILE'];
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface BashSandboxConfig {
  /** 'bwrap' (default) runs bash under bubblewrap; 'none' is the explicit opt-out. */
  mode: 'bwrap' | 'none';
  bwrapPath: string;
  /** Share the host network (default false: a fresh network namespace with only loopback). */
  network: boolean;
  /** Extra worker variables passed into the sandbox. */
  allowEnv: string[];
}

type Env = Record<string, string | undefined>;

export function sandboxConfigFromEnv(env: Env = process.env): BashSandboxConfig {
  const mode = env[BASH_SANDBOX_ENV]?.trim().toLowerCase() === 'none' ? 'none' : 'bwrap';
  const network = env[BASH_NETWORK_ENV]?.trim().toLowerCase() === 'on';
  const allowEnv = (env[BASH_ENV_ALLOW_ENV] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return { mode, bwrapPath: DEFAULT_BWRAP_PATH, network, allowEnv };
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

export interface BwrapArgsOptions {
  /** The checkout's real path: bound read-write at the same path. */
  root: string;
  /** The directory the command starts in (inside root). */
  cwd: string;
  /** The sandbox's HOME (see sandboxHome). */
  home: string;
  network: boolean;
  /** Files to hide behind /dev/null (credential files outside the checkout). */
  maskFiles?: string[];
  /** The checkout's git metadata: pinned directories and read-only paths inside the checkout (gitProtection.ts). */
  git?: GitMounts;
}

/** The bwrap arguments (without the bwrap path and the command after them). */
export function bwrapArgs(options: BwrapArgsOptions): string[] {
  // --cap-drop ALL: a worker running as root would otherwise hand the command every capability,
  // and with CAP_SYS_ADMIN it could unmount the read-only binds below (seen: umount .git/config).
  const args = ['--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc', '--unshare-uts'];
  if (!options.network) args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  if (options.home !== '/tmp') args.push('--tmpfs', options.home);
  for (const file of options.maskFiles ?? []) {
    if (!isWithin(options.root, file)) args.push('--ro-bind', '/dev/null', file);
  }
  // Last, so the checkout shows through the tmpfs mounts even when it lies under /tmp or HOME.
  args.push('--bind', options.root, options.root);
  // Over the checkout's bind: git metadata pinned, then its configuration read-only.
  for (const dir of options.git?.pinned ?? []) if (isWithin(options.root, dir)) args.push('--bind', dir, dir);
  for (const file of options.git?.readOnly ?? []) if (isWithin(options.root, file)) args.push('--ro-bind', file, file);
  args.push('--chdir', options.cwd, '--');
  return args;
}

/** Credential files the worker's environment names that exist as regular files. */
export function credentialFiles(workerEnv: Env): string[] {
  const files: string[] = [];
  for (const name of CREDENTIAL_FILE_ENV) {
    const value = workerEnv[name]?.trim();
    if (!value) continue;
    try {
      const real = fs.realpathSync(value);
      if (fs.statSync(real).isFile()) files.push(real);
    } catch {
      // missing: nothing to mask
    }
  }
  return files;
}

export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** Runs `bwrap <args> true` in root (with the mounts bash gets) to tell whether the sandbox starts on this machine. */
export function probeSandbox(
  config: BashSandboxConfig,
  root: string,
  mounts: { home?: string; maskFiles?: string[] } = {},
  timeoutMs = 10_000,
): Promise<ProbeResult> {
  const args = bwrapArgs({ root, cwd: root, home: mounts.home ?? '/tmp', network: config.network, maskFiles: mounts.maskFiles ?? [] });
  return new Promise((resolve) => {
    let stderr = '';
    let done = false;
    const settle = (result: ProbeResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
    };
    const child = spawn(config.bwrapPath, [...args, 'true'], { env: { PATH: DEFAULT_PATH }, stdio: ['ignore', 'ignore', 'pipe'] });
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
  if (config.mode === 'none') {
    log.warn(
      `${BASH_SANDBOX_ENV}=none: bash runs UNSANDBOXED as the worker's user, with the worker's environment (minus MODEL_API_KEY and TEMPORAL_API_KEY), ` +
        `its processes (/proc), its network and every path it can write`,
    );
    return { ok: true, unsandboxed: true };
  }
  const real = fs.realpathSync(root);
  const probe = await probeSandbox(config, real, { home: sandboxHome(real, process.env.HOME), maskFiles: credentialFiles(process.env) });
  if (probe.ok) log.info?.(`bash sandbox: bubblewrap (${config.bwrapPath}), network ${config.network ? 'on' : 'off'}`);
  else log.error(`bash sandbox unavailable, bash calls will fail with SandboxUnavailable: ${probe.reason}. Fix it, or opt out with ${BASH_SANDBOX_ENV}=none`);
  return probe;
}
