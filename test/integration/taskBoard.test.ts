import { WorkflowUpdateFailedError } from '@temporalio/client';
import { claimTaskUpdate } from '../../shared/contract';
import { ApplicationFailure } from '@temporalio/common';
import { TeamClient } from '../../client/teamClient';
import { newTeam as newTeamOn, rejectionOf } from '../support/teams';
import { useClientAndWorker } from '../support/harness';
import { connectClient, durableEventsSince, historyLength } from '../support/temporal';
import type { TeamRejection } from '../../shared/contract/rejections';

const env = useClientAndWorker();

const newTeam = (): Promise<TeamClient> => newTeamOn(env.client, env.worker.taskQueue);

test('a task goes through create, claim, complete with one revision per mutation', async () => {
  const team = await newTeam();
  const created = await team.createTask({ subject: 'write the parser', writeScopes: ['src/parser/', './src/parser'] });
  expect(created.task).toMatchObject({ id: 1, revision: 1, status: 'pending', owner: null, ready: true, writeScopes: ['src/parser'], createdBy: 'lead' });
  const claimed = await team.claimTask({ taskId: 1, expectedRevision: 1 });
  expect(claimed.task).toMatchObject({ revision: 2, status: 'in_progress', owner: 'lead', ready: false });
  const done = await team.transitionTask({ taskId: 1, expectedRevision: 2, status: 'completed' });
  expect(done.task).toMatchObject({ revision: 3, status: 'completed' });
  const view = await team.view();
  expect(view.lead).toEqual({ name: 'lead', role: 'lead', phase: 'active', status: null });
  expect(view.tasks.map((t) => [t.id, t.revision, t.status])).toEqual([[1, 3, 'completed']]);
});

test('an empty Team still shows the Lead pseudo-row and no durable state', async () => {
  const team = await newTeam();
  const view = await team.view();
  expect(view).toMatchObject({ lead: { name: 'lead' }, members: [], tasks: [], nextTaskId: 1, admission: 'open' });
});

test('a stale expectedRevision is rejected with TaskRevisionConflict and writes nothing to history', async () => {
  const team = await newTeam();
  await team.createTask({ subject: 'a' });
  await team.editTask({ taskId: 1, expectedRevision: 1, description: 'first edit' });
  const before = await historyLength(env.client, team.teamId);

  const failure = await rejectionOf(team.editTask({ taskId: 1, expectedRevision: 1, description: 'stale edit' }));
  expect(failure.type).toBe('TaskRevisionConflict');
  expect(failure.message).toMatch(/revision 2, not 1/);
  const rejection = failure.details?.[0] as TeamRejection;
  expect(rejection.currentTask).toMatchObject({ id: 1, revision: 2, description: 'first edit' });

  expect(await durableEventsSince(env.client, team.teamId, before)).toEqual([]);
  expect((await team.task(1))?.description).toBe('first edit');
});

test('malformed input, unknown tasks and non-members get typed rejections and change nothing', async () => {
  const team = await newTeam();
  await team.createTask({ subject: 'a' });
  const before = await historyLength(env.client, team.teamId);
  const viewBefore = await team.view();

  expect((await rejectionOf(team.createTask({ subject: '' }))).type).toBe('InvalidTeamCommand');
  expect((await rejectionOf(team.update(claimTaskUpdate, { taskId: 'one', expectedRevision: 1 } as never))).type).toBe('InvalidTeamCommand');
  expect((await rejectionOf(team.claimTask({ taskId: 99, expectedRevision: 1 }))).type).toBe('TaskNotFound');
  expect((await rejectionOf(team.as('mallory').createTask({ subject: 'x' }))).type).toBe('NotATeamMember');
  expect((await rejectionOf(team.createTask({ subject: 'b', writeScopes: ['../outside'] }))).type).toBe('InvalidWriteScope');
  expect((await rejectionOf(team.createTask({ subject: 'b', dependencies: [7] }))).type).toBe('InvalidTaskDependency');
  expect((await rejectionOf(team.as('mallory').dispose())).type).toBe('LeadOnly');

  expect(await durableEventsSince(env.client, team.teamId, before)).toEqual([]);
  // The accepted createTask above is durable, so the list is not empty by construction.
  expect(await durableEventsSince(env.client, team.teamId, 0)).toContain('workflowExecutionUpdateAcceptedEventAttributes');
  expect(await team.view()).toEqual(viewBefore);
});

test('32 clients racing to claim one ready task leave exactly one owner', async () => {
  const team = await newTeam();
  await team.createTask({ subject: 'contended' });
  const outcomes = await Promise.allSettled(Array.from({ length: 32 }, () => team.claimTask({ taskId: 1, expectedRevision: 1 })));
  const winners = outcomes.filter((o) => o.status === 'fulfilled');
  const losers = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
  expect(winners).toHaveLength(1);
  expect(losers).toHaveLength(31);
  for (const loser of losers) {
    expect(loser.reason).toBeInstanceOf(ApplicationFailure);
    expect((loser.reason as ApplicationFailure).type).toBe('TaskRevisionConflict');
    expect(((loser.reason as ApplicationFailure).details?.[0] as TeamRejection).currentTask).toMatchObject({ owner: 'lead', revision: 2 });
  }
  const task = await team.task(1);
  expect(task).toMatchObject({ owner: 'lead', revision: 2, status: 'in_progress' });
});

test('32 raw SDK callers on separate connections (no client-side queueing) still leave exactly one owner', async () => {
  const team = await newTeam();
  await team.createTask({ subject: 'contended at the server' });
  const connections = await Promise.all(Array.from({ length: 4 }, () => connectClient()));
  try {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 32 }, (_, i) =>
        connections[i % 4]!.client.workflow.getHandle(team.teamId).executeUpdate(claimTaskUpdate, {
          args: [{ caller: 'lead', taskId: 1, expectedRevision: 1 }],
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const loser of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
      expect(loser.reason).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(((loser.reason as WorkflowUpdateFailedError).cause as ApplicationFailure).type).toBe('TaskRevisionConflict');
    }
  } finally {
    await Promise.all(connections.map((c) => c.close()));
  }
  expect(await team.task(1)).toMatchObject({ owner: 'lead', revision: 2 });
});

test('dispose is Lead-only, returns the final view and completes the Lead', async () => {
  const team = await newTeam();
  await team.createTask({ subject: 'a' });
  const finalView = await team.dispose();
  expect(finalView.tasks).toHaveLength(1);
  const result = await team.handle().result();
  expect(result.view.tasks[0]).toMatchObject({ id: 1, subject: 'a' });
});
