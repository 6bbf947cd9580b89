/**
 * The orphan reaper's pure parts: its interval setting (AGENT_TEAMS_REAPER_INTERVAL), the decision
 * over described facts (shared/reaper/orphans.ts), and the visibility query it lists members with. The
 * passes themselves run on the real server in test/integration/reaper.test.ts.
 */
import fc from 'fast-check';
import { isLivePhase } from '../../shared/team';
import {
  judgeMember,
  needsRoster,
  orphanAction,
  runningMembersQuery,
  visibilityString,
  type LeadFacts,
  type MemberFacts,
  type RosterEntry,
} from '../../shared/reaper/orphans';
import { DEFAULT_REAPER_INTERVAL_MS, ReaperConfigInvalid, describeInterval, reaperFromEnv, reaperScheduleId } from '../../worker/reaper';
import { MEMBER_PHASES } from '../../shared/contract/vocabulary';

describe('AGENT_TEAMS_REAPER_INTERVAL', () => {
  const parse = (value: string | undefined) => reaperFromEnv(value === undefined ? {} : { AGENT_TEAMS_REAPER_INTERVAL: value });

  it.each([
    [undefined, { intervalMs: DEFAULT_REAPER_INTERVAL_MS }],
    ['', { intervalMs: DEFAULT_REAPER_INTERVAL_MS }],
    ['  ', { intervalMs: DEFAULT_REAPER_INTERVAL_MS }],
    ['60s', { intervalMs: 60_000 }],
    ['1s', { intervalMs: 1_000 }],
    [' 5m ', { intervalMs: 300_000 }],
    ['1H', { intervalMs: 3_600_000 }],
    ['24h', { intervalMs: 86_400_000 }],
    ['off', false],
    ['OFF', false],
  ])('%j → %j', (value, expected) => {
    expect(parse(value)).toEqual(expected);
  });

  it.each(['60', '0s', '1500ms', '1.5s', '-5s', '25h', '90000000s', 'sixty', 'false', '0', 'never', '60 s', '1d'])(
    '%j is refused, naming the variable and the fix',
    (value) => {
      expect(() => parse(value)).toThrow(ReaperConfigInvalid);
      expect(() => parse(value)).toThrow(/AGENT_TEAMS_REAPER_INTERVAL=.* is not an interval: set a whole number of seconds, minutes or hours .* or off/);
    },
  );

  test('the Schedule id and the start-up wording', () => {
    expect(reaperScheduleId('agent-teams')).toBe('agent-teams-reaper/agent-teams');
    expect(describeInterval(60_000)).toBe('1 min');
    expect(describeInterval(2_000)).toBe('2 s');
  });
});

const T = 1_000_000;
const teammate = (startTime: number, workflowId = 'team/teammate/a'): MemberFacts => ({ workflowId, runId: 'r', role: 'teammate', startTime });
const subagent = (startTime: number): MemberFacts => ({ workflowId: 'team/subagent/1', runId: 'r', role: 'subagent', startTime });
const running = (lastResetTime: number | null = null): LeadFacts => ({ kind: 'running', lastResetTime });

describe('judgeMember', () => {
  test.each<[string, LeadFacts, MemberFacts, RosterEntry[] | null, boolean]>([
    ['absent Lead', { kind: 'absent' }, teammate(T), null, true],
    ['terminated Lead', { kind: 'closed', status: 'TERMINATED' }, teammate(T), null, true],
    ['failed Lead, subagent', { kind: 'closed', status: 'FAILED' }, subagent(T), null, true],
    ['running Lead, never reset', running(), teammate(T), null, false],
    ['running Lead reset before the member started', running(T - 1), teammate(T), null, false],
    ['reset after the start, roster names it active', running(T + 1), teammate(T), [{ workflowId: 'team/teammate/a', phase: 'active' }], false],
    ['reset after the start, roster names it provisioning', running(T + 1), teammate(T), [{ workflowId: 'team/teammate/a', phase: 'provisioning' }], false],
    ['reset after the start, roster records it stopped', running(T + 1), teammate(T), [{ workflowId: 'team/teammate/a', phase: 'stopped' }], true],
    ['reset after the start, roster records it failed', running(T + 1), teammate(T), [{ workflowId: 'team/teammate/a', phase: 'failed' }], true],
    ['reset after the start, roster names another', running(T + 1), teammate(T), [{ workflowId: 'team/teammate/b', phase: 'active' }], true],
    ['reset after the start, roster unreadable', running(T + 1), teammate(T), null, false],
    ['reset after a subagent started, the Lead lists it open', running(T + 1), subagent(T), [{ workflowId: 'team/subagent/1', phase: 'active' }], false],
    ['reset after a subagent started, the Lead lists it closed', running(T + 1), subagent(T), [{ workflowId: 'team/subagent/1', phase: 'stopped' }], true],
    ['reset to before a subagent started: the Lead does not list it', running(T + 1), subagent(T), [], true],
  ])('%s', (_, lead, member, roster, orphan) => {
    expect(judgeMember(lead, member, roster).orphan).toBe(orphan);
  });

  test("the Lead's records are needed only for a running Lead reset after one of its members started", () => {
    expect(needsRoster(running(), [teammate(T)])).toBe(false);
    expect(needsRoster(running(T - 1), [teammate(T)])).toBe(false);
    expect(needsRoster(running(T + 1), [teammate(T + 2), teammate(T)])).toBe(true);
    expect(needsRoster(running(T + 1), [subagent(T)])).toBe(true);
    expect(needsRoster(running(T + 1), [subagent(T + 2)])).toBe(false);
    expect(needsRoster({ kind: 'closed', status: 'TERMINATED' }, [teammate(T)])).toBe(false);
  });

  const phase = fc.constantFrom(...MEMBER_PHASES);
  const time = fc.integer({ min: 0, max: 10_000 });
  const lead: fc.Arbitrary<LeadFacts> = fc.oneof(
    fc.constant<LeadFacts>({ kind: 'absent' }),
    fc.constantFrom('COMPLETED', 'FAILED', 'CANCELED', 'TERMINATED', 'TIMED_OUT').map((status): LeadFacts => ({ kind: 'closed', status })),
    fc.option(time, { nil: null }).map((lastResetTime): LeadFacts => ({ kind: 'running', lastResetTime })),
  );
  const member: fc.Arbitrary<MemberFacts> = fc.record({
    workflowId: fc.constantFrom('team/teammate/a', 'team/teammate/b', 'team/subagent/1'),
    runId: fc.constant('r'),
    role: fc.constantFrom('teammate' as const, 'subagent' as const),
    startTime: time,
  });
  // A roster names each workflow id once (its records are keyed by name, and the id derives from the name).
  const roster = fc.option(
    fc.uniqueArray(fc.record({ workflowId: fc.constantFrom('team/teammate/a', 'team/teammate/b', 'team/subagent/1'), phase }), {
      selector: (e) => e.workflowId,
      maxLength: 3,
    }),
    { nil: null },
  );

  test('property: a closed or absent Lead orphans every member; a running one only through a roster read after a reset that does not name it live', () => {
    fc.assert(
      fc.property(lead, member, roster, (l, m, r) => {
        const verdict = judgeMember(l, m, r);
        if (l.kind !== 'running') return verdict.orphan;
        // Without a needed roster the answer never depends on what the roster says.
        if (!needsRoster(l, [m])) return !verdict.orphan && judgeMember(l, m, null).orphan === false;
        const live = r?.some((e) => e.workflowId === m.workflowId && isLivePhase(e.phase)) ?? true;
        return verdict.orphan === !live;
      }),
    );
  });
});

test('orphanAction: cancel first, terminate once a cancel was requested, nothing for a closed one', () => {
  expect(orphanAction({ running: true, cancelRequested: false })).toBe('cancel');
  expect(orphanAction({ running: true, cancelRequested: true })).toBe('terminate');
  expect(orphanAction({ running: false, cancelRequested: true })).toBe('none');
});

describe('the visibility query', () => {
  test('the members of one queue, matched exactly when its name can be', () => {
    expect(runningMembersQuery('agent-teams')).toBe('ExecutionStatus = "Running" AND AgentTeamRole IN ("teammate", "subagent") AND TaskQueue = "agent-teams"');
    expect(runningMembersQuery('team "q"')).toBe('ExecutionStatus = "Running" AND AgentTeamRole IN ("teammate", "subagent") AND TaskQueue STARTS_WITH "team "');
    expect(runningMembersQuery("'q")).toBe('ExecutionStatus = "Running" AND AgentTeamRole IN ("teammate", "subagent")');
  });

  test('property: a string literal, whatever the value, whose unescaped text is the value', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '"', '\\', "'", ' ', ')', 'é') }), (value) => {
        const literal = visibilityString(value);
        expect(literal.startsWith('"') && literal.endsWith('"')).toBe(true);
        const body = literal.slice(1, -1);
        // Every quote inside is escaped (an even run of backslashes before it would end the literal).
        expect(/(^|[^\\])(\\\\)*"/.test(body)).toBe(false);
        expect(body.replace(/\\(.)/g, '$1')).toBe(value);
      }),
    );
  });
});
