/**
 * Crash drill: the worker process is killed with SIGKILL in the middle of a sequence of task
 * mutations and a new worker process replaces it. The board ends exactly as an uninterrupted run.
 */
import type { Client } from '@temporalio/client';
import { TeamClient } from '../../client/teamClient';
import { connectClient, uniqueId } from '../support/temporal';
import { spawnWorkerProcess, type WorkerProcess } from '../support/workerProcess';

let client: Client;
let closeClient: () => Promise<void>;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await closeClient();
});

const TASKS = 30;

test('a worker killed with SIGKILL mid-sequence and replaced leaves the board intact', async () => {
  const taskQueue = uniqueId('tq-crash');
  workers.push(await spawnWorkerProcess(taskQueue));
  const team = await TeamClient.start(client, { teamId: uniqueId('team-crash'), taskQueue });

  let completed = 0;
  const sequence = (async () => {
    for (let n = 1; n <= TASKS; n++) {
      const { task } = await team.createTask({ subject: `step ${n}`, dependencies: n > 1 ? [n - 1] : [] });
      await team.claimTask({ taskId: task.id, expectedRevision: 1 });
      await team.transitionTask({ taskId: task.id, expectedRevision: 2, status: 'completed' });
      completed = n;
    }
  })();

  while (completed < TASKS / 3) await new Promise((r) => setTimeout(r, 20));
  await workers[0]!.kill();
  const killedAt = completed;
  workers.push(await spawnWorkerProcess(taskQueue));
  await sequence;

  expect(killedAt).toBeLessThan(TASKS);
  const view = await team.view();
  expect(view.tasks).toHaveLength(TASKS);
  view.tasks.forEach((task, index) => {
    expect(task).toMatchObject({
      id: index + 1,
      subject: `step ${index + 1}`,
      revision: 3,
      status: 'completed',
      owner: 'lead',
      dependencies: index === 0 ? [] : [index],
    });
  });
  expect(view.nextTaskId).toBe(TASKS + 1);
});
