/**
 * A Lead driven through more than 5,000 mutations continues-as-new (several times) and ends with
 * exactly the state a sequential model predicts; Update ids applied before a run boundary are
 * answered from memory after it, never applied twice.
 */
import { randomUUID } from 'node:crypto';
import { TeamClient } from '../../client/teamClient';
import { editTaskUpdate } from '../../shared/contract';
import { useClientAndWorker } from '../support/harness';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorker();

const TASKS = 1_040;
const LANES = 8;

test('more than 5,000 mutations roll the Lead over and end in the state a sequential model predicts', async () => {
  const team = await TeamClient.start(env.client, { teamId: uniqueId('team-can'), taskQueue: env.worker.taskQueue });
  // Each lane owns a disjoint set of tasks and runs its mutations in order; lanes interleave freely.
  // Model: every task ends completed at revision 5, owned by lead, with its last description.
  let mutations = 0;
  const lane = async (laneIndex: number): Promise<void> => {
    for (let n = laneIndex; n < TASKS; n += LANES) {
      const { task } = await team.createTask({ subject: `task ${n}`, writeScopes: [`lane-${laneIndex}/task-${n}`] });
      await team.editTask({ taskId: task.id, expectedRevision: 1, description: `first ${n}` });
      await team.editTask({ taskId: task.id, expectedRevision: 2, description: `second ${n}` });
      await team.claimTask({ taskId: task.id, expectedRevision: 3 });
      await team.transitionTask({ taskId: task.id, expectedRevision: 4, status: 'completed' });
      mutations += 5;
    }
  };
  await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
  expect(mutations).toBeGreaterThan(5_000);

  const view = await team.view();
  expect(view.nextTaskId).toBe(TASKS + 1);
  expect(view.tasks).toHaveLength(TASKS);
  const ids = view.tasks.map((t) => t.id);
  expect(new Set(ids).size).toBe(TASKS);
  expect(Math.min(...ids)).toBe(1);
  expect(Math.max(...ids)).toBe(TASKS);
  for (const task of view.tasks) {
    const n = Number(task.subject.replace('task ', ''));
    expect(task).toMatchObject({ revision: 5, status: 'completed', owner: 'lead', description: `second ${n}`, deleted: false });
  }

  const info = await team.runInfo();
  expect(info.continuedRuns).toBeGreaterThanOrEqual(3);
  const runs = await collect(env.client.workflow.list({ query: `WorkflowId = "${team.teamId}"` }));
  expect(runs.filter((r) => r.status.name === 'CONTINUED_AS_NEW').length).toBe(info.continuedRuns);
});

test('an Update retried after the run that applied it continued as new is answered, not re-applied', async () => {
  const team = await TeamClient.start(env.client, { teamId: uniqueId('team-dedupe'), taskQueue: env.worker.taskQueue });
  const { task } = await team.createTask({ subject: 'edited many times' });
  const sent: { updateId: string; revision: number }[] = [];
  let revision = task.revision;
  let runsBefore = (await team.runInfo()).continuedRuns;
  // Edit until the Lead has rolled over, then keep going a little so the boundary is inside the window.
  for (let i = 0; i < 3_000; i++) {
    const updateId = randomUUID();
    const result = await team.update(editTaskUpdate, { taskId: task.id, expectedRevision: revision, description: `edit ${i}` }, updateId);
    revision = result.task.revision;
    sent.push({ updateId, revision });
    if (i % 25 === 24) {
      const runs = (await team.runInfo()).continuedRuns;
      if (runs > runsBefore) break;
      runsBefore = runs;
    }
  }
  expect((await team.runInfo()).continuedRuns).toBeGreaterThan(0);
  // The last 25 Updates straddle the boundary: some were applied by the previous run.
  for (const { updateId, revision: appliedRevision } of sent.slice(-25)) {
    const again = await team.update(editTaskUpdate, { taskId: task.id, expectedRevision: appliedRevision - 1, description: 'replayed' }, updateId);
    expect(again.task.revision).toBe(appliedRevision);
  }
  const current = await team.task(task.id);
  expect(current?.revision).toBe(revision);
  expect(current?.description).not.toBe('replayed');
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}
