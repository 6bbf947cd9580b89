/**
 * Server restart drill: a Team on its own dev server with a persistent SQLite database; the server
 * process is killed and started again on the same database and port. The worker reconnects by
 * itself and the Team carries on with its roster, board and inboxes intact.
 */
import * as path from 'node:path';
import { TeamClient } from '../../client/teamClient';
import { freePort, startDevServer, type DevServer } from '../../scripts/devServer';
import { getTeammateStateQuery } from '../../shared/contract';
import { teammateWorkflowId } from '../../shared/team';
import { eventually, runningWorkflowsOfTeam } from '../support/teams';
import { scratchDir, workerAndClientOn } from '../support/temporal';

test('the Team survives the server being killed and restarted on its persistent database', async () => {
  const dbFilename = path.join(scratchDir('restart-'), 'temporal.sqlite');
  const port = await freePort();
  let server: DevServer = await startDevServer({ dbFilename, port, uiPort: false });
  const { client, close } = await workerAndClientOn(server.address, 'restart');
  try {
    const team = await TeamClient.start(client, { teamId: 'restart-team', taskQueue: 'restart' });
    await team.spawnTeammate({ name: 'keeper', message: 'start' });
    const { task } = await team.createTask({ subject: 'survives the restart' });
    await team.claimTask({ taskId: task.id, expectedRevision: task.revision });
    await team.sendMessage('keeper', 'before the restart', 'before');
    const keeper = client.workflow.getHandle(teammateWorkflowId(team.teamId, 'keeper'));
    await eventually(
      () => keeper.query(getTeammateStateQuery),
      (s) => s.consumed === 2 && s.status === 'idle',
    );

    server.process.kill('SIGKILL');
    await new Promise((resolve) => server.process.once('exit', resolve));
    server = await startDevServer({ dbFilename, port, uiPort: false });

    const acceptance = await team.sendMessage('keeper', 'after the restart', 'after');
    expect(acceptance).toMatchObject({ messageId: 'after', targetPhase: 'active' });
    const state = await eventually(
      () => keeper.query(getTeammateStateQuery),
      (s) => s.consumed === 3 && s.status === 'idle',
      120_000,
    );
    expect(state.conversation.filter((e) => e.role === 'user').map((e) => e.messageId)).toEqual([state.seenMessageIds[0], 'before', 'after']);
    const view = await team.view();
    expect(view.members.map((m) => [m.name, m.phase])).toEqual([['keeper', 'active']]);
    expect(view.tasks).toEqual([expect.objectContaining({ id: 1, owner: 'lead', status: 'in_progress', revision: 2 })]);
    await team.dispose();
    expect(await runningWorkflowsOfTeam(client, team.teamId)).toEqual([]);
  } finally {
    await close();
    await server.stop();
  }
});
