/** Shared helpers for Team integration tests. */
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TeamClient } from '../../client/teamClient';
import { answer, scriptText, think } from '../../activities/providers/scriptedModelScript';
import { TEAM_LEAD_WORKFLOW_TYPE, getTeammateStateQuery, type LeadAgentOptions, type TeamLeadInput, type TeammateStateView } from '../../shared/contract';
import { teammateWorkflowId } from '../../shared/team';
import { uniqueId } from './temporal';

/** Starts a Lead that runs an agent (the scripted model by default) and attaches to it as `caller` (the Lead unless named). */
export async function startAgentTeam(
  client: Client,
  taskQueue: string,
  agent: LeadAgentOptions,
  extra: Partial<TeamLeadInput> = {},
  caller?: string,
): Promise<TeamClient> {
  const teamId = extra.teamId ?? uniqueId('agent-team');
  await client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, { workflowId: teamId, taskQueue, args: [{ teamId, agent, ...extra }] });
  return TeamClient.attach(client, teamId, caller);
}

export async function newTeam(client: Client, taskQueue: string, maxMembers?: number): Promise<TeamClient> {
  return TeamClient.start(client, { teamId: uniqueId('team'), taskQueue, ...(maxMembers !== undefined ? { maxMembers } : {}) });
}

export async function rejectionOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApplicationFailure) return error;
    throw error;
  }
  throw new Error('expected a typed rejection, got a result');
}

export function teammateState(team: TeamClient, name: string): Promise<TeammateStateView> {
  return team.client.workflow.getHandle(teammateWorkflowId(team.teamId, name)).query(getTeammateStateQuery);
}

/** Polls a condition on real-server state (queries), for assertions about asynchronous progress. */
export async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs}ms; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await probe();
  }
  return last;
}

/** Spawns a teammate with `message` and waits until it reports `status` (its first turn started or ended). */
export async function spawnUntil(team: TeamClient, name: string, message: string, status: TeammateStateView['status']): Promise<void> {
  await team.spawnTeammate({ name, message });
  await eventually(
    () => teammateState(team, name),
    (s) => s.status === status,
  );
}

/**
 * Waits until the member's model call has started: its turn is past the step boundary, so a message
 * or a cancel from now on meets the model call, not the `running` report before it.
 */
export async function untilModelCallStarted(team: TeamClient, name: string): Promise<void> {
  const handle = team.handle().client.getHandle(teammateWorkflowId(team.teamId, name));
  await eventually(
    async () => (await handle.describe()).raw.pendingActivities ?? [],
    (pending) => pending.some((a) => a.activityType?.name === 'callModel' && a.lastStartedTime),
  );
}

/** Two teammates: `busy` mid-turn (its model call thinks for `thinkMs`) and `quiet`, idle after one answer. */
export async function withBusyAndQuietMates(team: TeamClient, thinkMs: number): Promise<TeamClient> {
  await team.spawnTeammate({ name: 'busy', message: scriptText(think(thinkMs), answer('never reached')) });
  await spawnUntil(team, 'quiet', scriptText(answer('done at once')), 'idle');
  await untilModelCallStarted(team, 'busy');
  return team;
}

/**
 * The Team's workflows that are running: found through visibility (AgentTeamId), each confirmed by
 * describing it, because a cluster's visibility store lags (a workflow that just closed can still
 * be listed as running for a moment).
 */
export async function runningWorkflowsOfTeam(client: Client, teamId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of client.workflow.list({ query: `AgentTeamId = "${teamId}" AND ExecutionStatus = "Running"` })) {
    if ((await client.workflow.getHandle(wf.workflowId).describe()).status.name === 'RUNNING') ids.push(wf.workflowId);
  }
  return ids;
}

/** The parsed compact JSON a tool entry of a conversation recorded (what the model saw). */
export function toolResult(entry: { content: unknown }): Record<string, unknown> {
  return JSON.parse(typeof entry.content === 'string' ? entry.content : JSON.stringify(entry.content)) as Record<string, unknown>;
}
