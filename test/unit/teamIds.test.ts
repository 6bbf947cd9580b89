/**
 * The Team id grammar (shared/contract/workflowInputs.ts) and the one ownership check a Lead and
 * the reaper make before they touch a workflow at a reserved id (shared/contract/reservedIds.ts).
 */
import { ApplicationFailure } from '@temporalio/common';
import {
  INVALID_TEAM_ID,
  checkTeamId,
  notOwnChildProblem,
  reservedIdTakenMessage,
  teamIdProblem,
  teamIdSchema,
  type ReservedIdHolder,
} from '../../shared/contract';
import { MAX_ID_LENGTH, MAX_TEAM_ID_LENGTH } from '../../shared/contract/limits';
import { subagentId } from '../../shared/lead';
import { teammateWorkflowId } from '../../shared/team';

describe('the Team id grammar', () => {
  const valid = ['ux-ops', 'session-50', 'demo-1.2', 'a', '9', 'Team_1:blue', 'x'.repeat(MAX_TEAM_ID_LENGTH)];
  const invalid: [string, RegExp][] = [
    ['', /it is empty/],
    ['x'.repeat(MAX_TEAM_ID_LENGTH + 1), /over 100/],
    ['ux-ops/teammate/zzz', /contains '\/'/],
    ['ux-ops/subagent/1', /contains '\/'/],
    ['ux-ops/other/x', /contains '\/'/],
    ['/leading', /contains '\/'/],
    ['Bad Team/Id', /contains '\/'/],
    ['Bad Team', /whitespace or a control character/],
    ['tab\there', /whitespace or a control character/],
    ['line\nbreak', /whitespace or a control character/],
    ['nul\u0000', /whitespace or a control character/],
    ['del\u007f', /whitespace or a control character/],
    ['c1\u0085', /whitespace or a control character/],
    ['nbsp\u00a0x', /contains/],
    ['-dash-first', /does not start with a letter or a digit/],
    ['.dot', /does not start/],
    ['quote"d', /contains "\\""/],
    ['bidi\u202eid', /contains/],
    ['ünïcode', /does not start/],
    ['a*b', /contains "\*"/],
  ];

  test.each(valid)('%s is a Team id', (id) => {
    expect(teamIdProblem(id)).toBeNull();
    expect(teamIdSchema.safeParse(id).success).toBe(true);
    expect(checkTeamId(id)).toBe(id);
  });

  test.each(invalid)('%j is refused with a message that says why and what to write', (id, why) => {
    const problem = teamIdProblem(id);
    expect(problem).toMatch(why);
    expect(problem).toMatch(/write 1 to 100 characters: letters, digits, '\.', '_', ':' or '-', starting with a letter or digit/);
    expect(teamIdSchema.safeParse(id).success).toBe(false);
    let thrown: unknown;
    try {
      checkTeamId(id);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApplicationFailure);
    expect(thrown).toMatchObject({ type: INVALID_TEAM_ID, nonRetryable: true, message: problem });
  });

  test('non-strings are refused too', () => {
    for (const value of [undefined, null, 42, {}]) expect(teamIdProblem(value)).toMatch(/a Team id is a string/);
  });

  test('no Team id is a member id of any Team, whatever the names', () => {
    for (const id of valid) {
      expect(teamIdProblem(teammateWorkflowId(id, 'zzz'))).not.toBeNull();
      expect(teamIdProblem(subagentId(id, 1))).not.toBeNull();
    }
  });

  test('the reserved ids of the longest Team id stay within the id limit', () => {
    expect(teammateWorkflowId('x'.repeat(MAX_TEAM_ID_LENGTH), 'a'.repeat(40)).length).toBeLessThanOrEqual(MAX_ID_LENGTH);
  });

  test('an id shown in a refusal has its control characters escaped', () => {
    expect(teamIdProblem('a\u0007b')).toContain('"a\\u0007b"');
  });
});

describe('who may be touched at a reserved id', () => {
  const own: ReservedIdHolder = {
    workflowId: 'ux-ops/teammate/zzz',
    workflowType: 'teammate',
    runId: 'run-1',
    parentWorkflowId: 'ux-ops',
    agentTeamId: 'ux-ops',
  };

  test('a member type, started by the Lead and recorded as its Team: the Lead own child', () => {
    expect(notOwnChildProblem(own, 'ux-ops')).toBeNull();
    expect(notOwnChildProblem({ ...own, workflowType: 'subagent' }, 'ux-ops')).toBeNull();
  });

  test('anything else is named with every reason', () => {
    expect(notOwnChildProblem({ ...own, workflowType: 'teamLead', parentWorkflowId: null, agentTeamId: null }, 'ux-ops')).toBe(
      'its workflow type is teamLead, not teammate or subagent; it has no parent workflow; it has no AgentTeamId',
    );
    expect(notOwnChildProblem({ ...own, parentWorkflowId: 'other' }, 'ux-ops')).toBe('its parent is other, not this Lead');
    expect(notOwnChildProblem({ ...own, agentTeamId: 'other' }, 'ux-ops')).toBe('its AgentTeamId is other');
    expect(notOwnChildProblem({ ...own, workflowType: null }, 'ux-ops')).toMatch(/workflow type is unknown/);
    // A child of another Team's Lead is not this Lead's.
    expect(notOwnChildProblem(own, 'ux-ops2')).toMatch(/parent is ux-ops, not this Lead; its AgentTeamId is ux-ops/);
  });

  test('ReservedIdTaken names the holder: workflow id, type and run id', () => {
    const holder = { ...own, workflowType: 'teamLead', runId: 'r-9', parentWorkflowId: null };
    const message = reservedIdTakenMessage(holder, 'ux-ops', notOwnChildProblem(holder, 'ux-ops')!);
    expect(message).toMatch(/^ReservedIdTaken: the reserved id ux-ops\/teammate\/zzz is held by workflow ux-ops\/teammate\/zzz \(type teamLead, run r-9\)/);
    expect(message).toMatch(/nothing of it was changed\. Spawn the teammate under another name/);
  });
});
