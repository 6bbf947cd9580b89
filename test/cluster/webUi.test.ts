/**
 * The cluster's Web UI server (`npm run cluster` starts github.com/temporalio/ui-server when it
 * builds here): it serves the UI, is read-only by default, and its HTTP API lists a Team's
 * workflows by the Team's search attribute, as an operator's browser would ask for them.
 */
import { readClusterState, uiUrl } from '../../scripts/cluster';
import { teammateWorkflowId } from '../../shared/team';
import { useClientAndWorker } from '../support/harness';
import { eventually, newTeam } from '../support/teams';

const env = useClientAndWorker();

function ui(): string {
  const url = uiUrl(readClusterState());
  if (!url) throw new Error('the cluster has no Web UI: the UI server did not build (see the npm run cluster output)');
  return url;
}

test("the Web UI server serves the UI, read-only by default, and its API lists a Team's workflows by AgentTeamId", async () => {
  const page = await fetch(`${ui()}/namespaces/default/workflows`);
  expect(page.status).toBe(200);
  expect(await page.text()).toMatch(/<!doctype html>/i);
  const settings = (await (await fetch(`${ui()}/api/v1/settings`)).json()) as { DisableWriteActions: boolean; StartWorkflowDisabled: boolean };
  expect(settings).toMatchObject({ DisableWriteActions: true, StartWorkflowDisabled: true });

  const team = await newTeam(env.client, env.worker.taskQueue);
  await team.spawnTeammate({ name: 'visible', message: 'start' });
  const query = encodeURIComponent(`AgentTeamId = "${team.teamId}"`);
  const listed = await eventually(
    async () => {
      const body = (await (await fetch(`${ui()}/api/v1/namespaces/default/workflows?query=${query}`)).json()) as {
        executions?: { execution: { workflowId: string } }[];
      };
      return (body.executions ?? []).map((e) => e.execution.workflowId).sort();
    },
    (ids) => ids.length === 2,
    30_000,
  );
  expect(listed).toEqual([team.teamId, teammateWorkflowId(team.teamId, 'visible')].sort());
  await team.dispose();
});
