/**
 * The gRPC errors a Team's callers meet, made to happen on the real dev server, and what the
 * TeamClient does with each (client/callErrors.ts): retried with the same update id within the
 * deadline, or thrown typed.
 *  - FAILED_PRECONDITION, the Lead's workflow task failed: this test takes the Lead's workflow
 *    tasks itself through the WorkflowService API, as a worker would, and has the server fail
 *    them (a completion with a command the server refuses, or an explicit failure), so the
 *    server's own answers are seen, with no worker of the project polling until the test starts one.
 *  - RESOURCE_EXHAUSTED: more Updates in flight than history.maxInFlightUpdates; the consistent
 *    query buffer of a Lead that has not run yet; a request the server can never take.
 * `bare` is a client whose connection has no gRPC retry interceptor, so the server's answers
 * reach the caller as sent and a TeamClient on it retries only by itself.
 */
import { Client, Connection, WorkflowUpdateStage } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { TeamCallTimedOut, TeamClient } from '../../client/teamClient';
import { TeamCallFailed, classifyCallError, grpcDetailTypes, grpcErrorOf, type CallFacts } from '../../client/callErrors';
import { TEAM_SERVER_DYNAMIC_CONFIG } from '../../scripts/serverSettings';
import { createTaskUpdate, getTeamViewQuery, listTasksUpdate, waitForEdgeUpdate, LEAD, type TaskView } from '../../shared/contract';
import { address, connectClient, startWorker, uniqueId } from '../support/temporal';

const enums = temporal.api.enums.v1;
const IDENTITY = 'callErrors-test';
const WORKFLOW_NOT_READY = 'temporal.api.errordetails.v1.WorkflowNotReadyFailure';

let client: Client;
let close: () => Promise<void>;
let bare: Client;
beforeAll(async () => {
  ({ client, close } = await connectClient());
  bare = new Client({ connection: await Connection.connect({ address: address(), interceptors: [] }) });
});
afterAll(async () => {
  await bare.connection.close();
  await close();
});

const started: string[] = [];
afterEach(async () => {
  await Promise.all(
    started.splice(0).map((id) =>
      client.workflow
        .getHandle(id)
        .terminate('callErrors test cleanup')
        .catch(() => undefined),
    ),
  );
});

/** A Team whose Lead sits on a task queue no worker of the project polls (yet). */
async function teamWithoutWorker(): Promise<{ team: TeamClient; taskQueue: string }> {
  const taskQueue = uniqueId('call-errors');
  const team = await TeamClient.start(client, { teamId: uniqueId('call-errors'), taskQueue });
  started.push(team.teamId);
  return { team, taskQueue };
}

/** The Lead's pending workflow task, taken as a worker takes it (the WorkflowService poll). */
async function takeWorkflowTask(taskQueue: string): Promise<temporal.api.workflowservice.v1.PollWorkflowTaskQueueResponse> {
  const task = await client.connection.withDeadline(Date.now() + 20_000, () =>
    client.workflowService.pollWorkflowTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      identity: IDENTITY,
    }),
  );
  if (!task.taskToken?.length) throw new Error(`no workflow task on ${taskQueue}`);
  return task;
}

/** Completes a workflow task with a command the server refuses (an activity without an id), so the server fails the task itself. */
async function completeWithRefusedCommand(task: temporal.api.workflowservice.v1.PollWorkflowTaskQueueResponse, taskQueue: string): Promise<void> {
  const command = {
    commandType: enums.CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
    scheduleActivityTaskCommandAttributes: { taskQueue: { name: taskQueue }, activityType: { name: 'never-scheduled' } },
  };
  await expect(
    client.workflowService.respondWorkflowTaskCompleted({
      namespace: client.options.namespace,
      taskToken: task.taskToken,
      identity: IDENTITY,
      commands: [command],
    }),
  ).rejects.toThrow(/BadScheduleActivityAttributes: ActivityId is not set/);
}

/** Fails a workflow task as a worker whose workflow code threw does. */
async function failWorkflowTask(task: temporal.api.workflowservice.v1.PollWorkflowTaskQueueResponse): Promise<void> {
  await client.workflowService.respondWorkflowTaskFailed({
    namespace: client.options.namespace,
    taskToken: task.taskToken,
    identity: IDENTITY,
    cause: enums.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE,
    failure: { message: 'failed on purpose by callErrors.test.ts' },
  });
}

/** Returns once the server has admitted the Update (it waits for the Lead's pending workflow task). */
async function admitted(workflowId: string, updateId: string): Promise<void> {
  const request = {
    namespace: client.options.namespace,
    updateRef: { workflowExecution: { workflowId }, updateId },
    identity: IDENTITY,
    waitPolicy: { lifecycleStage: enums.UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED },
  };
  for (let tries = 0; ; tries++) {
    try {
      await client.connection.withDeadline(Date.now() + 5_000, () => client.workflowService.pollWorkflowExecutionUpdate(request));
      return;
    } catch (error) {
      if (tries >= 100) throw error;
      await sleep(50); // not known to the server yet
    }
  }
}

/** A raw call by a deadline, so a server that holds it cannot hang the test. */
function within<T>(c: Client, ms: number, call: () => Promise<T>): Promise<T> {
  return c.connection.withDeadline(Date.now() + ms, call);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What the call threw (it must throw). */
async function thrown(call: () => Promise<unknown>): Promise<Error> {
  try {
    await call();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to throw');
}

/** The server's answer as the SDK surfaced it: its class, and the gRPC status inside. */
function serverAnswer(error: Error): { error: string; code: number | undefined; details: string | undefined; detailTypes: string[] } {
  const grpc = grpcErrorOf(error);
  return { error: error.constructor.name, code: grpc?.code, details: grpc?.details, detailTypes: grpc ? grpcDetailTypes(grpc) : [] };
}

function updateCall(teamId: string, operation: string): CallFacts {
  return { teamId, operation, kind: 'update', updateId: 'any' };
}

/** The ids of the createTask Updates the Lead accepted, in history order. */
async function acceptedCreateIds(teamId: string): Promise<string[]> {
  const events = (await client.workflow.getHandle(teamId).fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    return request?.input?.name === createTaskUpdate.name && request.meta?.updateId ? [request.meta.updateId] : [];
  });
}

const subjects = (tasks: TaskView[]): string[] => tasks.map((t) => t.subject);

test('a workflow task the server fails under two Updates: the raw caller gets FAILED_PRECONDITION; the TeamClient retries, applied once', async () => {
  const { team, taskQueue } = await teamWithoutWorker();
  const raw = thrown(() =>
    within(bare, 30_000, () =>
      bare.workflow.getHandle(team.teamId).executeUpdate(createTaskUpdate, { args: [{ caller: LEAD, subject: 'raw' }], updateId: 'raw-1' }),
    ),
  );
  const typed = team.update(createTaskUpdate, { subject: 'typed' }, 'typed-1');
  await admitted(team.teamId, 'raw-1');
  await admitted(team.teamId, 'typed-1');

  const task = await takeWorkflowTask(taskQueue);
  expect((task.messages ?? []).map((m) => m.protocolInstanceId).sort()).toEqual(['raw-1', 'typed-1']);
  await completeWithRefusedCommand(task, taskQueue);

  const error = await raw;
  expect(serverAnswer(error)).toEqual({
    error: 'ServiceError',
    code: 9,
    details: 'Unable to perform workflow execution update due to unexpected workflow task failure.',
    detailTypes: [WORKFLOW_NOT_READY],
  });
  expect(classifyCallError(error, updateCall(team.teamId, 'createTask'))).toMatchObject({ action: 'retry', pace: 'quick' });

  // The TeamClient's Update was in the same task and got the same answer; it is retrying typed-1 while a worker starts.
  const worker = await startWorker(taskQueue);
  try {
    expect((await typed).task).toMatchObject({ id: 1, subject: 'typed' });
    expect(subjects(await team.listTasks())).toEqual(['typed']);
    expect(await acceptedCreateIds(team.teamId)).toEqual(['typed-1']);
    const events = (await client.workflow.getHandle(team.teamId).fetchHistory()).events ?? [];
    const failures = events.flatMap((e) => (e.workflowTaskFailedEventAttributes ? [e.workflowTaskFailedEventAttributes.cause] : []));
    expect(failures).toEqual([enums.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES]);

    // Nothing of raw-1 was applied: sent again with its id, it is applied now, and once.
    const rawRetried = await team.update(createTaskUpdate, { subject: 'raw' }, 'raw-1');
    expect((await team.update(createTaskUpdate, { subject: 'raw' }, 'raw-1')).task.id).toBe(rawRetried.task.id);
    expect(subjects(await team.listTasks())).toEqual(['typed', 'raw']);
    expect(await acceptedCreateIds(team.teamId)).toEqual(['typed-1', 'raw-1']);
  } finally {
    await worker.stop();
  }
});

test('workflow task in failed state: Updates and queries retry until TeamCallTimedOut names the cause; with a worker the Update applies once', async () => {
  const { team, taskQueue } = await teamWithoutWorker();
  for (let i = 0; i < 2; i++) await failWorkflowTask(await takeWorkflowTask(taskQueue));
  expect((await team.health()).workflowTaskAttempt).toBe(3);

  const handle = bare.workflow.getHandle(team.teamId);
  const update = await thrown(() => within(bare, 10_000, () => handle.executeUpdate(createTaskUpdate, { args: [{ caller: LEAD, subject: 'raw' }] })));
  expect(serverAnswer(update)).toEqual({
    error: 'ServiceError',
    code: 9,
    details: 'Unable to perform workflow execution update due to Workflow Task in failed state.',
    detailTypes: [WORKFLOW_NOT_READY],
  });
  const query = await thrown(() => within(bare, 10_000, () => handle.query(getTeamViewQuery)));
  expect(serverAnswer(query)).toEqual({
    error: 'ServiceError',
    code: 9,
    details: 'Unable to query workflow due to Workflow Task in failed state.',
    detailTypes: [WORKFLOW_NOT_READY],
  });

  const short = team.withDeadlines({ updateMs: 3_000, callMs: 3_000 });
  const updateTimedOut = await thrown(() => short.update(createTaskUpdate, { subject: 'after' }, 'wedged-1'));
  expect(updateTimedOut).toBeInstanceOf(TeamCallTimedOut);
  expect(updateTimedOut).toMatchObject({ operation: 'createTask', updateId: 'wedged-1', health: { workflowTaskAttempt: 3 } });
  expect(updateTimedOut.message).toContain(
    "the Lead's workflow task failed, so the server applied nothing of the call " +
      '(FAILED_PRECONDITION: Unable to perform workflow execution update due to Workflow Task in failed state.)',
  );
  expect(updateTimedOut.message).toContain("The Lead's workflow task has failed 2 times");
  expect(updateTimedOut.message).toContain('retry with the same update id (wedged-1)');
  const readTimedOut = await thrown(() => short.view());
  expect(readTimedOut).toBeInstanceOf(TeamCallTimedOut);
  expect(readTimedOut).toMatchObject({ operation: 'getTeamView', updateId: undefined });
  expect(readTimedOut.message).toContain('(FAILED_PRECONDITION: Unable to query workflow due to Workflow Task in failed state.)');

  // The same calls with room to wait: they retry until a worker that can run the Lead takes its task.
  const pendingUpdate = team.update(createTaskUpdate, { subject: 'after' }, 'wedged-1');
  const pendingView = team.view();
  await sleep(1_000);
  const worker = await startWorker(taskQueue);
  try {
    expect((await pendingUpdate).task).toMatchObject({ id: 1, subject: 'after' });
    expect((await pendingView).teamId).toBe(team.teamId);
    expect(subjects(await team.listTasks())).toEqual(['after']);
    expect(await acceptedCreateIds(team.teamId)).toEqual(['wedged-1']);
  } finally {
    await worker.stop();
  }
});

test('more Updates in flight than history.maxInFlightUpdates: RESOURCE_EXHAUSTED; the TeamClient backs off until its deadline, or the waits end', async () => {
  const worker = await startWorker();
  try {
    const team = await TeamClient.start(client, { teamId: uniqueId('in-flight'), taskQueue: worker.taskQueue });
    started.push(team.teamId);
    const limit = TEAM_SERVER_DYNAMIC_CONFIG['history.maxInFlightUpdates']!;
    const waitMs = 8_000;
    // Raw handles (no TeamClient, so no per-process slot limit) hold every in-flight slot the server gives the Lead.
    const waits = await Promise.all(
      Array.from({ length: limit }, () =>
        client.workflow
          .getHandle(team.teamId)
          .startUpdate(waitForEdgeUpdate, { args: [{ caller: LEAD, timeoutMs: waitMs }], waitForStage: WorkflowUpdateStage.ACCEPTED }),
      ),
    );
    const refused = await thrown(() =>
      within(bare, 10_000, () => bare.workflow.getHandle(team.teamId).executeUpdate(listTasksUpdate, { args: [{ caller: LEAD }] })),
    );
    const busy = `limit on number of concurrent in-flight updates has been reached (${limit})`;
    expect(serverAnswer(refused)).toMatchObject({ error: 'ServiceError', code: 8, details: busy });
    expect(classifyCallError(refused, updateCall(team.teamId, 'listTasks'))).toMatchObject({ action: 'retry', pace: 'backoff' });

    // Only the TeamClient's own retries (bare has none): by a short deadline, TeamCallTimedOut says the server was busy.
    const bareTeam = TeamClient.attach(bare, team.teamId);
    const timedOut = await thrown(() => bareTeam.withDeadlines({ updateMs: 2_000 }).update(createTaskUpdate, { subject: 'too soon' }, 'busy-0'));
    expect(timedOut).toBeInstanceOf(TeamCallTimedOut);
    expect(timedOut.message).toContain(`the server is busy (RESOURCE_EXHAUSTED: ${busy})`);

    // With the default deadline it is answered once the waits have ended and freed their slots.
    const created = await bareTeam.update(createTaskUpdate, { subject: 'after the waits' }, 'busy-1');
    expect(created.task.subject).toBe('after the waits');
    // Waits still open when busy-1 was applied wake on its task edge; the others timed out.
    const woke = (await Promise.all(waits.map((w) => w.result()))).map((r) => r.woke);
    expect(woke.filter((w) => w !== 'timeout' && w !== 'edge')).toEqual([]);
    expect(woke).toContain('timeout');
    expect(subjects(await team.listTasks())).toEqual(['after the waits']);
    // The server's order: busy-0 was never admitted; busy-1 was accepted only after a wait had completed.
    expect(await acceptedCreateIds(team.teamId)).toEqual(['busy-1']);
    const events = (await client.workflow.getHandle(team.teamId).fetchHistory()).events ?? [];
    const waitIds = new Set(waits.map((w) => w.updateId));
    const firstWaitDone = events.findIndex((e) => waitIds.has(e.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId ?? ''));
    const busyAccepted = events.findIndex((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId === 'busy-1');
    expect(firstWaitDone).toBeGreaterThan(0);
    expect(busyAccepted).toBeGreaterThan(firstWaitDone);
    await team.dispose();
  } finally {
    await worker.stop();
  }
});

test('the consistent query buffer is full (a Lead that has not run yet): RESOURCE_EXHAUSTED, retried until the deadline or an answer', async () => {
  const { team, taskQueue } = await teamWithoutWorker();
  const handle = client.workflow.getHandle(team.teamId);
  // The server buffers queries of a Lead that has not completed a workflow task, one per workflow (history.MaxBufferedQueryCount).
  const first = within(client, 60_000, () => handle.query(getTeamViewQuery));
  const full = 'consistent query buffer is full, this may be caused by too many queries and workflow not able to process query fast enough';
  let refused: Error | null = null;
  for (let tries = 0; refused === null && tries < 20; tries++) {
    await sleep(100);
    const error = await thrown(() => within(bare, 1_000, () => bare.workflow.getHandle(team.teamId).query(getTeamViewQuery)));
    if (Number(grpcErrorOf(error)?.code) === 8) refused = error; // else it was buffered itself, before the first
  }
  expect(serverAnswer(refused!)).toMatchObject({ error: 'ServiceError', code: 8, details: full });
  expect(classifyCallError(refused, { teamId: team.teamId, operation: 'getTeamView', kind: 'query' })).toMatchObject({ action: 'retry', pace: 'backoff' });

  const bareTeam = TeamClient.attach(bare, team.teamId);
  const timedOut = await thrown(() => bareTeam.view({ deadlineMs: 2_000 }));
  expect(timedOut).toBeInstanceOf(TeamCallTimedOut);
  expect(timedOut.message).toContain(`the server is busy (RESOURCE_EXHAUSTED: ${full})`);

  const pending = bareTeam.view();
  await sleep(500);
  const worker = await startWorker(taskQueue);
  try {
    expect((await pending).teamId).toBe(team.teamId);
    expect((await first).teamId).toBe(team.teamId);
  } finally {
    await worker.stop();
  }
});

test('an Update the server can never take fails at once with TeamCallFailed; an Update to a missing Team with TeamNotFound', async () => {
  const worker = await startWorker();
  try {
    const team = await TeamClient.start(client, { teamId: uniqueId('never-fits'), taskQueue: worker.taskQueue });
    started.push(team.teamId);
    const bareTeam = TeamClient.attach(bare, team.teamId);
    const began = Date.now();
    // Over the server's 4 MiB gRPC message limit.
    const overGrpc = await thrown(() => bareTeam.update(createTaskUpdate, { subject: 'huge', description: 'x'.repeat(5_000_000) }, 'huge-1'));
    expect(overGrpc).toBeInstanceOf(TeamCallFailed);
    expect(overGrpc).toMatchObject({ type: 'TeamCallFailed', codeName: 'RESOURCE_EXHAUSTED', updateId: 'huge-1' });
    expect((overGrpc as TeamCallFailed).serverMessage).toMatch(/^grpc: received message larger than max \(\d+ vs\. 4194304\)$/);
    expect(overGrpc.message).toContain('no retry can fit it: send a smaller one');
    // Alone over the in-flight byte limit (history.maxInFlightUpdatePayloads): it would never be admitted.
    const inFlightBytes = TEAM_SERVER_DYNAMIC_CONFIG['history.maxInFlightUpdatePayloads'];
    const overInFlight = await thrown(() => bareTeam.update(createTaskUpdate, { subject: 'large', description: 'x'.repeat(2_200_000) }, 'large-1'));
    expect(overInFlight).toMatchObject({
      type: 'TeamCallFailed',
      code: 8,
      serverMessage: `limit on total payload size of in-flight updates has been reached (${inFlightBytes} bytes)`,
    });
    // At once: neither waited for the 60 s deadline.
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(await team.listTasks()).toEqual([]);
    await team.dispose();

    const missing = TeamClient.attach(client, uniqueId('no-such-team'));
    const notFound = await thrown(() => missing.listTasks());
    expect(notFound).toBeInstanceOf(ApplicationFailure);
    expect(notFound).toMatchObject({ type: 'TeamNotFound' });
    expect(notFound.message).toContain(`no Team ${missing.teamId}`);
  } finally {
    await worker.stop();
  }
});
