/**
 * Steer on the real server (seed, Mailbox and task transactions: "send_message uses Steer for
 * running, idle, and cold targets"): a message to a teammate whose turn is running is taken at the
 * turn's next step boundary and is the next model call's input, once, also when the worker process
 * is killed with SIGKILL while the message waits and again after the turn took it.
 *
 * The running turn blocks in wait_agent on task edges, so the test decides when the step boundary
 * comes: it creates a task. The scripted model treats the message taken mid-turn as the latest
 * instructions (its script drives the next model calls).
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { TeamClient } from '../../client/teamClient';
import { getLiveStatusQuery, type TeammateStateView } from '../../shared/contract';
import type { JsonValue } from '../../shared/contract/json';
import type { ChatMessage } from '../../shared/contract/model';
import { renderInboxMessage } from '../../shared/agent/transcript';
import { teammateWorkflowId } from '../../shared/team';
import { useClientAndWorkerProcesses } from '../support/harness';
import { uniqueId } from '../support/temporal';
import { eventually, teammateState } from '../support/teams';

const env = useClientAndWorkerProcesses();

/** The opening script: wait for the next task edge (the test's release), then answer as planned. */
const blockedTurn: JsonValue = {
  script: [{ tool: { name: 'wait_agent', args: { kinds: ['task'], timeoutMs: 600_000 } } }, { answer: 'the original plan, unsteered' }],
};

const waitingForRelease = (s: TeammateStateView): boolean => {
  const last = s.conversation.at(-1);
  return s.status === 'running' && last?.role === 'assistant' && (last.toolCalls ?? []).some((c) => c.name === 'wait_agent');
};

/** The messages of every callModel the workflow scheduled, in order (its persisted history). */
async function modelInputs(client: Client, workflowId: string): Promise<ChatMessage[][]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'callModel') return [];
    const [request] = (scheduled.input?.payloads ?? []).map((p) => defaultPayloadConverter.fromPayload<{ messages: ChatMessage[] }>(p));
    return [request!.messages];
  });
}

const countOf = (messages: ChatMessage[], text: string): number => messages.filter((m) => m.role === 'user' && m.content === text).length;

describe('send_message steers a running turn', () => {
  test('the message is taken at the next step boundary, before the next model call', async () => {
    const taskQueue = uniqueId('tq-steer');
    await env.spawnWorker(taskQueue);
    const team = await TeamClient.start(env.client, { teamId: uniqueId('team-steer'), taskQueue });
    const { initialMessageId } = await team.spawnTeammate({ name: 'mate', message: blockedTurn });
    await eventually(() => teammateState(team, 'mate'), waitingForRelease);

    const steer: JsonValue = { note: 'the requirements changed', script: [{ answer: 'acting on the steered message' }] };
    const acceptance = await team.sendMessage('mate', steer, 'steer-1');
    expect(acceptance).toEqual({ messageId: 'steer-1', to: 'mate', targetPhase: 'active', targetStatus: 'running' });
    // No step boundary yet (the tool still runs): the message waits in the inbox.
    expect((await teammateState(team, 'mate')).pending.map((m) => m.messageId)).toEqual(['steer-1']);

    await team.createTask({ subject: 'release the wait' });
    const mate = await eventually(
      () => teammateState(team, 'mate'),
      (s) => s.status === 'idle' && s.conversation.at(-1)?.role === 'assistant',
    );
    // One turn: the message joined it after the tool's result and before the next model call, once.
    expect(mate.turns).toBe(1);
    expect(mate.conversation.map((e) => [e.role, e.messageId ?? e.toolName ?? e.content, e.turn])).toEqual([
      ['user', initialMessageId, 1],
      ['assistant', null, 1],
      ['tool', 'wait_agent', 1],
      ['user', 'steer-1', 1],
      ['assistant', 'acting on the steered message', 1],
    ]);
    expect(mate).toMatchObject({ pending: [], consumed: 2, received: 2 });

    const rendered = renderInboxMessage({ messageId: 'steer-1', from: 'lead', content: steer });
    const inputs = await modelInputs(env.client, teammateWorkflowId(team.teamId, 'mate'));
    expect(inputs).toHaveLength(2);
    expect(countOf(inputs[0]!, rendered)).toBe(0);
    expect(countOf(inputs[1]!, rendered)).toBe(1);
    expect(inputs[1]!.at(-1)).toEqual({ role: 'user', content: rendered });

    // The Lead counts the message settled: the teammate is not busy with unread mail. The Lead hears
    // it from the idle report, an activity that can land after the teammate's own state says idle.
    const live = await eventually(
      () => team.handle().query(getLiveStatusQuery),
      (s) => s.mate === 'idle',
    );
    expect(live.mate).toBe('idle');
    await team.dispose();
  });

  test('a message sent during a running turn survives SIGKILL of the worker before and after the turn took it, and is taken exactly once', async () => {
    const taskQueue = uniqueId('tq-steer-crash');
    let worker = await env.spawnWorker(taskQueue);
    const team = await TeamClient.start(env.client, { teamId: uniqueId('team-steer-crash'), taskQueue });
    await team.spawnTeammate({ name: 'mate', message: blockedTurn });
    await eventually(() => teammateState(team, 'mate'), waitingForRelease);

    // The steered model call works for a while, so the worker can die after the take too.
    const steer: JsonValue = { script: [{ think: 3_000 }, { answer: 'steered, after two crashes' }] };
    await team.sendMessage('mate', steer, 'steer-crash');
    await worker.kill(); // the message is pending, the turn blocked
    worker = await env.spawnWorker(taskQueue);
    expect((await teammateState(team, 'mate')).pending.map((m) => m.messageId)).toEqual(['steer-crash']);

    await team.createTask({ subject: 'release the wait' });
    await eventually(
      () => teammateState(team, 'mate'),
      (s) => s.conversation.at(-1)?.messageId === 'steer-crash',
    );
    await worker.kill(); // taken, its model call in flight
    await env.spawnWorker(taskQueue);

    const mate = await eventually(
      () => teammateState(team, 'mate'),
      (s) => s.status === 'idle' && s.conversation.at(-1)?.role === 'assistant',
      180_000,
    );
    expect(mate.conversation.filter((e) => e.messageId === 'steer-crash')).toHaveLength(1);
    expect(mate.conversation.at(-1)).toMatchObject({ role: 'assistant', content: 'steered, after two crashes', turn: 1 });
    expect(mate).toMatchObject({ turns: 1, pending: [], consumed: 2, received: 2 });
    await team.dispose();
  });
});
