/**
 * Crash drill: the worker process is killed with SIGKILL in the middle of a sequence of task
 * mutations and a new worker process replaces it. The board ends exactly as an uninterrupted run.
 */
import { TeamClient } from '../../client/teamClient';
import { useClientAndWorkerProcesses } from '../support/harness';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorkerProcesses();

const TASKS = 30;

test('a worker killed with SIGKILL mid-sequence and replaced leaves the board intact', async () => {
  const taskQueue = uniqueId('tq-crash');
  const first = await env.spawnWorker(taskQueue);
  const team = await TeamClient.start(env.client, { teamId: uniqueId('team-crash'), taskQueue });

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
  await first.kill();
  const killedAt = completed;
  await env.spawnWorker(taskQueue);
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
