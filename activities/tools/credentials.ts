/**
 * What of the worker's secrets a `bash` command must never get (issue 21, "secrets masked at every
 * edge"), in one place so that the sandbox (bashSandbox.ts), the unsandboxed opt-out (bash.ts) and
 * a later feature that adds a key file all draw on the same lists:
 *  - credentialFiles: the files the worker's configuration names that hold (or sit beside) its
 *    credentials, including those named only inside the Temporal TOML profile; the sandbox binds
 *    /dev/null over them;
 *  - unsandboxedBashEnv: with AGENT_TEAMS_BASH_SANDBOX=none, an allow-list of harmless variables
 *    instead of the worker's whole environment (a deny-list always misses the next secret:
 *    TEMPORAL_TLS_CLIENT_KEY_DATA, TEMPORAL_GRPC_META_*, a provider's own *_API_KEY...);
 *  - isCredentialName / parseBashEnvAllowList: AGENT_TEAMS_BASH_ENV cannot pass a credential
 *    variable through, matched by pattern and not only by a list of known names.
 * Everything but credentialFiles (which must look at the disk) is pure.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadClientConfig } from '@temporalio/envconfig';

type Env = Record<string, string | undefined>;

/** The variable listing extra worker variables bash gets (bashSandbox.ts reads the same one). */
export const BASH_ENV_ALLOW_VARIABLE = 'AGENT_TEAMS_BASH_ENV';

/**
 * Worker variables that name a credential file (or a file a credential file is named in). Add a
 * new feature's key file here and every edge masks it. The certificates are not secret, but they
 * identify the worker's deployment and no command needs them; the client key and the TOML file
 * (which may hold api_key and client_key_data inline) are.
 */
export const CREDENTIAL_FILE_ENV: readonly string[] = [
  'TEMPORAL_CONFIG_FILE',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
];

/**
 * The Temporal config file the worker reads (client/connection.ts, through @temporalio/envconfig):
 * TEMPORAL_CONFIG_FILE, else the platform default. Empty counts as unset, as in connection.ts.
 * envconfig does not export its default-path rule, so it is restated here (same variables, same order).
 */
export function temporalConfigFilePath(env: Env, platform: NodeJS.Platform = os.platform()): string | undefined {
  const explicit = env.TEMPORAL_CONFIG_FILE;
  if (explicit) return explicit;
  let dir: string | undefined;
  if (platform === 'win32') dir = env.APPDATA || undefined;
  else if (platform === 'darwin') dir = env.HOME ? path.join(env.HOME, 'Library', 'Application Support') : undefined;
  else {
    const xdg = env.XDG_CONFIG_HOME;
    if (xdg) dir = path.isAbsolute(xdg) ? xdg : undefined;
    else dir = env.HOME ? path.join(env.HOME, '.config') : undefined;
  }
  return dir === undefined ? undefined : path.join(dir, 'temporalio', 'temporal.toml');
}

/**
 * The files named inside the TOML config: every profile's TLS paths, not only TEMPORAL_PROFILE's,
 * since each is a credential of the deployment and masking one bash does not need costs nothing.
 * Parsed with envconfig, the parser the worker connects with, so both read the same names. A file
 * that does not parse names nothing here (the worker then fails to connect anyway).
 */
function filesInTemporalConfig(configFile: string): string[] {
  let profiles: ReturnType<typeof loadClientConfig>['profiles'];
  try {
    profiles = loadClientConfig({ configSource: { path: configFile } }).profiles;
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const profile of Object.values(profiles ?? {})) {
    for (const source of [profile.tls?.clientKey, profile.tls?.clientCert, profile.tls?.serverCACert]) {
      if (source && 'path' in source && source.path) files.push(source.path);
    }
  }
  return files;
}

/**
 * Absolute real paths of every credential file the worker's configuration names that exists as a
 * regular file: the CREDENTIAL_FILE_ENV variables, the config file (default location included)
 * and the files its profiles name. Relative paths resolve against the worker's directory, as the
 * worker itself opens them. Real paths, so a mask bound over them hides the file behind a symlink too.
 */
export function credentialFiles(env: Env): string[] {
  const named: string[] = [];
  for (const name of CREDENTIAL_FILE_ENV) {
    const value = env[name]?.trim();
    if (value) named.push(value);
  }
  const configFile = temporalConfigFilePath(env);
  if (configFile) named.push(configFile, ...filesInTemporalConfig(configFile));
  const files = new Set<string>();
  for (const file of named) {
    try {
      const real = fs.realpathSync(file);
      if (fs.statSync(real).isFile()) files.add(real);
    } catch {
      // missing or unreadable: nothing to mask
    }
  }
  return [...files];
}

/**
 * Names that carry a secret. By pattern, because deployments add their own (OPENAI_API_KEY,
 * GITHUB_TOKEN, a codec's auth): a word of the name (between underscores) that is a secret's
 * word, PASSWORD/SECRET anywhere, and every gRPC header the Temporal client sends (they carry
 * authorization). Case-insensitive; refusing a harmless name costs an operator a rename.
 */
const CREDENTIAL_NAME_PATTERNS: readonly RegExp[] = [
  /(^|_)(KEY|TOKEN|SECRET|CREDENTIALS?|PASSWD|PASSPHRASE|AUTH)(_|$)/i,
  /PASSWORD/i,
  /SECRET/i,
  /^TEMPORAL_GRPC_META_/i,
  // A model provider's base URL (MODEL_BASE_URL, ANTHROPIC_BASE_URL, OLLAMA_BASE_URL, ...) may carry user:password@.
  /(^|_)BASE_URL$/i,
];

/** Known secrets the patterns may not catch, or that carry one in another form. */
export const KNOWN_CREDENTIAL_NAMES: readonly string[] = [
  'MODEL_API_KEY',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_CODEC_AUTH',
  'TEMPORAL_CONFIG_FILE', // may hold api_key and client_key_data inline
  'PANEL_TOKEN',
  'MODEL_BASE_URL', // may carry user:password@ in its userinfo
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'OTEL_EXPORTER_OTLP_HEADERS', // usually an authorization header
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
];

export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  return KNOWN_CREDENTIAL_NAMES.includes(upper) || CREDENTIAL_NAME_PATTERNS.some((pattern) => pattern.test(name));
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * AGENT_TEAMS_BASH_ENV (NAME,NAME,...): the names bash may get, and those refused (a credential
 * name, or not a variable name at all) for the caller to warn about (describeRefusedBashEnv).
 */
export function parseBashEnvAllowList(raw: string | undefined): { names: string[]; refused: string[] } {
  const names: string[] = [];
  const refused: string[] = [];
  for (const item of (raw ?? '').split(',')) {
    const name = item.trim();
    if (name === '') continue;
    const list = !ENV_NAME.test(name) || isCredentialName(name) ? refused : names;
    if (!list.includes(name)) list.push(name);
  }
  return { names, refused };
}

/** The warning for refused AGENT_TEAMS_BASH_ENV names: which, why, and what to do. */
export function describeRefusedBashEnv(refused: readonly string[]): string {
  return (
    `${BASH_ENV_ALLOW_VARIABLE} names ${refused.map((n) => JSON.stringify(n)).join(', ')}, which bash does not get: ` +
    `a credential variable (a name like *_KEY, *_TOKEN, *_SECRET, *PASSWORD*, *_CREDENTIALS, TEMPORAL_GRPC_META_*) never reaches bash, ` +
    `and a name must be letters, digits and _. Remove them from ${BASH_ENV_ALLOW_VARIABLE}; a command that needs a secret must not run in a member's bash`
  );
}

/**
 * What bash gets from the worker with the sandbox opted out, and why each is harmless and useful:
 *  - PATH: to find commands at all;
 *  - HOME: unsandboxed bash runs as the worker's user, and git, npm and friends read their
 *    configuration under it (its files are the user's anyway: no sandbox hides them);
 *  - USER, LOGNAME: who runs the command, read by git, ssh, whoami-style tools;
 *  - SHELL: the login shell, which tools that spawn a subshell use;
 *  - LANG, LANGUAGE, LC_*: the locale, so output is decoded as it is encoded;
 *  - TERM, NO_COLOR: how tools format output (colours, widths);
 *  - TZ: the time zone dates are shown in;
 *  - TMPDIR: where temporary files go (a worker may point it away from a small /tmp).
 * Not XDG_RUNTIME_DIR, DBUS_SESSION_BUS_ADDRESS, SSH_AUTH_SOCK and the like: they lead to sockets
 * with the user's authority.
 */
export const UNSANDBOXED_BASH_ENV: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TERM', 'NO_COLOR', 'TZ', 'TMPDIR'];
const LOCALE_NAME = /^LC_[A-Z]+$/;
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The environment of unsandboxed bash: UNSANDBOXED_BASH_ENV, LC_*, and the names the operator
 * allowed (by default AGENT_TEAMS_BASH_ENV, parsed, so credential names are already refused; they
 * are checked again here so no caller can pass one).
 */
export function unsandboxedBashEnv(
  workerEnv: Env,
  extraNames: readonly string[] = parseBashEnvAllowList(workerEnv[BASH_ENV_ALLOW_VARIABLE]).names,
): Record<string, string> {
  const env: Record<string, string> = {};
  const allowed = (name: string) => UNSANDBOXED_BASH_ENV.includes(name) || LOCALE_NAME.test(name) || extraNames.includes(name);
  for (const [name, value] of Object.entries(workerEnv)) {
    if (value !== undefined && allowed(name) && !isCredentialName(name)) env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  return env;
}
