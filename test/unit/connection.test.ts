/**
 * How the client and the CLI connect, and how long they wait:
 *  - connectionOptionsFromEnv: a profile from the TOML config file (@temporalio/envconfig), then
 *    the explicit TEMPORAL_* variables on top. Every case passes its own environment, so nothing
 *    here reads the real process environment or the user's ~/.config.
 *  - deadlines: the client's deadline options, the CLI's --timeout, the per-Team in-flight slots
 *    and the TeamCallTimedOut message (no server; test/integration/clientDeadlines.test.ts runs
 *    them against one).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { InvalidArgumentError } from 'commander';
import { DEFAULT_TIMEOUT_S, cliTimeoutMessage, commandPlan, parseSeconds } from '../../cli/timeouts';
import { connectionOptionsFromEnv } from '../../client/connection';
import {
  DEFAULT_DEADLINES,
  DeadlineReached,
  TeamCallTimedOut,
  deadlineFrom,
  healthAdvice,
  resolveDeadlines,
  runBefore,
  withinDeadline,
  type TeamHealth,
} from '../../client/deadlines';
import { MAX_IN_FLIGHT_UPDATES_PER_TEAM, TeamClient, updateSlotsInUse, withUpdateSlot } from '../../client/teamClient';

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
        env({
          TEMPORAL_CONFIG_FILE: missing,
          TEMPORAL_ADDRESS: 'env-host:7233',
          TEMPORAL_TLS_CLIENT_CERT_PATH: certFile,
          TEMPORAL_TLS_CLIENT_KEY_PATH: keyFile,
        }),
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

describe('client deadlines: options', () => {
  it('defaults per kind of call, overridden field by field', () => {
    expect(resolveDeadlines()).toEqual({ callMs: 30_000, updateMs: 60_000, disposeMs: 300_000, waitMarginMs: 30_000 });
    expect(resolveDeadlines({ callMs: 2_000 })).toEqual({ ...DEFAULT_DEADLINES, callMs: 2_000 });
    expect(resolveDeadlines({ updateMs: 500, waitMarginMs: 1_000 }, { ...DEFAULT_DEADLINES, callMs: 2_000 })).toEqual({
      callMs: 2_000,
      updateMs: 500,
      disposeMs: 300_000,
      waitMarginMs: 1_000,
    });
  });

  it('rejects a deadline that is not a positive number of milliseconds, and unknown options', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, '30' as unknown as number]) {
      expect(() => resolveDeadlines({ callMs: bad })).toThrow(/deadlines\.callMs must be a positive number of milliseconds/);
    }
    expect(() => resolveDeadlines({ callMS: 5 } as Partial<typeof DEFAULT_DEADLINES>)).toThrow(
      /unknown deadline option callMS; use callMs, updateMs, disposeMs, waitMarginMs/,
    );
  });

  it('are set per client (constructor, attach, withDeadlines) and kept by as()', () => {
    const client = {} as Client;
    expect(() => new TeamClient(client, 't', 'lead', { updateMs: 0 })).toThrow(RangeError);
    const team = TeamClient.attach(client, 't', 'lead', { callMs: 1_000 });
    expect(team.deadlines).toEqual({ ...DEFAULT_DEADLINES, callMs: 1_000 });
    expect(team.as('alice').deadlines).toEqual(team.deadlines);
    expect(team.as('alice').caller).toBe('alice');
    expect(team.withDeadlines({ disposeMs: 9_000 }).deadlines).toEqual({ ...DEFAULT_DEADLINES, callMs: 1_000, disposeMs: 9_000 });
  });

  it('caps a call by the deadline it runs inside', async () => {
    const now = Date.now();
    expect(deadlineFrom(10_000, now)).toBe(now + 10_000);
    await runBefore(now + 500, async () => {
      expect(deadlineFrom(10_000, now)).toBe(now + 500);
      expect(deadlineFrom(100, now)).toBe(now + 100);
      await runBefore(now + 5_000, () => Promise.resolve(expect(deadlineFrom(10_000, now)).toBe(now + 500))); // an inner scope never extends the outer
    });
    await withinDeadline(1_000, () => Promise.resolve(expect(deadlineFrom(60_000)).toBeLessThanOrEqual(Date.now() + 1_000)));
    expect(() => withinDeadline(0, () => Promise.resolve())).toThrow(RangeError);
  });
});

describe('client deadlines: in-flight Update slots', () => {
  it('a call waiting for a slot gives up at its deadline, and every slot is released afterwards', async () => {
    const teamId = `slots-${Date.now()}`;
    let finish!: () => void;
    const blocked = new Promise<void>((resolve) => (finish = resolve));
    const holders = Array.from({ length: MAX_IN_FLIGHT_UPDATES_PER_TEAM }, () => withUpdateSlot(teamId, () => blocked, Date.now() + 60_000));
    await new Promise((resolve) => setImmediate(resolve));
    expect(updateSlotsInUse(teamId)).toBe(MAX_IN_FLIGHT_UPDATES_PER_TEAM);
    const ninth = withUpdateSlot(teamId, () => Promise.resolve('ran'), Date.now() + 50);
    await expect(ninth).rejects.toThrow(DeadlineReached);
    await expect(ninth).rejects.toThrow(/all 8 in-flight Update slots/);
    finish();
    await Promise.all(holders);
    expect(updateSlotsInUse(teamId)).toBe(0);
    // A slot freed after the waiter gave up is not leaked to it.
    await expect(withUpdateSlot(teamId, () => Promise.resolve('ran'), Date.now() + 1_000)).resolves.toBe('ran');
    expect(updateSlotsInUse(teamId)).toBe(0);
  });

  it('a failing call releases its slot', async () => {
    const teamId = `slots-fail-${Date.now()}`;
    await expect(withUpdateSlot(teamId, () => Promise.reject(new Error('boom')), Date.now() + 1_000)).rejects.toThrow('boom');
    expect(updateSlotsInUse(teamId)).toBe(0);
  });
});

const health = (overrides: Partial<TeamHealth> = {}): TeamHealth => ({
  teamId: 'session-42',
  status: 'RUNNING',
  runId: 'run-1',
  taskQueue: 'agent-teams',
  historyLength: 12,
  workflowTaskAttempt: null,
  pollers: 1,
  lastWorkflowTaskFailure: null,
  ...overrides,
});

describe('client deadlines: TeamCallTimedOut says what to do next', () => {
  it('is a retriable ApplicationFailure with a stable type and the facts', () => {
    const error = new TeamCallTimedOut({
      teamId: 'session-42',
      operation: 'createTask',
      deadlineMs: 2_000,
      updateId: 'u-1',
      health: health({ pollers: 0, workflowTaskAttempt: 1 }),
    });
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toBeInstanceOf(TeamCallTimedOut);
    expect(error.type).toBe('TeamCallTimedOut');
    expect(error.name).toBe('TeamCallTimedOut');
    expect(error.nonRetryable).toBe(false);
    expect(error).toMatchObject({ teamId: 'session-42', operation: 'createTask', deadlineMs: 2_000, updateId: 'u-1' });
    expect(error.details?.[0]).toMatchObject({ teamId: 'session-42', operation: 'createTask', updateId: 'u-1' });
    expect(error.message).toBe(
      'Team session-42: createTask (update id u-1) did not finish within its 2s deadline. ' +
        'No worker polls the Lead\'s task queue "agent-teams": start one on it (TEMPORAL_TASK_QUEUE=agent-teams npm run worker). ' +
        'Check `npm run cli -- status session-42` or the Web UI for failed workflow tasks. ' +
        'The Update may still be applied: retry with the same update id (u-1), which is applied at most once.',
    );
  });

  it('tells a query, a read-only Update and an undiagnosed call apart', () => {
    const query = new TeamCallTimedOut({ teamId: 't', operation: 'getTeamView', deadlineMs: 30_000, health: null });
    expect(query.message).toMatch(/getTeamView did not finish within its 30s deadline\. The Lead could not be described in time either: is Temporal reachable/);
    expect(query.message).toMatch(/Retry once that is fixed, or with a longer deadline\.$/);
    const wait = new TeamCallTimedOut({
      teamId: 't',
      operation: 'waitForEdge',
      deadlineMs: 1_500,
      updateId: 'w',
      reason: 'all 8 in-flight Update slots this process has for the Team stayed taken',
      health: health(),
    });
    expect(wait.message).toMatch(/waitForEdge \(update id w\) did not finish within its 1\.5s deadline \(all 8 in-flight Update slots/);
    expect(wait.message).not.toMatch(/may still be applied/);
  });

  it("reads the Lead's health into one piece of advice", () => {
    expect(healthAdvice(health({ status: 'COMPLETED' }))).toMatch(/run is COMPLETED: the Team has finished; start a new Team/);
    expect(healthAdvice(health({ workflowTaskAttempt: 4, lastWorkflowTaskFailure: 'TypeError: boom' }))).toBe(
      "The Lead's workflow task has failed 3 times (last recorded failure: TypeError: boom), so it answers nothing: " +
        'deploy a worker that can run it (the Web UI shows the failure).',
    );
    expect(healthAdvice(health({ workflowTaskAttempt: 2, pollers: 0 }))).toMatch(
      /has failed 1 time, so .*; no worker polls task queue "agent-teams" now either/,
    );
    expect(healthAdvice(health({ pollers: 0 }))).toMatch(
      /^No worker polls the Lead's task queue "agent-teams": start one on it \(TEMPORAL_TASK_QUEUE=agent-teams npm run worker\)\.$/,
    );
    expect(healthAdvice(health({ workflowTaskAttempt: 1 }))).toMatch(/has not completed the Lead's pending workflow task: it may be overloaded or stuck/);
    expect(healthAdvice(health())).toMatch(/it may just be busy; retry with a longer deadline/);
    expect(healthAdvice(health({ workflowTaskAttempt: 1 }), 'status')).toMatch(/^Healthy/);
    expect(healthAdvice(health({ pollers: null }), 'status')).toMatch(/^Healthy/);
  });
});

describe('CLI --timeout', () => {
  it('parses a positive number of seconds', () => {
    expect(parseSeconds('2')).toBe(2);
    expect(parseSeconds('0.5')).toBe(0.5);
    expect(parseSeconds(' 90 ')).toBe(90);
    for (const bad of ['0', '-1', 'abc', '', ' ', 'NaN', 'Infinity', '1e10']) expect(() => parseSeconds(bad)).toThrow(InvalidArgumentError);
    expect(() => parseSeconds('-3')).toThrow(/"-3" is not a positive number of seconds/);
    expect(() => parseSeconds('1e10')).toThrow(/longer than the longest deadline/);
  });

  it('is the whole deadline of a read, a change or dispose, and of every call in it', () => {
    expect(DEFAULT_TIMEOUT_S).toEqual({ read: 30, change: 60, dispose: 300, wait: 1800 });
    expect(commandPlan('read')).toEqual({ deadlines: { callMs: 30_000, updateMs: 30_000, disposeMs: 30_000 }, commandMs: 30_000 });
    expect(commandPlan('change')).toEqual({ deadlines: { callMs: 60_000, updateMs: 60_000, disposeMs: 60_000 }, commandMs: 60_000 });
    expect(commandPlan('dispose')).toEqual({ deadlines: { callMs: 300_000, updateMs: 300_000, disposeMs: 300_000 }, commandMs: 300_000 });
    expect(commandPlan('change', 2)).toEqual({ deadlines: { callMs: 2_000, updateMs: 2_000, disposeMs: 2_000 }, commandMs: 2_000 });
  });

  it('with --wait is how long to wait for the answer; the calls keep their own deadlines', () => {
    expect(commandPlan('wait')).toEqual({ deadlines: {}, commandMs: 1_830_000, waitMs: 1_800_000 });
    expect(commandPlan('wait', 300)).toEqual({ deadlines: {}, commandMs: 330_000, waitMs: 300_000 });
  });

  it('for watch is how late each wait may answer; --for bounds the command', () => {
    expect(commandPlan('watch')).toEqual({ deadlines: {}, commandMs: null });
    expect(commandPlan('watch', undefined, 60)).toEqual({ deadlines: {}, commandMs: 90_000 });
    expect(commandPlan('watch', 5, 60)).toEqual({ deadlines: { waitMarginMs: 5_000 }, commandMs: 65_000 });
  });

  it("adds the CLI's next step to a timeout", () => {
    const facts = { message: 'M.', updateId: 'm-1' };
    expect(cliTimeoutMessage({ ...facts, operation: 'sendMessage' })).toBe(
      'M. From the CLI: repeat it with `send … --id m-1` (taken once); --timeout <seconds> gives the command more time.',
    );
    expect(cliTimeoutMessage({ ...facts, operation: 'promptLead' })).toMatch(/repeat it with `prompt … --id m-1`/);
    expect(cliTimeoutMessage({ ...facts, operation: 'claimTask' })).toMatch(/it may still be applied, so read the board or roster before repeating it/);
    expect(cliTimeoutMessage({ ...facts, operation: 'waitForEdge' })).toBe('M. From the CLI: --timeout <seconds> gives the command more time.');
    expect(cliTimeoutMessage({ message: 'M.', operation: 'getTeamView', updateId: undefined })).toBe(
      'M. From the CLI: --timeout <seconds> gives the command more time.',
    );
  });
});
