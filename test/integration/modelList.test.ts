/**
 * Issue 26, "the deployment's model list recorded in each Team", on the real server. A Team's start
 * input records the models it may use and its default; a model outside the list is refused at the
 * start (by the typed client before anything starts, and by the Lead itself from a raw start), at a
 * spawn (operator's Update and the Lead agent's spawn_teammate) and at a subagent, each with a typed
 * ModelNotAllowed naming the allowed ones and the Team unchanged. A member naming no model gets the
 * Team's default. 0 failed workflow tasks and 0 terminations throughout.
 */
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { answer, scriptText, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import { chainReport, teamWorkflowIds } from '../support/adversarial';
import { cliWith } from '../support/cli';
import { useClientAndWorker } from '../support/harness';
import { eventually, rejectionOf, startAgentTeam, toolResult } from '../support/teams';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorker();
const models: defs.TeamModels = { allowed: ['scripted:fast', 'scripted:deep'], default: 'scripted:fast' };
const NAMES_THE_LIST =
  /"openai:gpt-5\.1" is not on this Team's list; use one of "scripted:fast", "scripted:deep", or name none for the default "scripted:fast"/;

async function expectClean(teamId: string): Promise<void> {
  for (const id of await teamWorkflowIds(env.client, teamId)) {
    const chain = await chainReport(env.client, id);
    expect([id, chain.failedWorkflowTasks, chain.terminatedRuns]).toEqual([id, 0, 0]);
  }
}

test('a start naming a model outside the list is refused by the client before anything starts, and by the Lead from a raw start', async () => {
  const teamId = uniqueId('models-start');
  const refused = await rejectionOf(
    TeamClient.start(env.client, { teamId, taskQueue: env.worker.taskQueue, models, agent: { prompt: 'plan', model: 'openai:gpt-5.1' } }),
  );
  expect(refused.type).toBe(defs.MODEL_NOT_ALLOWED);
  expect(refused.message).toMatch(NAMES_THE_LIST);
  await expect(env.client.workflow.getHandle(teamId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

  // A raw start skips the client's check; the Lead fails its run at once, typed, without a failed workflow task.
  const raw = uniqueId('models-raw');
  const handle = await env.client.workflow.start(defs.TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: raw,
    taskQueue: env.worker.taskQueue,
    args: [{ teamId: raw, models, agent: { prompt: 'plan', model: 'openai:gpt-5.1' } }],
  });
  const failed = await handle.result().then(
    () => null,
    (error: unknown) => error,
  );
  expect(failed).toBeInstanceOf(WorkflowFailedError);
  const cause = (failed as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect([(cause as ApplicationFailure).type, (cause as ApplicationFailure).nonRetryable]).toEqual([defs.MODEL_NOT_ALLOWED, true]);
  expect(cause?.message).toMatch(NAMES_THE_LIST);
  expect((await chainReport(env.client, raw)).failedWorkflowTasks).toBe(0);

  // A list whose default is not on it is an invalid input, refused the same two ways.
  const badList = { allowed: ['scripted:fast'], default: 'scripted:deep' };
  const invalid = await env.client.workflow
    .execute(defs.TEAM_LEAD_WORKFLOW_TYPE, { workflowId: uniqueId('models-bad'), taskQueue: env.worker.taskQueue, args: [{ teamId: 'x', models: badList }] })
    .catch((error: unknown) => (error as WorkflowFailedError).cause as ApplicationFailure);
  expect(invalid).toMatchObject({ type: 'InvalidWorkflowInput' });
}, 60_000);

test("a spawn outside the Team's list is refused, typed, with the roster unchanged; a spawn naming none gets the Team's default", async () => {
  const team = await TeamClient.start(env.client, { teamId: uniqueId('models-spawn'), taskQueue: env.worker.taskQueue, models });
  const before = await team.view();
  const refused = await rejectionOf(team.spawnTeammate({ name: 'pricey', message: 'hi', model: 'openai:gpt-5.1' }));
  expect(refused.type).toBe(defs.MODEL_NOT_ALLOWED);
  expect(refused.message).toMatch(NAMES_THE_LIST);
  expect(await team.view()).toEqual(before);

  await team.spawnTeammate({ name: 'plain', message: 'hi' });
  await team.spawnTeammate({ name: 'deep', message: 'hi', model: 'scripted:deep' });
  // The name the refused spawn asked for was never reserved: it can still be taken.
  await team.spawnTeammate({ name: 'pricey', message: 'hi', model: 'scripted:fast' });
  const view = await team.view();
  expect(view.members.map((m) => [m.name, m.phase, m.model])).toEqual([
    ['plain', 'active', 'scripted:fast'],
    ['deep', 'active', 'scripted:deep'],
    ['pricey', 'active', 'scripted:fast'],
  ]);
  await team.dispose();
  await expectClean(team.teamId);
}, 60_000);

test("the Lead agent's spawn_teammate and subagent outside the list get ModelNotAllowed as their tool results; the Lead runs the default", async () => {
  const finished = (team: TeamClient): Promise<defs.LeadAgentView> =>
    eventually(
      () => team.handle().query(defs.getAgentStateQuery),
      (v) => v.status === 'answered',
      60_000,
    );
  const toolResults = (lead: defs.LeadAgentView): unknown[] => lead.conversation.filter((e) => e.role === 'tool').map((e) => [e.toolName, toolResult(e)]);
  // The team profile has spawn_teammate; the default profile has the subagent tools.
  const [withTeammates, withSubagents] = await Promise.all([
    startAgentTeam(
      env.client,
      env.worker.taskQueue,
      {
        prompt: scriptText(
          tool('spawn_teammate', { name: 'pricey', message: 'hi', model: 'openai:gpt-5.1' }),
          tool('spawn_teammate', { name: 'cheap', message: 'hi' }),
          answer('kept to the list'),
        ),
        profile: 'team',
      },
      { models },
    ),
    startAgentTeam(
      env.client,
      env.worker.taskQueue,
      { prompt: scriptText(tool('subagent', { prompt: scriptText(answer('never')), model: 'anthropic:claude-opus-4-1' }), answer('kept to the list')) },
      { models },
    ),
  ]);
  expect(toolResults(await finished(withTeammates))).toEqual([
    ['spawn_teammate', expect.objectContaining({ error: defs.MODEL_NOT_ALLOWED, message: expect.stringMatching(NAMES_THE_LIST) })],
    ['spawn_teammate', expect.objectContaining({ name: 'cheap', phase: 'active' })],
  ]);
  expect((await withTeammates.view()).members.map((m) => [m.name, m.model])).toEqual([['cheap', 'scripted:fast']]);
  const subagentLead = await finished(withSubagents);
  expect(toolResults(subagentLead)).toEqual([
    [
      'subagent',
      expect.objectContaining({ error: defs.MODEL_NOT_ALLOWED, message: expect.stringContaining('"anthropic:claude-opus-4-1" is not on this Team\'s list') }),
    ],
  ]);
  expect(subagentLead.subagents).toEqual([]);

  // The Leads' own model calls name the Team's default: what the histories recorded as their input.
  for (const team of [withTeammates, withSubagents]) {
    const history = await team.handle().fetchHistory();
    const modelCalls = (history.events ?? []).flatMap((e) => {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name !== 'callModel') return [];
      return [defaultPayloadConverter.fromPayload<defs.CallModelInput>(scheduled.input!.payloads![0]!).model];
    });
    expect(modelCalls.length).toBeGreaterThan(0);
    expect(new Set(modelCalls)).toEqual(new Set(['scripted:fast']));
    await team.dispose();
    await expectClean(team.teamId);
  }
}, 90_000);

test('the CLI records AGENT_TEAMS_MODELS in the Teams it starts, refuses a --model outside it, and names a malformed list', async () => {
  const list = { AGENT_TEAMS_MODELS: 'scripted:fast, scripted:deep' };
  const teamId = uniqueId('models-cli');
  const prompt = scriptText(answer('done'));
  const refused = await cliWith(
    { env: list, killAfterMs: 60_000 },
    'start',
    teamId,
    '--task-queue',
    env.worker.taskQueue,
    '--prompt',
    prompt,
    '--model',
    'openai:gpt-5.1',
  );
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/ModelNotAllowed/);
  expect(refused.stderr).toMatch(/"openai:gpt-5\.1" is not on this Team's list; use one of "scripted:fast", "scripted:deep"/);
  await expect(env.client.workflow.getHandle(teamId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

  const malformed = await cliWith(
    { env: { AGENT_TEAMS_MODELS: `scripted:${'x'.repeat(300)}` }, killAfterMs: 60_000 },
    'start',
    teamId,
    '--task-queue',
    env.worker.taskQueue,
  );
  expect(malformed.code).not.toBe(0);
  expect(malformed.stderr).toMatch(/InvalidModelList.*AGENT_TEAMS_MODELS is not a usable list/s);

  const started = await cliWith({ env: list, killAfterMs: 60_000 }, 'start', teamId, '--task-queue', env.worker.taskQueue, '--prompt', prompt);
  expect(started).toMatchObject({ code: 0, stdout: expect.stringContaining('model scripted:fast') });
  const history = await env.client.workflow.getHandle(teamId).fetchHistory();
  const input = defaultPayloadConverter.fromPayload<defs.TeamLeadInput>(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!);
  expect(input.models).toEqual({ allowed: ['scripted:fast', 'scripted:deep'], default: 'scripted:fast' });
  const team = TeamClient.attach(env.client, teamId);
  await team.dispose();
  await expectClean(teamId);
}, 120_000);
