/**
 * What of the worker's secrets bash must never get (activities/tools/credentials.ts): the credential
 * files its configuration names (the TOML profile's included, in temp dirs, never the user's
 * ~/.config), the allow-list of variables unsandboxed bash gets, and the credential names
 * AGENT_TEAMS_BASH_ENV cannot pass through.
 */
import { PROVIDER_CATALOG } from '../../activities/providers/catalog';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BASH_ENV_ALLOW_VARIABLE,
  CREDENTIAL_FILE_ENV,
  credentialFiles,
  describeRefusedBashEnv,
  isCredentialName,
  parseBashEnvAllowList,
  temporalConfigFilePath,
  unsandboxedBashEnv,
} from '../../activities/tools/credentials';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'credentials-test-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text = 'x'): string {
  const full = join(dir, name);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
  return full;
}

/** An environment that never reaches the real home's ~/.config/temporalio/temporal.toml. */
const isolated = () => ({ HOME: join(dir, 'no-home') });

describe('credentialFiles', () => {
  test('a key file named only inside the TOML profile (client_key_path) is masked, with the profile file and every profile TLS path', () => {
    const key = file('tls/client.key', '-----BEGIN PRIVATE KEY-----');
    const cert = file('tls/client.pem');
    const ca = file('tls/ca.pem');
    const otherKey = file('tls/staging.key');
    const config = file(
      'temporal.toml',
      [
        '[profile.default]',
        'address = "cluster.example:7233"',
        '[profile.default.tls]',
        `client_key_path = "${key}"`,
        `client_cert_path = "${cert}"`,
        `server_ca_cert_path = "${ca}"`,
        '[profile.staging.tls]',
        `client_key_path = "${otherKey}"`,
        `client_cert_path = "${join(dir, 'tls/missing.pem')}"`,
      ].join('\n'),
    );
    const files = credentialFiles({ ...isolated(), TEMPORAL_CONFIG_FILE: config });
    expect(files.sort()).toEqual([ca, cert, key, otherKey, config].sort());
  });

  test('the default config location (XDG_CONFIG_HOME, else HOME/.config) is read when TEMPORAL_CONFIG_FILE is unset or empty', () => {
    const key = file('keys/worker.key');
    const config = file('xdg/temporalio/temporal.toml', `[profile.default.tls]\nclient_key_path = "${key}"\n`);
    expect(credentialFiles({ XDG_CONFIG_HOME: join(dir, 'xdg'), TEMPORAL_CONFIG_FILE: '' }).sort()).toEqual([config, key].sort());
    const homeConfig = file('home/.config/temporalio/temporal.toml', `[profile.default.tls]\nclient_key_path = "${key}"\n`);
    expect(credentialFiles({ HOME: join(dir, 'home') }).sort()).toEqual([homeConfig, key].sort());
    expect(temporalConfigFilePath({ HOME: '/h' }, 'linux')).toBe('/h/.config/temporalio/temporal.toml');
    expect(temporalConfigFilePath({ HOME: '/h', XDG_CONFIG_HOME: 'relative' }, 'linux')).toBeUndefined();
    expect(temporalConfigFilePath({ HOME: '/h' }, 'darwin')).toBe('/h/Library/Application Support/temporalio/temporal.toml');
    expect(temporalConfigFilePath({ TEMPORAL_CONFIG_FILE: '/etc/t.toml', HOME: '/h' }, 'linux')).toBe('/etc/t.toml');
    expect(temporalConfigFilePath({}, 'linux')).toBeUndefined();
  });

  test('every CREDENTIAL_FILE_ENV variable: real paths (behind a symlink too), missing files and directories skipped', () => {
    expect(CREDENTIAL_FILE_ENV).toEqual(
      expect.arrayContaining(['TEMPORAL_CONFIG_FILE', 'TEMPORAL_TLS_CLIENT_KEY_PATH', 'TEMPORAL_TLS_CLIENT_CERT_PATH', 'TEMPORAL_TLS_SERVER_CA_CERT_PATH']),
    );
    const key = file('real/client.key');
    symlinkSync(key, join(dir, 'link.key'));
    const cert = file('client.pem');
    const files = credentialFiles({
      ...isolated(),
      TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'link.key'),
      TEMPORAL_TLS_CLIENT_CERT_PATH: ` ${cert} `,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'nowhere.pem'),
      TEMPORAL_CONFIG_FILE: dir, // a directory, not a file
    });
    expect(files.sort()).toEqual([cert, key].sort());
  });

  test('a malformed or missing TOML file: the file itself still masked when it exists, nothing thrown', () => {
    const broken = file('broken.toml', '[profile.default\nclient_key_path = ');
    expect(credentialFiles({ ...isolated(), TEMPORAL_CONFIG_FILE: broken })).toEqual([broken]);
    expect(credentialFiles({ ...isolated(), TEMPORAL_CONFIG_FILE: join(dir, 'absent.toml') })).toEqual([]);
    expect(credentialFiles(isolated())).toEqual([]);
  });
});

describe('isCredentialName', () => {
  test.each([
    'MODEL_API_KEY',
    'TEMPORAL_API_KEY',
    'OPENAI_API_KEY',
    'model_api_key',
    'GITHUB_TOKEN',
    'AWS_SESSION_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_ACCESS_KEY_ID',
    'CLIENT_SECRET',
    'DB_PASSWORD',
    'PGPASSWORD',
    'MyPassword2',
    'TEMPORAL_TLS_CLIENT_KEY_DATA',
    'TEMPORAL_TLS_CLIENT_KEY_PATH',
    'SIGNING_KEY_PATH',
    'TEMPORAL_GRPC_META_AUTHORIZATION',
    'temporal_grpc_meta_x_custom',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'DOCKER_CREDENTIALS',
    'TEMPORAL_CODEC_AUTH',
    'PANEL_TOKEN',
    'MODEL_BASE_URL',
    // Every provider's key and base URL variable (activities/providers/catalog.ts).
    ...Object.values(PROVIDER_CATALOG).flatMap((entry) => [entry.apiKeyVariable, entry.baseUrlVariable]),
    'TEMPORAL_CONFIG_FILE',
    'OTEL_EXPORTER_OTLP_HEADERS',
    'KEY',
    'TOKEN',
  ])('%s is a credential name', (name) => expect(isCredentialName(name)).toBe(true));

  test.each(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'GOPATH', 'JAVA_HOME', 'NODE_OPTIONS', 'CI', 'TOKENIZERS_PARALLELISM', 'KEYBOARD_LAYOUT', 'MONKEY'])(
    '%s is not',
    (name) => expect(isCredentialName(name)).toBe(false),
  );
});

describe('parseBashEnvAllowList (AGENT_TEAMS_BASH_ENV)', () => {
  test('the variable is the one bashSandbox.ts reads', () => expect(BASH_ENV_ALLOW_VARIABLE).toBe('AGENT_TEAMS_BASH_ENV'));

  test('names kept in order, deduplicated; credential names and invalid names refused', () => {
    expect(parseBashEnvAllowList(' GOPATH, JAVA_HOME,,MODEL_API_KEY , GOPATH, my-var, TEMPORAL_GRPC_META_AUTHORIZATION, 1X, db_password ')).toEqual({
      names: ['GOPATH', 'JAVA_HOME'],
      refused: ['MODEL_API_KEY', 'my-var', 'TEMPORAL_GRPC_META_AUTHORIZATION', '1X', 'db_password'],
    });
    expect(parseBashEnvAllowList(undefined)).toEqual({ names: [], refused: [] });
    expect(parseBashEnvAllowList('')).toEqual({ names: [], refused: [] });
  });

  test('the warning names each refused variable, why, and what to do', () => {
    const warning = describeRefusedBashEnv(['MODEL_API_KEY', 'my-var']);
    expect(warning).toContain('"MODEL_API_KEY"');
    expect(warning).toContain('"my-var"');
    expect(warning).toContain('AGENT_TEAMS_BASH_ENV');
    expect(warning).toMatch(/credential/);
    expect(warning).toMatch(/Remove them/);
  });
});

describe('unsandboxedBashEnv (AGENT_TEAMS_BASH_SANDBOX=none)', () => {
  const worker = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/worker',
    USER: 'worker',
    LOGNAME: 'worker',
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    LC_CTYPE: 'C.UTF-8',
    TERM: 'xterm',
    TZ: 'UTC',
    TMPDIR: '/var/tmp',
    MODEL_API_KEY: 'sk-model',
    TEMPORAL_API_KEY: 'tk',
    TEMPORAL_TLS_CLIENT_KEY_DATA: '-----BEGIN PRIVATE KEY-----',
    TEMPORAL_TLS_CLIENT_KEY_PATH: '/etc/worker/client.key',
    TEMPORAL_GRPC_META_AUTHORIZATION: 'Bearer grpc',
    MODEL_BASE_URL: 'http://user:secret@model.internal/v1',
    AWS_SECRET_ACCESS_KEY: 'aws',
    SOME_NEW_PROVIDER_TOKEN: 'new',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
    SSH_AUTH_SOCK: '/run/user/1000/ssh',
    XDG_RUNTIME_DIR: '/run/user/1000',
    GOPATH: '/go',
    UNSET: undefined,
  };

  test('an allow-list: the harmless variables only, no credential and no socket of the user', () => {
    expect(unsandboxedBashEnv(worker)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/worker',
      USER: 'worker',
      LOGNAME: 'worker',
      SHELL: '/bin/bash',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      LC_CTYPE: 'C.UTF-8',
      TERM: 'xterm',
      TZ: 'UTC',
      TMPDIR: '/var/tmp',
    });
  });

  test('AGENT_TEAMS_BASH_ENV adds names, but never a credential (also when a caller passes one)', () => {
    const env = unsandboxedBashEnv({ ...worker, AGENT_TEAMS_BASH_ENV: 'GOPATH,MODEL_API_KEY,TEMPORAL_GRPC_META_AUTHORIZATION' });
    expect(env.GOPATH).toBe('/go');
    expect(env).not.toHaveProperty('MODEL_API_KEY');
    expect(env).not.toHaveProperty('TEMPORAL_GRPC_META_AUTHORIZATION');
    expect(env).not.toHaveProperty('AGENT_TEAMS_BASH_ENV');
    const forced = unsandboxedBashEnv(worker, ['GOPATH', 'MODEL_API_KEY', 'TEMPORAL_TLS_CLIENT_KEY_DATA']);
    expect(forced.GOPATH).toBe('/go');
    expect(forced).not.toHaveProperty('MODEL_API_KEY');
    expect(forced).not.toHaveProperty('TEMPORAL_TLS_CLIENT_KEY_DATA');
  });

  test('no value of a secret anywhere in what bash gets; PATH defaulted when the worker has none', () => {
    const values = Object.values(unsandboxedBashEnv({ ...worker, AGENT_TEAMS_BASH_ENV: 'MODEL_BASE_URL,SOME_NEW_PROVIDER_TOKEN' })).join('\n');
    for (const secret of ['sk-model', 'tk', 'PRIVATE KEY', 'client.key', 'grpc', 'secret', 'aws', 'new', '/run/user']) expect(values).not.toContain(secret);
    expect(unsandboxedBashEnv({ HOME: '/h' }).PATH).toMatch(/\/usr\/bin/);
  });
});
