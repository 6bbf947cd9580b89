/**
 * Text that is not well-formed UTF-16 (a lone surrogate, which JSON carries as `"\ud800"`) reaches
 * the workflow from any caller. When a rejection's message echoes it, the SDK writes the failure
 * into its completion as protobuf text, which must be UTF-8: core refused such a completion and the
 * whole worker shut down ("Cannot decode Completion from buffer: InvalidString"). The worker's
 * failure converter (worker/failureConverter.ts) makes every string of every failure well-formed.
 *
 * The attacker here sends lone surrogates in the fields a rejection names, and a hostile workflow
 * input; the worker must keep running, every call is answered typed, and the Team has 0 failed
 * workflow tasks. These rejections are longer than the 40 UTF-16 units under which protobufjs
 * writes text by hand, so they pass without the converter too; test/unit/failureConverter.test.ts
 * shows the encoding the converter fixes.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TeamClient } from '../../client/teamClient';
import { healthProblems, rawUpdate, teamHealth } from '../support/adversarial';
import { connectClient, startWorker, uniqueId } from '../support/temporal';
import type { Client } from '@temporalio/client';

const env = {} as { client: Client; close: () => Promise<void>; worker: Awaited<ReturnType<typeof startWorker>> };
beforeAll(async () => {
  const { client, close } = await connectClient();
  env.client = client;
  env.close = close;
  env.worker = await startWorker();
});
afterAll(async () => {
  await env.worker.stop();
  await env.close();
});

const LONE_HIGH = '\ud800';
const LONE_LOW = '\udc00';

test('lone surrogates in the fields a rejection names: every Update answered typed, the worker keeps running, 0 failed tasks', async () => {
  const team = await TeamClient.start(env.client, { teamId: uniqueId('well-formed'), taskQueue: env.worker.taskQueue });
  const { task } = await team.createTask({ subject: 'target' });
  const cases: { name: string; argument: unknown }[] = [
    { name: 'claimTask', argument: { caller: `mate${LONE_HIGH}`, taskId: task.id, expectedRevision: task.revision } },
    { name: 'claimTask', argument: { caller: 'lead', taskId: task.id, expectedRevision: task.revision, [`extra${LONE_LOW}`]: 1 } },
    { name: 'sendMessage', argument: { caller: 'lead', to: `ghost${LONE_HIGH}`, content: 'hi' } },
    { name: 'spawnTeammate', argument: { caller: 'lead', name: `${LONE_LOW}bad`, message: 'hi' } },
    { name: 'readTask', argument: { caller: LONE_HIGH, taskId: task.id } },
    { name: 'createTask', argument: `${LONE_HIGH}${LONE_LOW.repeat(3)}` },
  ];
  for (const { name, argument } of cases) {
    const outcome = await rawUpdate(env.client, team.teamId, name, [argument], { timeoutMs: 20_000 });
    expect({ name, kind: outcome.kind, type: outcome.kind === 'rejected' ? outcome.type : undefined }).toEqual({
      name,
      kind: 'rejected',
      type: expect.stringMatching(/^[A-Z][A-Za-z]+$/),
    });
    expect(env.worker.worker.getState()).toBe('RUNNING');
  }
  // The rejection reaches the caller with the surrogate replaced (U+FFFD), the rest of the text kept.
  const named = await rawUpdate(env.client, team.teamId, 'sendMessage', [{ caller: 'lead', to: `ghost${LONE_HIGH}`, content: 'hi' }]);
  expect(named.kind === 'rejected' && named.message.includes('ghost\ufffd')).toBe(true);

  // Still serving, and nothing changed on the board.
  const after = await team.view();
  expect(after.tasks).toEqual([expect.objectContaining({ id: task.id, revision: task.revision, status: 'pending' })]);
  expect(healthProblems(await teamHealth(env.client, team.teamId))).toEqual([]);
  await team.dispose();
});

test('a workflow input with a lone surrogate ends that run typed, and the worker keeps running', async () => {
  const teamId = uniqueId('well-formed-input');
  const handle = await env.client.workflow.start('teamLead', {
    taskQueue: env.worker.taskQueue,
    workflowId: teamId,
    args: [{ teamId, [`bogus${LONE_HIGH}`]: LONE_LOW, agent: { prompt: 42 } }],
  });
  const failure = await handle.result().then(
    () => null,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  const cause = (failure as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toMatch(/^[A-Z][A-Za-z]+$/);
  expect(env.worker.worker.getState()).toBe('RUNNING');
  expect(healthProblems(await teamHealth(env.client, teamId))).toEqual([]);
});
