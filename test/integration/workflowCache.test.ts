/**
 * A worker whose workflow cache holds three workflows (AGENT_TEAMS_WORKFLOW_CACHE=3) serves a Team of
 * six teammates on the real server: its sticky cache never holds more than three, so members are
 * evicted and replayed from history on their next task, and every message is still delivered and
 * taken once. A worker with a malformed size refuses to start, saying what to write.
 */
import { TeamClient } from '../../client/teamClient';
import { freePort } from '../../scripts/devServer';
import { useClientAndWorkerProcesses } from '../support/harness';
import { countOn, scrape } from '../support/prometheus';
import { eventually, teammateState } from '../support/teams';
import { uniqueId } from '../support/temporal';
import { spawnWorkerProcess } from '../support/workerProcess';

const env = useClientAndWorkerProcesses();
const CACHE = 3;
const NAMES = ['m-1', 'm-2', 'm-3', 'm-4', 'm-5', 'm-6'];

test('a cache of three serves six teammates: never more than three cached, every message taken once', async () => {
  const taskQueue = uniqueId('tq-cache');
  const port = await freePort();
  await env.spawnWorker(taskQueue, { env: { AGENT_TEAMS_WORKFLOW_CACHE: String(CACHE), AGENT_TEAMS_METRICS_BIND: `127.0.0.1:${port}` } });
  const team = await TeamClient.start(env.client, { teamId: uniqueId('cache'), taskQueue });
  let largest = 0;
  const sample = async (): Promise<void> => {
    largest = Math.max(largest, countOn(await scrape(port), 'temporal_sticky_cache_size', { task_queue: taskQueue }));
  };
  for (const name of NAMES) {
    await team.spawnTeammate({ name, message: 'ready' });
    await sample();
  }
  // Two rounds of mail to every member: most of them were evicted since their last task.
  for (const round of [1, 2]) {
    for (const name of NAMES) {
      await team.sendMessage(name, `round ${round}`);
      await sample();
    }
  }
  for (const name of NAMES) {
    const state = await eventually(
      () => teammateState(team, name),
      (s) => s.consumed === 3 && s.status === 'idle',
      60_000,
    );
    expect(state.seenMessageIds).toHaveLength(3);
  }
  await sample();
  expect(largest).toBeGreaterThan(0);
  expect(largest).toBeLessThanOrEqual(CACHE);
  await team.dispose();
}, 120_000);

test('a malformed cache size stops the worker before it polls, with what to write', async () => {
  const refused = await spawnWorkerProcess(uniqueId('tq-cache-bad'), { env: { AGENT_TEAMS_WORKFLOW_CACHE: 'lots' } }).then(
    () => null,
    (error: unknown) => String(error),
  );
  expect(refused).toMatch(/AGENT_TEAMS_WORKFLOW_CACHE must be a whole number of workflows from 2 to 1000000, got "lots"/);
});
