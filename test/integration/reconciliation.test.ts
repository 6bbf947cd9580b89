/**
 * Every outcome of the Lead's reconciliation of a provisioning record (seed, "Provisioning and
 * recovery"), drilled on the real server. Recovery proper: a run of the Lead whose carried state
 * holds records still `provisioning` (what a lost run would hand on) reconciles each against the
 * workflow at its reserved id. That workflow is planted first by a test-only workflow that stands
 * at the Team's id as the Lead's earlier run (it starts each child as its own direct child, exactly
 * as the Lead does, then continues as new into the Lead), or elsewhere as some other parent.
 *
 * Absence, corruption (a missing, malformed or undecodable descriptor), a mismatched parent,
 * provider/lineage, or a missing initial message fail the record. A running child of the Lead's
 * own (type, parent and AgentTeamId all the Lead's) that is not the teammate is drained; a workflow
 * that is not provably the Lead's own child is never touched (ReservedIdTaken, issue 53). An
 * initial message still pending in the child's inbox or already in its conversation proves
 * admission: active.
 *
 * Last, the creator/recovery conflict: a creator held between its child's start and its settle,
 * through resets of the Lead, to see whether recovery can ever settle its record first.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import Long from 'long';
import { createActivities } from '../../activities';
import { TeamClient } from '../../client/teamClient';
import { deliverMessageSignal, TEAMMATE_WORKFLOW_TYPE, type ReconcileOutcome, type ReconcileTeammateInput } from '../../shared/contract';
import { PROVISIONING_CONFLICT } from '../../shared/contract/failures';
import { teammateWorkflowId } from '../../shared/team';
import { chainReport } from '../support/adversarial';
import {
  leadMessage,
  plant,
  plantedTeammate,
  provisioningRunInput,
  recordDescriptor,
  resetBeforeSettled,
  resetTo,
  settledView,
  startLeadRun,
  type ProvisioningRecord,
} from '../support/reconciliation';
import { connectClient, startWorker, uniqueId, type RunningWorker } from '../support/temporal';
import { eventually, rejectionOf, runningWorkflowsOfTeam, teammateState, untilModelCallStarted } from '../support/teams';

let client: Client;
let closeClient: () => Promise<void>;
let worker: RunningWorker;

/** The gated worker's reconciliation waits for `release` before doing the real work. */
let heldCalls = 0;
let release: () => void = () => undefined;
let gate: Promise<void> = Promise.resolve();
let gated: RunningWorker;

beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
  worker = await startWorker(uniqueId('tq-reconciliation'));
  const real = createActivities({ client });
  gated = await startWorker(uniqueId('tq-reconciliation-gated'), {
    extraActivities: {
      reconcileTeammate: async (input: ReconcileTeammateInput): Promise<ReconcileOutcome> => {
        heldCalls += 1;
        await gate;
        return real.reconcileTeammate(input);
      },
    },
  });
});

afterAll(async () => {
  release();
  await gated?.stop();
  await worker?.stop();
  await closeClient?.();
});

/**
 * How long the pending teammate's first turn works before it takes the next message: long enough
 * for the hand-over and recovery to happen meanwhile (the test checks it did), short enough to wait
 * out. An interrupt would not do: the interrupted turn has no reply, so the next turn's scripted
 * model would take the warm-up script again.
 */
const WARM_UP_MS = 45_000;

const fresh = (name: string): ProvisioningRecord => ({ name, context: 'fresh' });

async function statusOf(workflowId: string): Promise<string> {
  return (await client.workflow.getHandle(workflowId).describe()).status.name;
}

/** Plants `children` as the Lead's earlier run would have left them, then lets that run continue as new into the Lead with `records` still provisioning. */
async function recoverPlanted(teamId: string, records: ProvisioningRecord[], children: Parameters<typeof plant>[3]): Promise<TeamClient> {
  const planted = await plant(client, worker.taskQueue, teamId, children, provisioningRunInput(teamId, records));
  await planted.handOver();
  return TeamClient.attach(client, teamId);
}

/** The failure of each record, by name, once all are settled; every one must be failed. */
async function failures(team: TeamClient): Promise<Record<string, string | null | undefined>> {
  const view = await settledView(team);
  expect(view.members.map((m) => m.phase)).toEqual(view.members.map(() => 'failed'));
  return Object.fromEntries(view.members.map((m) => [m.name, m.failure]));
}

/** The Lead kept serving: it is running, the failed names stay reserved, and disposal leaves nothing of the Team running. */
async function expectLeadServesAndDisposes(team: TeamClient, failedName: string): Promise<void> {
  expect(await statusOf(team.teamId)).toBe('RUNNING');
  expect((await rejectionOf(team.spawnTeammate({ name: failedName, message: 'again' }))).type).toBe('MemberNameTaken');
  await team.dispose();
  expect(await runningWorkflowsOfTeam(client, team.teamId)).toEqual([]);
}

describe('reconciliation of an unterminated provisioning record against the child', () => {
  test('absence produces failed: no workflow at the reserved id, nothing to drain', async () => {
    const teamId = uniqueId('recon-absent');
    const team = await startLeadRun(client, worker.taskQueue, provisioningRunInput(teamId, [fresh('ghost')]));
    expect(await failures(team)).toEqual({ ghost: 'absent: no child workflow with the reserved id' });
    await expect(statusOf(teammateWorkflowId(teamId, 'ghost'))).rejects.toThrow(/not found/i);
    const chain = await chainReport(client, teamId);
    expect([chain.failedWorkflowTasks, chain.terminatedRuns]).toEqual([0, 0]);
    await expectLeadServesAndDisposes(team, 'ghost');
  });

  test('corruption produces failed: missing and malformed memo descriptors drained; an undecodable one started raw is left alone', async () => {
    const teamId = uniqueId('recon-corrupt');
    const records = [fresh('no-memo'), fresh('garbled'), fresh('half'), fresh('undecodable')];
    const planted = await plant(
      client,
      worker.taskQueue,
      teamId,
      [
        plantedTeammate(teamId, records[0]!, { memoDescriptor: null }),
        plantedTeammate(teamId, records[1]!, { memoDescriptor: 'not a descriptor' }),
        plantedTeammate(teamId, records[2]!, { memoDescriptor: { ...recordDescriptor(teamId, records[2]!), name: 42 } }),
      ],
      provisioningRunInput(teamId, records),
    );
    // Bytes that do not decode as the memo: describe() itself fails on them. Nothing in the SDK
    // writes such a memo, so this one is started with the raw API (and so has no parent).
    const undecodableId = teammateWorkflowId(teamId, 'undecodable');
    const json = (value: unknown) => ({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) });
    await client.workflowService.startWorkflowExecution({
      namespace: client.options.namespace,
      workflowId: undecodableId,
      workflowType: { name: TEAMMATE_WORKFLOW_TYPE },
      taskQueue: { name: worker.taskQueue },
      input: { payloads: [json(plantedTeammate(teamId, records[3]!).args[0])] },
      memo: { fields: { agentTeam: { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"teamId": not json') } } },
      requestId: randomUUID(),
    });
    await planted.handOver();
    const team = TeamClient.attach(client, teamId);

    const failed = await failures(team);
    expect(failed).toEqual({
      'no-memo': 'missing teammate descriptor: the child has no agentTeam memo',
      garbled: 'corrupt teammate descriptor: the agentTeam memo is a string, not an object',
      half: 'corrupt teammate descriptor: name is not a string',
      undecodable: expect.stringMatching(/^ReservedIdTaken: the reserved id \S+\/teammate\/undecodable is held by workflow \S+ \(type teammate, run \S+\), /),
    });
    expect(failed.undecodable).toContain('(it has no parent workflow; it has no AgentTeamId)');
    // The Lead's own children were drained (cancelled and awaited) before the record failed ...
    for (const { name } of records.slice(0, 3)) expect(await statusOf(teammateWorkflowId(teamId, name))).not.toBe('RUNNING');
    // ... but the undecodable one was started raw (no parent, no AgentTeamId): not provably the Lead's,
    // so nothing touched it (no worker can run it either: its workflow tasks fail on the memo). An
    // operator terminates it.
    const undecodableHistory = (await client.workflow.getHandle(undecodableId).fetchHistory()).events ?? [];
    expect(undecodableHistory.some((e) => e.workflowTaskFailedEventAttributes)).toBe(true);
    // describe() decodes the memo, which fails here: the raw description.
    const undecodableRaw = await client.workflowService.describeWorkflowExecution({
      namespace: client.options.namespace,
      execution: { workflowId: undecodableId },
    });
    expect(undecodableRaw.workflowExecutionInfo?.status).toBe(1); // RUNNING
    expect(undecodableHistory.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(false);
    await client.workflow.getHandle(undecodableId).terminate('drill: an impostor no worker can run');
    await expectLeadServesAndDisposes(team, 'garbled');
  });

  test('a teammate whose parent is another workflow (adopted elsewhere, or none) produces failed: ReservedIdTaken, left running', async () => {
    const teamId = uniqueId('recon-parent');
    const records = [fresh('adopted'), fresh('stray')];
    // A genuine-looking teammate (type, memo and initial message all right) whose parent is some other workflow.
    const elsewhere = await plant(client, worker.taskQueue, `${teamId}-elsewhere`, [plantedTeammate(teamId, records[0]!)]);
    await elsewhere.handOver();
    const stray = plantedTeammate(teamId, records[1]!);
    await client.workflow.start(stray.workflowType, {
      workflowId: stray.workflowId,
      taskQueue: worker.taskQueue,
      args: stray.args as never,
      memo: stray.memo!,
      typedSearchAttributes: stray.typedSearchAttributes!,
    });
    for (const { name } of records) {
      await eventually(
        () => teammateState(TeamClient.attach(client, teamId), name),
        (s) => s.consumed === 1,
      );
    }
    const team = await startLeadRun(client, worker.taskQueue, provisioningRunInput(teamId, records));

    expect(await failures(team)).toEqual({
      adopted: expect.stringMatching(new RegExp(`^ReservedIdTaken: .*\\(its parent is ${teamId}-elsewhere, not this Lead\\)`)),
      stray: expect.stringMatching(/^ReservedIdTaken: .*\(it has no parent workflow\)/),
    });
    // Not provably the Lead's own children: neither is cancelled or signalled, by recovery or by disposal.
    for (const { name } of records) expect(await statusOf(teammateWorkflowId(teamId, name))).toBe('RUNNING');
    expect(await statusOf(team.teamId)).toBe('RUNNING');
    expect((await rejectionOf(team.spawnTeammate({ name: 'adopted', message: 'again' }))).type).toBe('MemberNameTaken');
    await team.dispose();
    for (const { name } of records) {
      const handle = client.workflow.getHandle(teammateWorkflowId(teamId, name));
      expect(await statusOf(handle.workflowId)).toBe('RUNNING');
      expect(((await handle.fetchHistory()).events ?? []).some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(false);
      await handle.terminate('test: done');
    }
  });

  test("a mismatched provider or lineage produces failed: fresh for a fork record and vice versa, another Team's descriptor, a subagent there", async () => {
    const teamId = uniqueId('recon-lineage');
    const records: ProvisioningRecord[] = [{ name: 'forked', context: 'fork' }, fresh('freshly'), fresh('foreign'), fresh('subagent-held')];
    const team = await recoverPlanted(teamId, records, [
      plantedTeammate(teamId, records[0]!, { inputContext: 'fresh' }),
      plantedTeammate(teamId, records[1]!, { inputContext: 'fork' }),
      plantedTeammate(teamId, records[2]!, { memoDescriptor: { ...recordDescriptor(teamId, records[2]!), teamId: 'another-team' } }),
      plantedTeammate(teamId, records[3]!, { workflowType: 'subagent' }),
    ]);

    expect(await failures(team)).toEqual({
      forked: 'mismatched provider/lineage: the child was started by the "fresh" provider, the record says fork',
      freshly: 'mismatched provider/lineage: the child was started by the "fork" provider, the record says fresh',
      foreign: `mismatched lineage: the child's descriptor belongs to Team "another-team", not this Lead's`,
      'subagent-held': 'mismatched workflow type subagent',
    });
    for (const { name } of records) expect(await statusOf(teammateWorkflowId(teamId, name))).not.toBe('RUNNING');
    await expectLeadServesAndDisposes(team, 'forked');
  });

  test('a missing admitted message produces failed: a direct child with the right descriptor but without the initial message is drained', async () => {
    const teamId = uniqueId('recon-mute');
    const record = fresh('mute');
    const planted = await plant(
      client,
      worker.taskQueue,
      teamId,
      [plantedTeammate(teamId, record, { initialMessage: leadMessage('some-other-message', 'start', 1) })],
      provisioningRunInput(teamId, [record]),
    );
    const child = await eventually(
      () => teammateState(TeamClient.attach(client, teamId), 'mute'),
      (s) => s.consumed === 1,
    );
    expect(child.seenMessageIds).toEqual(['some-other-message']);
    await planted.handOver();
    const team = TeamClient.attach(client, teamId);

    expect(await failures(team)).toEqual({ mute: 'initial message missing from the child' });
    expect(await statusOf(teammateWorkflowId(teamId, 'mute'))).not.toBe('RUNNING');
    await expectLeadServesAndDisposes(team, 'mute');
  });

  test('recovery recognizes the initial message while still pending and after it entered user-message history: both active, nothing drained', async () => {
    const teamId = uniqueId('recon-recognized');
    const records = [fresh('pending-mate'), fresh('settled-mate')];
    const pendingId = recordDescriptor(teamId, records[0]!).initialMessageId;
    const settledId = recordDescriptor(teamId, records[1]!).initialMessageId;
    const planted = await plant(
      client,
      worker.taskQueue,
      teamId,
      [
        // Busy with a long turn first, so the initial message, delivered by signal, stays pending in its inbox.
        plantedTeammate(teamId, records[0]!, { initialMessage: leadMessage('warm-up', { script: [{ think: WARM_UP_MS }] }) }),
        plantedTeammate(teamId, records[1]!),
      ],
      provisioningRunInput(teamId, records),
    );
    const early = TeamClient.attach(client, teamId);
    // Past its turn's step boundary: the message waits in the inbox instead of joining the turn.
    await untilModelCallStarted(early, 'pending-mate');
    await client.workflow.getHandle(teammateWorkflowId(teamId, 'pending-mate')).signal(deliverMessageSignal, leadMessage(pendingId, 'start', 1));
    const pending = await eventually(
      () => teammateState(early, 'pending-mate'),
      (s) => s.pending.some((m) => m.messageId === pendingId),
    );
    expect(pending.conversation.some((e) => e.messageId === pendingId)).toBe(false);
    const settled = await eventually(
      () => teammateState(early, 'settled-mate'),
      (s) => s.consumed === 1 && s.status === 'idle',
    );
    expect(settled.pending).toEqual([]);
    expect(settled.conversation.filter((e) => e.role === 'user').map((e) => e.messageId)).toEqual([settledId]);
    const runIds = await Promise.all(records.map(async ({ name }) => (await client.workflow.getHandle(teammateWorkflowId(teamId, name)).describe()).runId));

    await planted.handOver();
    const team = TeamClient.attach(client, teamId);
    const view = await settledView(team);
    expect(view.members.map((m) => [m.name, m.phase])).toEqual([
      ['pending-mate', 'active'],
      ['settled-mate', 'active'],
    ]);
    // Still the same running children: recognized, not drained or restarted.
    for (const [i, { name }] of records.entries()) {
      const description = await client.workflow.getHandle(teammateWorkflowId(teamId, name)).describe();
      expect([description.runId, description.status.name]).toEqual([runIds[i], 'RUNNING']);
    }
    // Recovery settled while the warm-up turn was still running: the message was recognized pending.
    const atSettle = await teammateState(team, 'pending-mate');
    expect([atSettle.turns, atSettle.status]).toEqual([1, 'running']);
    // It is this member's first relayed message: the next turn takes it, and the member takes sends too.
    await team.sendMessage('pending-mate', 'after recovery', 'after-recovery');
    const member = await eventually(
      () => teammateState(team, 'pending-mate'),
      (s) => s.status === 'idle' && s.conversation.some((e) => e.messageId === 'after-recovery'),
      WARM_UP_MS + 60_000,
    );
    expect(member.conversation.filter((e) => e.role === 'user').map((e) => e.messageId)).toEqual(['warm-up', pendingId, 'after-recovery']);
    await team.dispose();
    expect(await runningWorkflowsOfTeam(client, teamId)).toEqual([]);
  });
});

describe('the creator re-reads the terminal phase under the Lead-log serializer', () => {
  /** The id of the workflow-task-completed event that scheduled the latest reconcileTeammate in the Lead's current run. */
  async function reconcileScheduledAt(team: TeamClient): Promise<Long> {
    const events = (await team.handle().fetchHistory()).events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'reconcileTeammate').at(-1);
    const at = scheduled?.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId;
    if (!at) throw new Error('no reconcileTeammate was scheduled in this run');
    return Long.fromValue(at);
  }

  test('a creator held between child start and settle keeps its record through resets; recovery never settles it: no conflict, no orphan', async () => {
    const team = await TeamClient.start(client, { teamId: uniqueId('recon-conflict'), taskQueue: gated.taskQueue });
    const spawned = await team.spawnTeammate({ name: 'racer', message: 'start' });
    expect(spawned.member.phase).toBe('active');
    const child = client.workflow.getHandle(teammateWorkflowId(team.teamId, 'racer'));
    const childRunId = (await child.describe()).runId;

    // Hold every reconciliation from now on.
    gate = new Promise<void>((resolve) => (release = resolve));
    const heldBefore = heldCalls;

    // 1. The Lead's run is lost after the child started and before the spawn settled: the replayed
    //    creator finds the reserved id taken and asks the child, and is held there.
    await resetBeforeSettled(team, 'drill: lose the run between the child start and the settle');
    await eventually(
      () => Promise.resolve(heldCalls),
      (n) => n === heldBefore + 1,
    );
    expect((await team.view()).members.map((m) => [m.name, m.phase])).toEqual([['racer', 'provisioning']]);

    // 2. That run is lost too, while its creator is held: the next run starts from an empty state
    //    at its first activation (recovery lists only what a run starts with), replays the
    //    spawnTeammate Update and so runs the creator again, which asks the child again.
    await resetTo(team, await reconcileScheduledAt(team), 'drill: lose the run while its creator reconciles');
    await eventually(
      () => Promise.resolve(heldCalls),
      (n) => n === heldBefore + 2,
    );
    // Recovery has not touched the record: it is still the creator's, still provisioning.
    expect((await team.view()).members.map((m) => [m.name, m.phase])).toEqual([['racer', 'provisioning']]);

    // 3. Released: the creator's reconciliation recognizes its child and settles active. There was
    //    never a second writer, so no ProvisioningConflict: the guard in settle stays unreachable.
    release();
    const view = await settledView(team);
    expect(view.members.map((m) => [m.name, m.phase])).toEqual([['racer', 'active']]);
    const chain = await chainReport(client, team.teamId);
    const conflicts: unknown[] = [];
    for (const run of chain.runs) {
      const events = (await client.workflow.getHandle(team.teamId, run.runId).fetchHistory()).events ?? [];
      for (const e of events) {
        const failure = e.workflowExecutionUpdateCompletedEventAttributes?.outcome?.failure;
        if (failure?.applicationFailureInfo?.type === PROVISIONING_CONFLICT) conflicts.push(failure.message);
      }
    }
    expect(conflicts).toEqual([]);
    // One child, the original one, never drained; the Lead's reset runs are the only terminated ones.
    const description = await child.describe();
    expect([description.runId, description.status.name]).toEqual([childRunId, 'RUNNING']);
    expect((await runningWorkflowsOfTeam(client, team.teamId)).sort()).toEqual([team.teamId, child.workflowId].sort());
    expect(chain.terminatedRuns).toBe(2);
    await team.sendMessage('racer', 'still a member', 'after-resets');
    await eventually(
      () => teammateState(team, 'racer'),
      (s) => s.conversation.some((e) => e.messageId === 'after-resets'),
    );
    await team.dispose();
    expect(await runningWorkflowsOfTeam(client, team.teamId)).toEqual([]);
  });
});
