/**
 * Continue-as-new with teammates: children outlive every Lead run (sends, interrupts and disposal
 * still reach them), and a teammate rolls over on its own without losing an inbox item.
 */
import { TeamClient } from '../../client/teamClient';
import { useClientAndWorker } from '../support/harness';
import { uniqueId } from '../support/temporal';
import { eventually, newTeam, runningWorkflowsOfTeam, teammateState } from '../support/teams';

const env = useClientAndWorker();

test('teammates survive the Lead continuing as new; sends and disposal still reach them', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  await team.spawnTeammate({ name: 'survivor', message: 'start' });
  const before = await team.runInfo();
  for (let batch = 0; batch < 11; batch++) {
    await Promise.all(Array.from({ length: 100 }, (_, i) => team.createTask({ subject: `filler ${batch}-${i}` })));
  }
  const after = await team.runInfo();
  expect(after.continuedRuns).toBeGreaterThan(before.continuedRuns);
  expect(after.runId).not.toBe(before.runId);

  const acceptance = await team.sendMessage('survivor', 'after the roll-over', 'after-can');
  expect(acceptance.targetPhase).toBe('active');
  await eventually(
    () => teammateState(team, 'survivor'),
    (s) => s.conversation.some((e) => e.messageId === 'after-can'),
  );
  expect((await team.view()).members.map((m) => [m.name, m.phase])).toEqual([['survivor', 'active']]);

  await team.dispose();
  expect(await runningWorkflowsOfTeam(env.client, team.teamId)).toEqual([]);
});

test('a teammate continues as new without losing or repeating an inbox item', async () => {
  const team = await TeamClient.start(env.client, { teamId: uniqueId('team-mate-can'), taskQueue: env.worker.taskQueue, teammateMaxTurnsPerRun: 25 });
  await team.spawnTeammate({ name: 'busy', message: 'start' });
  // One at a time, so most messages get a turn of their own, racing the teammate's roll-overs.
  const SENDS = 200;
  for (let n = 0; n < SENDS; n++) await team.sendMessage('busy', { n }, `m-${n}`);
  const state = await eventually(
    () => teammateState(team, 'busy'),
    (s) => s.consumed === SENDS + 1 && s.status === 'idle',
    180_000,
  );
  expect(state.continuedRuns).toBeGreaterThanOrEqual(2);
  expect(state.received).toBe(SENDS + 1);
  const delivered = state.conversation.filter((e) => e.role === 'user' && e.messageId?.startsWith('m-')).map((e) => e.messageId);
  expect(new Set(delivered).size).toBe(SENDS);
  expect(delivered).toHaveLength(SENDS);
  await team.dispose();
});
