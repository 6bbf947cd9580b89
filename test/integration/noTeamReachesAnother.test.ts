/**
 * Issue 53, "No Team reaches another", on the real server:
 *  - a Team id is checked against its grammar by the client, the CLI and the Lead's own start: every
 *    reserved form (`<id>/teammate/<name>`, `<id>/subagent/<n>`, any `/`), control characters,
 *    spaces and the length limit are refused with the typed InvalidTeamId, and no workflow starts;
 *  - a spawn whose reserved id is held by another Team's Lead (started raw, past the client's check)
 *    fails with ReservedIdTaken naming it, records the member failed, and leaves that Lead RUNNING
 *    with no cancel request or signal in its history, through the Team's disposal too; the CLI
 *    exits non-zero;
 *  - a Lead started without search attributes sets its own: `AgentTeamId = "<id>"` finds it.
 */
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TeamClient } from '../../client/teamClient';
import { TEAM_LEAD_WORKFLOW_TYPE } from '../../shared/contract';
import { AGENT_TEAM_ID, AGENT_TEAM_MEMBER, AGENT_TEAM_ROLE } from '../../shared/contract/searchAttributes';
import { MAX_TEAM_ID_LENGTH } from '../../shared/contract/limits';
import { subagentId } from '../../shared/lead';
import { teammateWorkflowId } from '../../shared/team';
import { cli } from '../support/cli';
import { useClientAndWorker } from '../support/harness';
import { uniqueId } from '../support/temporal';
import { eventually, rejectionOf } from '../support/teams';

const env = useClientAndWorker();

/** Nothing exists at `workflowId`: describe says not found. */
async function expectNoWorkflow(workflowId: string): Promise<void> {
  await expect(env.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
}

/** The events of a workflow's history that would show it was touched: a cancel request, a signal, a termination. */
async function touches(workflowId: string): Promise<string[]> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events.flatMap((e) => [
    ...(e.workflowExecutionCancelRequestedEventAttributes ? ['cancel requested'] : []),
    ...(e.workflowExecutionSignaledEventAttributes ? [`signal ${e.workflowExecutionSignaledEventAttributes.signalName ?? ''}`] : []),
    ...(e.workflowExecutionTerminatedEventAttributes ? ['terminated'] : []),
  ]);
}

describe('Team ids outside the grammar', () => {
  const suffix = uniqueId('h');
  const base = uniqueId('ux-ops');
  const hostile: [string, string][] = [
    ['a teammate reserved id', teammateWorkflowId(base, 'zzz')],
    ['a subagent reserved id', subagentId(base, 1)],
    ['a future reserved form', `${base}/reviewer/x`],
    ['a trailing slash', `${base}/`],
    ['spaces and a slash', `Bad Team/Id ${suffix}`],
    ['a space', `bad team ${suffix}`],
    ['a tab', `tab\t${suffix}`],
    ['a line break', `line\n${suffix}`],
    ['a NUL', `nul\u0000${suffix}`],
    ['an ANSI escape', `esc\u001b[31m${suffix}`],
    ['a DEL', `del\u007f${suffix}`],
    ['a C1 control', `c1\u0085${suffix}`],
    ['a bidi override', `bidi\u202e${suffix}`],
    ['one character over the limit', `${suffix}-${'x'.repeat(MAX_TEAM_ID_LENGTH)}`.slice(0, MAX_TEAM_ID_LENGTH + 1)],
    ['a leading dash', `-${suffix}`],
  ];

  test.each(hostile)('%s is refused by the client with InvalidTeamId, and no workflow is started', async (_what, teamId) => {
    const refused = await rejectionOf(TeamClient.start(env.client, { teamId, taskQueue: env.worker.taskQueue }));
    expect(refused.type).toBe('InvalidTeamId');
    expect(refused.nonRetryable).toBe(true);
    expect(refused.message).toMatch(/is not valid: .*; write 1 to 100 characters: letters, digits/);
    expect(() => TeamClient.attach(env.client, teamId)).toThrow(ApplicationFailure);
    await expectNoWorkflow(teamId);
  });

  test('the empty id is refused too', async () => {
    expect((await rejectionOf(TeamClient.start(env.client, { teamId: '', taskQueue: env.worker.taskQueue }))).type).toBe('InvalidTeamId');
  });

  test('a Lead started raw under a reserved id fails at once with InvalidTeamId, before it does anything', async () => {
    const teamId = teammateWorkflowId(uniqueId('ux-ops'), 'zzz');
    const lead = await env.client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, { workflowId: teamId, taskQueue: env.worker.taskQueue, args: [{ teamId }] });
    const failure = await lead.result().then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'InvalidTeamId', nonRetryable: true });
    expect((failure as WorkflowFailedError).cause?.message).toMatch(/this Lead was not started: the Team id ".*" is not valid: it contains '\/'/);
    const events = (await lead.fetchHistory()).events ?? [];
    // Nothing but the start, one workflow task, its patch marker (and the SDK's TemporalChangeVersion upsert) and the
    // failure: no child, no activity, none of the Team's search attributes.
    expect(events.some((e) => e.startChildWorkflowExecutionInitiatedEventAttributes || e.activityTaskScheduledEventAttributes)).toBe(false);
    const upserted = events.flatMap((e) => Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}));
    expect(upserted.filter((key) => key.startsWith('AgentTeam'))).toEqual([]);
    expect(events.some((e) => e.workflowExecutionFailedEventAttributes)).toBe(true);
  });

  test('the CLI refuses before any call, says what to write, and exits non-zero', async () => {
    for (const teamId of [teammateWorkflowId(uniqueId('ux-ops'), 'zzz'), `Bad Team/Id ${uniqueId('c')}`]) {
      const started = await cli('start', teamId, '--task-queue', env.worker.taskQueue);
      expect(started.code).not.toBe(0);
      expect(started.stderr).toMatch(/error \(InvalidTeamId\): the Team id ".*" is not valid: .*; write 1 to 100 characters/);
      await expectNoWorkflow(teamId);
    }
    const roster = await cli('roster', `bad team ${uniqueId('c')}`);
    expect(roster.code).not.toBe(0);
    expect(roster.stderr).toMatch(/error \(InvalidTeamId\)/);
  });
});

describe('a reserved id held by another Team', () => {
  test("the spawn fails with ReservedIdTaken naming the holder, the other Team's Lead is untouched, and the CLI exits non-zero", async () => {
    const team = await TeamClient.start(env.client, { teamId: uniqueId('ux-ops'), taskQueue: env.worker.taskQueue });
    const holderId = teammateWorkflowId(team.teamId, 'zzz');
    // Another Team, as `start ux-ops/teammate/zzz` made one before the grammar: a teamLead at the reserved id,
    // started raw past the client's check (on a queue no worker polls, so it stays RUNNING, as it did then).
    const holder = await env.client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, {
      workflowId: holderId,
      taskQueue: uniqueId('tq-nobody-polls'),
      args: [{ teamId: holderId }],
      typedSearchAttributes: [
        { key: AGENT_TEAM_ID, value: holderId },
        { key: AGENT_TEAM_ROLE, value: 'lead' },
        { key: AGENT_TEAM_MEMBER, value: 'lead' },
      ],
    });
    try {
      const refused = await rejectionOf(team.spawnTeammate({ name: 'zzz', message: 'hello' }));
      expect(refused.type).toBe('ReservedIdTaken');
      expect(refused.message).toContain(`is held by workflow ${holderId} (type teamLead, run ${holder.firstExecutionRunId})`);
      expect(refused.message).toMatch(/its workflow type is teamLead, not teammate or subagent; it has no parent workflow; its AgentTeamId is /);
      expect(refused.details?.[0]).toMatchObject({
        holder: { workflowId: holderId, workflowType: 'teamLead', runId: holder.firstExecutionRunId, parentWorkflowId: null },
        member: { name: 'zzz', phase: 'failed' },
      });
      const member = (await team.view()).members.find((m) => m.name === 'zzz');
      expect(member).toMatchObject({ phase: 'failed', failure: expect.stringMatching(/^ReservedIdTaken: /) });
      expect((await holder.describe()).status.name).toBe('RUNNING');
      expect(await touches(holderId)).toEqual([]);

      // The CLI: the same refusal, exit status 1 (the name is now taken: a second spawn is MemberNameTaken, also non-zero).
      const other = await TeamClient.start(env.client, { teamId: uniqueId('ux-ops'), taskQueue: env.worker.taskQueue });
      const otherHolder = await env.client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, {
        workflowId: teammateWorkflowId(other.teamId, 'zzz'),
        taskQueue: uniqueId('tq-nobody-polls'),
        args: [{ teamId: teammateWorkflowId(other.teamId, 'zzz') }],
      });
      const spawned = await cli('spawn', other.teamId, 'zzz', 'hello');
      expect(spawned.code).toBe(1);
      expect(spawned.stderr).toMatch(/error \(ReservedIdTaken\): ReservedIdTaken: the reserved id .* is held by workflow/);
      expect((await otherHolder.describe()).status.name).toBe('RUNNING');
      expect(await touches(otherHolder.workflowId)).toEqual([]);
      await other.dispose();
      expect(await touches(otherHolder.workflowId)).toEqual([]);
      await otherHolder.terminate('test: done');

      // Disposal stops every recorded child it owns, and leaves the holder of the failed record's id alone.
      const view = await team.dispose();
      expect(view.members.map((m) => [m.name, m.phase])).toEqual([['zzz', 'stopped']]);
      expect((await holder.describe()).status.name).toBe('RUNNING');
      expect(await touches(holderId)).toEqual([]);
    } finally {
      await holder.terminate('test: done').catch(() => undefined);
    }
  });
});

describe('a Lead started without search attributes', () => {
  test('sets its own AgentTeamId, role and member, so `AgentTeamId = "<id>"` and the panel’s list find it', async () => {
    const teamId = uniqueId('raw-lead');
    const lead = await env.client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, { workflowId: teamId, taskQueue: env.worker.taskQueue, args: [{ teamId }] });
    const listed = async (query: string): Promise<string[]> => {
      const ids: string[] = [];
      for await (const wf of env.client.workflow.list({ query })) ids.push(wf.workflowId);
      return ids;
    };
    // Visibility lags the upsert: poll, bounded.
    expect(
      await eventually(
        () => listed(`AgentTeamId = "${teamId}"`),
        (ids) => ids.includes(teamId),
        30_000,
      ),
    ).toEqual([teamId]);
    expect(
      await eventually(
        () => listed(`AgentTeamRole = "lead" AND AgentTeamId = "${teamId}"`),
        (ids) => ids.includes(teamId),
        30_000,
      ),
    ).toEqual([teamId]);
    const attributes = (await lead.describe()).typedSearchAttributes;
    expect([attributes.get(AGENT_TEAM_ID), attributes.get(AGENT_TEAM_ROLE), attributes.get(AGENT_TEAM_MEMBER)]).toEqual([teamId, 'lead', 'lead']);
    await TeamClient.attach(env.client, teamId).dispose();

    // A Lead the client started has them from its start: it upserts none of them.
    const started = await TeamClient.start(env.client, { teamId: uniqueId('client-lead'), taskQueue: env.worker.taskQueue });
    await started.view();
    const events = (await env.client.workflow.getHandle(started.teamId).fetchHistory()).events ?? [];
    const upserted = events.flatMap((e) => Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}));
    expect(upserted).not.toContain('AgentTeamId');
    expect(upserted).not.toContain('AgentTeamRole');
    await started.dispose();
  });
});
