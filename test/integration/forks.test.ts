/**
 * Forks of a root, end to end on the real server, from the client (`TeamClient.forkRoot`) and from
 * the CLI (`agent-teams fork`): the forked Lead is a new root that keeps the source Lead's
 * conversation and none of the ancestor's Team, and the identity block the runtime gives its model
 * names its own role and Team. The worker runs the scripted model and records every request, so the
 * tests read exactly what the model was given.
 */
import type { Client } from '@temporalio/client';
import { answer, scriptText, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import type { LeadAgentView } from '../../shared/contract';
import type { ModelRequest } from '../../shared/contract/model';
import { cli } from '../support/cli';
import { recordingScriptedModel, systemText } from '../support/recordingModel';
import { connectClient, startWorker, uniqueId, type RunningWorker } from '../support/temporal';
import { eventually, runningWorkflowsOfTeam, toolResult } from '../support/teams';

const model = recordingScriptedModel();
let client: Client;
let closeClient: () => Promise<void>;
let worker: RunningWorker;

beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
  worker = await startWorker(uniqueId('tq-forks'), { modelProvider: model.provider });
});

afterAll(async () => {
  await worker?.stop();
  await closeClient?.();
});

const leadIdentity = (teamId: string): string => `You are the Lead ("lead") of Team ${teamId}.`;
/** The requests a Team's Lead made: its system message carries its identity. */
const leadRequests = (teamId: string): ModelRequest[] => model.requests.filter((r) => systemText(r).includes(leadIdentity(teamId)));
const calledTools = (request: ModelRequest): string[] =>
  request.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.name) : []));

/** A root whose Lead spawned a teammate (a record of its Team) and answered. */
async function answeredAncestor(): Promise<{ ancestor: TeamClient; before: LeadAgentView }> {
  const ancestor = await TeamClient.start(client, {
    teamId: uniqueId('ancestor'),
    taskQueue: worker.taskQueue,
    agent: { profile: 'team', prompt: scriptText(tool('spawn_teammate', { name: 'alice', message: 'hello' }), answer('ancestor done')) },
  });
  const before = await ancestor.waitForAnswer({ timeoutMs: 120_000 });
  expect(before.finalAnswer).toBe('ancestor done');
  expect((await ancestor.view()).members.map((m) => m.name)).toEqual(['alice']);
  // The runtime gives each member its own identity block: the teammate's names its role and Team too.
  await eventually(
    () => Promise.resolve(model.requests.filter((r) => systemText(r).includes(`You are teammate "alice" of Team ${ancestor.teamId}.`)).length),
    (n) => n > 0,
  );
  return { ancestor, before };
}

/** What every fork must show, however it was started. */
async function expectNewRootWithConversationOnly(ancestor: TeamClient, before: LeadAgentView, forkId: string, forked: LeadAgentView): Promise<void> {
  // The conversation is kept as it was, ancestor records included (the prompt leaves them out).
  expect(forked.conversation.slice(0, before.conversation.length)).toEqual(before.conversation);
  expect(forked.profile).toBe('team'); // inherited from the source Lead
  // A new root: no parent, its own Team (no members), nothing of the ancestor's running under it.
  const fork = TeamClient.attach(client, forkId);
  const description = await fork.handle().describe();
  expect(description.parentExecution).toBeUndefined();
  expect((await fork.view()).members).toEqual([]);
  expect(await runningWorkflowsOfTeam(client, forkId)).toEqual([forkId]);
  // The source is untouched.
  expect((await ancestor.agentState()).conversation).toEqual(before.conversation);
  expect((await ancestor.view()).members.map((m) => m.name)).toEqual(['alice']);

  // What the fork's model was given: its own identity (role and Team), never the ancestor's; the
  // forked conversation without the ancestor Team's records (the spawn_teammate call and its result).
  expect(leadRequests(ancestor.teamId).length).toBeGreaterThan(0);
  const requests = leadRequests(forkId);
  expect(requests.length).toBeGreaterThan(0);
  for (const request of requests) {
    expect(systemText(request)).not.toContain(ancestor.teamId);
    expect(systemText(request)).not.toContain('You are teammate');
    expect(calledTools(request)).not.toContain('spawn_teammate');
    expect(request.messages.some((m) => m.role === 'assistant' && m.content === 'ancestor done')).toBe(true);
  }
}

test(
  'an ordinary fork of a root is a new root: forkRoot from the client keeps the conversation, not the ancestor Team; ' +
    'the identity block names its own role and Team',
  async () => {
    const { ancestor, before } = await answeredAncestor();
    const forkId = uniqueId('fork');
    const fork = await TeamClient.forkRoot(client, {
      sourceTeamId: ancestor.teamId,
      teamId: forkId,
      taskQueue: worker.taskQueue,
      agent: { prompt: scriptText(tool('read_roster'), answer('fork done')) },
    });
    const forked = await fork.waitForAnswer({ timeoutMs: 120_000 });
    expect(forked.finalAnswer).toBe('fork done');
    await expectNewRootWithConversationOnly(ancestor, before, forkId, forked);
    // The fork's own roster tool shows its own Team: the Lead pseudo-row and no ancestor member.
    const roster = toolResult(forked.conversation.filter((e) => e.role === 'tool').at(-1)!);
    expect(roster).toMatchObject({ lead: { name: 'lead', role: 'lead' }, members: [], admission: 'open' });

    // Without a new prompt the fork has the conversation only and takes the operator's next prompt.
    const quietId = uniqueId('fork-quiet');
    const quiet = await TeamClient.forkRoot(client, { sourceTeamId: ancestor.teamId, teamId: quietId, taskQueue: worker.taskQueue });
    expect((await quiet.agentState()).enabled).toBe(false);
    expect((await quiet.view()).members).toEqual([]);
    await Promise.all([ancestor.dispose(), fork.dispose(), quiet.dispose()]);
  },
);

test(
  'an ordinary fork of a root is a new root: the CLI fork command keeps the conversation, not the ancestor Team; ' +
    'the identity block names its own role and Team',
  async () => {
    const { ancestor, before } = await answeredAncestor();
    const forkId = uniqueId('cli-fork');
    const forked = await cli(
      'fork',
      ancestor.teamId,
      forkId,
      '--task-queue',
      worker.taskQueue,
      '--prompt',
      scriptText(answer('cli fork done')),
      '--wait',
      '--timeout',
      '120',
    );
    expect(forked.code).toBe(0);
    expect(forked.stdout).toMatch(`forked ${ancestor.teamId} into new Team ${forkId}`);
    expect(forked.stdout).toMatch(/cli fork done/);
    const fork = TeamClient.attach(client, forkId);
    const view = await fork.agentState();
    expect(view.finalAnswer).toBe('cli fork done');
    await expectNewRootWithConversationOnly(ancestor, before, forkId, view);

    // Forking onto a running root, or from one that does not exist, is refused with a typed error.
    const again = await cli('fork', ancestor.teamId, forkId, '--task-queue', worker.taskQueue, '--prompt', 'again');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/TeamAlreadyStarted/);
    const missing = await cli('fork', uniqueId('no-such-team'), uniqueId('fork'), '--task-queue', worker.taskQueue);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/TeamNotFound/);
    await Promise.all([ancestor.dispose(), fork.dispose()]);
  },
);
