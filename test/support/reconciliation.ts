/**
 * Setting up the Lead's reconciliation of provisioning records on the real server: the carried
 * state of a run that hands on records still `provisioning`, children planted at their reserved
 * ids as an earlier run would have left them (or as an impostor would), and a reset of the Lead to
 * before a spawn settled.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import Long from 'long';
import { TeamClient } from '../../client/teamClient';
import {
  TEAM_LEAD_WORKFLOW_TYPE,
  TEAMMATE_WORKFLOW_TYPE,
  type TeammateDescriptor,
  type TeammateInput,
  type InboxMessage,
  LEAD,
  type MemberContext,
  type TeamView,
} from '../../shared/contract';
import { applyLeadAll, decideSpawnTeammate, emptyLeadState, type LeadState } from '../../shared/lead';
import type { LeadRunInput } from '../../shared/lead/carried';
import { AGENT_TEAM_ID, AGENT_TEAM_MEMBER, AGENT_TEAM_ROLE } from '../../shared/contract/searchAttributes';
import type { JsonValue } from '../../shared/contract/json';
import { teammateWorkflowId } from '../../shared/team';
import { handOverSignal, plantedQuery, type PlantedChild } from './childPlanter';
import { eventually } from './teams';

export interface ProvisioningRecord {
  name: string;
  context: MemberContext;
}

/**
 * The input of a continued Lead run whose carried state holds these records still `provisioning`,
 * written with the Lead's own pure core: exactly what a run would hand on if it were lost between
 * recording a provisioning and settling it. (A run cannot roll over with a spawn in flight.)
 */
export function provisioningRunInput(teamId: string, records: readonly ProvisioningRecord[], maxMembers = 8): LeadRunInput & { carried: LeadState } {
  const at = new Date().toISOString();
  let state = emptyLeadState(teamId, maxMembers);
  for (const { name, context } of records) {
    const spawn = decideSpawnTeammate(state, { caller: LEAD, name, context, model: null, message: 'start' }, at);
    if (!spawn.ok) throw new Error(`the spawn decision for ${name} was refused: ${spawn.rejection.message}`);
    state = applyLeadAll(state, spawn.events, at);
  }
  return { teamId, carried: { ...state, continuedRuns: 1 } };
}

/** The descriptor the Lead writes into a teammate's memo for this record (what recovery compares with). */
export function recordDescriptor(teamId: string, { name, context }: ProvisioningRecord): TeammateDescriptor {
  return { teamId, name, context, initialMessageId: `${teammateWorkflowId(teamId, name)}/initial` };
}

export function leadMessage(messageId: string, content: JsonValue, relaySeq?: number): InboxMessage {
  return { messageId, from: LEAD, content, sentAt: new Date().toISOString(), ...(relaySeq !== undefined ? { relaySeq } : {}) };
}

/**
 * A teammate at `record`'s reserved id, started as the Lead starts one (same input, memo and
 * search attributes), with the parts a drill changes: the memo's descriptor (`null`: no memo at
 * all; anything else is stored as given), the workflow type, and the initial message.
 */
export function plantedTeammate(
  teamId: string,
  record: ProvisioningRecord,
  change: { memoDescriptor?: unknown; workflowType?: string; initialMessage?: InboxMessage; inputContext?: MemberContext } = {},
): PlantedChild {
  const workflowId = teammateWorkflowId(teamId, record.name);
  const descriptor = { ...recordDescriptor(teamId, record), ...(change.inputContext ? { context: change.inputContext } : {}) };
  const input: TeammateInput = {
    descriptor,
    model: null,
    seed: [],
    initialMessage: change.initialMessage ?? leadMessage(descriptor.initialMessageId, 'start', 1),
  };
  const memoDescriptor = 'memoDescriptor' in change ? change.memoDescriptor : descriptor;
  return {
    workflowType: change.workflowType ?? TEAMMATE_WORKFLOW_TYPE,
    workflowId,
    args: [input],
    ...(memoDescriptor === null ? {} : { memo: { agentTeam: memoDescriptor } }),
    typedSearchAttributes: [
      { key: AGENT_TEAM_ID, value: teamId },
      { key: AGENT_TEAM_ROLE, value: 'teammate' },
      { key: AGENT_TEAM_MEMBER, value: record.name },
    ],
  };
}

export interface Planted {
  /** Lets the planter go on, into the Lead's next run at the Team's id or to completion elsewhere, and waits until it has. */
  handOver(): Promise<void>;
}

/**
 * Starts the planter at `workflowId` and waits until every child has started. With `thenLead` the
 * planter stands at the Team's id as the Lead's earlier run and continues as new into the Lead.
 */
export async function plant(client: Client, taskQueue: string, workflowId: string, children: PlantedChild[], thenLead?: LeadRunInput): Promise<Planted> {
  const handle = await client.workflow.start('childPlanter', {
    workflowId,
    taskQueue,
    args: [{ children, ...(thenLead ? { thenLead } : {}) }],
    ...(thenLead
      ? {
          typedSearchAttributes: [
            { key: AGENT_TEAM_ID, value: thenLead.teamId },
            { key: AGENT_TEAM_ROLE, value: 'lead' },
          ],
        }
      : {}),
  });
  await eventually(
    () => handle.query(plantedQuery),
    (n) => n === children.length,
  );
  return {
    handOver: async () => {
      await handle.signal(handOverSignal);
      // Done once the Lead's run is the current one at the Team's id, or the planter has completed.
      await eventually(
        () => client.workflow.getHandle(workflowId).describe(),
        (d) => (thenLead ? d.type === TEAM_LEAD_WORKFLOW_TYPE : d.status.name === 'COMPLETED'),
      );
    },
  };
}

/** Starts a Lead run with `input` directly (no earlier run at its id). */
export async function startLeadRun(client: Client, taskQueue: string, input: LeadRunInput): Promise<TeamClient> {
  await client.workflow.start(TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: input.teamId,
    taskQueue,
    args: [input],
    typedSearchAttributes: [
      { key: AGENT_TEAM_ID, value: input.teamId },
      { key: AGENT_TEAM_ROLE, value: 'lead' },
    ],
  });
  return TeamClient.attach(client, input.teamId);
}

/** The Team's view once no record is `provisioning` any more. */
export function settledView(team: TeamClient, timeoutMs?: number): Promise<TeamView> {
  return eventually(
    () => team.view(),
    (v) => v.members.every((m) => m.phase !== 'provisioning'),
    timeoutMs,
  );
}

/** Resets the Lead to the workflow task that started its first child: the replayed spawn finds the reserved id taken. Returns the replaced run's id. */
export async function resetBeforeSettled(team: TeamClient, reason: string): Promise<string> {
  const history = await team.handle().fetchHistory();
  const initiated = history.events?.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
  const resetPoint = initiated?.startChildWorkflowExecutionInitiatedEventAttributes?.workflowTaskCompletedEventId;
  if (!resetPoint) throw new Error('the Lead has not started a child');
  return resetTo(team, Long.fromValue(resetPoint), reason);
}

/** Resets the Lead's current run to the end of the workflow task `workflowTaskFinishEventId`; returns the replaced run's id. */
export async function resetTo(team: TeamClient, workflowTaskFinishEventId: Long, reason: string): Promise<string> {
  const { runId } = await team.handle().describe();
  await team.client.workflowService.resetWorkflowExecution({
    namespace: team.client.options.namespace,
    workflowExecution: { workflowId: team.teamId, runId },
    workflowTaskFinishEventId,
    requestId: randomUUID(),
    reason,
  });
  return runId;
}
