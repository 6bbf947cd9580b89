/**
 * connectionOptionsFromEnv: a profile from the TOML config file (@temporalio/envconfig), then the
 * explicit TEMPORAL_* variables on top. Every case passes its own environment, so nothing here
 * reads the real process environment or the user's ~/.config.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionOptionsFromEnv } from '../../client/connection';

let dir: string;
let configFile: string;
let certFile: string;
let keyFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-teams-envconfig-'));
  configFile = join(dir, 'temporal.toml');
  certFile = join(dir, 'client.pem');
  keyFile = join(dir, 'client.key');
  writeFileSync(certFile, 'CERT');
  writeFileSync(keyFile, 'KEY');
  writeFileSync(
    configFile,
    [
      '[profile.default]',
      'address = "default-host:7233"',
      'namespace = "default-ns"',
      '',
      '[profile.team]',
      'address = "team.example.tmprl.cloud:7233"',
      'namespace = "team-ns.a1b2c"',
      'api_key = "profile-key"',
      '',
      '[profile.mtls]',
      'address = "mtls-host:7233"',
      '[profile.mtls.tls]',
      `client_cert_path = ${JSON.stringify(certFile)}`,
      `client_key_path = ${JSON.stringify(keyFile)}`,
      'server_name = "temporal.internal"',
      '[profile.mtls.grpc_meta]',
      'x-team = "blue"',
      '',
    ].join('\n'),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An environment with no user config directory, so only TEMPORAL_CONFIG_FILE can name a file. */
const env = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ ...vars });

describe('connectionOptionsFromEnv', () => {
  it('uses the "default" profile of TEMPORAL_CONFIG_FILE when no profile is named', () => {
    expect(connectionOptionsFromEnv(env({ TEMPORAL_CONFIG_FILE: configFile }))).toEqual({ address: 'default-host:7233', namespace: 'default-ns' });
  });

  it('selects the profile named by TEMPORAL_PROFILE; an API key implies TLS', () => {
    expect(connectionOptionsFromEnv(env({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'team' }))).toEqual({
      address: 'team.example.tmprl.cloud:7233',
      namespace: 'team-ns.a1b2c',
      apiKey: 'profile-key',
      tls: true,
    });
  });

  it('loads mTLS files, the server name and gRPC headers from a profile', () => {
    const options = connectionOptionsFromEnv(env({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'mtls' }));
    expect(options.address).toBe('mtls-host:7233');
    expect(options.namespace).toBe('default');
    expect(options.metadata).toEqual({ 'x-team': 'blue' });
    const tls = options.tls;
    if (typeof tls !== 'object') throw new Error(`expected a TLS config, got ${String(tls)}`);
    expect(tls.serverNameOverride).toBe('temporal.internal');
    expect(Buffer.from(tls.clientCertPair!.crt).toString()).toBe('CERT');
    expect(Buffer.from(tls.clientCertPair!.key).toString()).toBe('KEY');
  });

  it('lets explicit environment variables override the selected profile field by field', () => {
    const options = connectionOptionsFromEnv(
      env({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'team', TEMPORAL_ADDRESS: 'override:7233', TEMPORAL_API_KEY: 'env-key' }),
    );
    expect(options).toEqual({ address: 'override:7233', namespace: 'team-ns.a1b2c', apiKey: 'env-key', tls: true });
    expect(connectionOptionsFromEnv(env({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_NAMESPACE: 'env-ns' }))).toEqual({
      address: 'default-host:7233',
      namespace: 'env-ns',
    });
  });

  it('lets TEMPORAL_TLS=false switch off the TLS an API key would imply', () => {
    const options = connectionOptionsFromEnv(env({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'team', TEMPORAL_TLS: 'false' }));
    expect(options.tls).toBe(false);
    expect(options.apiKey).toBe('profile-key');
  });

  it('treats empty variables as unset', () => {
    const options = connectionOptionsFromEnv(
      env({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'team', TEMPORAL_TLS: '', TEMPORAL_ADDRESS: '', TEMPORAL_API_KEY: '' }),
    );
    expect(options).toEqual({ address: 'team.example.tmprl.cloud:7233', namespace: 'team-ns.a1b2c', apiKey: 'profile-key', tls: true });
  });

  it('is fine without a config file: environment variables and defaults only', () => {
    const missing = join(dir, 'does-not-exist.toml');
    expect(connectionOptionsFromEnv(env({ TEMPORAL_CONFIG_FILE: missing }))).toEqual({ address: 'localhost:7233', namespace: 'default' });
    expect(connectionOptionsFromEnv(env({}))).toEqual({ address: 'localhost:7233', namespace: 'default' });
    expect(
      connectionOptionsFromEnv(
        env({ TEMPORAL_CONFIG_FILE: missing, TEMPORAL_ADDRESS: 'env-host:7233', TEMPORAL_TLS_CLIENT_CERT_PATH: certFile, TEMPORAL_TLS_CLIENT_KEY_PATH: keyFile }),
      ),
    ).toMatchObject({ address: 'env-host:7233', namespace: 'default', tls: { clientCertPair: { crt: expect.anything(), key: expect.anything() } } });
    expect(connectionOptionsFromEnv(env({ TEMPORAL_TLS: 'true' }))).toEqual({ address: 'localhost:7233', namespace: 'default', tls: true });
  });

  it('reads the platform default file ($XDG_CONFIG_HOME/temporalio/temporal.toml) when TEMPORAL_CONFIG_FILE is unset', () => {
    const xdg = join(dir, 'xdg');
    mkdirSync(join(xdg, 'temporalio'), { recursive: true });
    writeFileSync(join(xdg, 'temporalio', 'temporal.toml'), '[profile.default]\naddress = "xdg-host:7233"\n');
    if (process.platform === 'linux') {
      expect(connectionOptionsFromEnv(env({ XDG_CONFIG_HOME: xdg })).address).toBe('xdg-host:7233');
    }
  });

  it('fails with what to do next when TEMPORAL_PROFILE names a profile that is not there', () => {
    expect(() => connectionOptionsFromEnv(env({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'staging' }))).toThrow(
      /profile "staging" \(TEMPORAL_PROFILE\) is not in .*temporal\.toml; add a \[profile\.staging\] table or unset TEMPORAL_PROFILE/,
    );
    expect(() => connectionOptionsFromEnv(env({ TEMPORAL_CONFIG_FILE: join(dir, 'nope.toml'), TEMPORAL_PROFILE: 'team' }))).toThrow(/profile "team"/);
  });

  it('fails with what to do next on a malformed config file', () => {
    const broken = join(dir, 'broken.toml');
    writeFileSync(broken, '[profile.default\naddress = ');
    expect(() => connectionOptionsFromEnv(env({ TEMPORAL_CONFIG_FILE: broken }))).toThrow(/cannot load Temporal client configuration from .*broken\.toml/);
  });
});
