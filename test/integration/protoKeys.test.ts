/**
 * Unknown message content stays decoded JSON (seed: Mailbox and task transactions): an own
 * `__proto__` key survives every place content is carried, not only the direct hop. Here: the
 * Lead's continue-as-new (its pending inbox and its agent's conversation), a teammate's
 * continue-as-new (its carried inbox and conversation), and the Lead agent's own send_message tool
 * (the in-workflow send path, no client Update). Each target's conversation and views must hold the
 * content unchanged: the own key present with its value, and no prototype polluted anywhere.
 */
import { answer, script, scriptText, send, think, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import type { ConversationEntry } from '../../shared/contract';
import { useClientAndWorker } from '../support/harness';
import { uniqueId } from '../support/temporal';
import { eventually, newTeam, teammateState, untilModelCallStarted } from '../support/teams';

const env = useClientAndWorker();

/** Decoded JSON with an own `__proto__` key, as JSON.parse (and every payload decode) makes it. */
const protoContent = (): Record<string, unknown> => JSON.parse('{"__proto__":{"polluted":true},"text":"keep me"}') as Record<string, unknown>;

function expectUnchanged(content: unknown): void {
  expect(typeof content).toBe('object');
  expect(Object.prototype.hasOwnProperty.call(content, '__proto__')).toBe(true);
  expect(Object.getOwnPropertyDescriptor(content, '__proto__')?.value).toEqual({ polluted: true });
  expect(Object.getPrototypeOf(content)).toBe(Object.prototype);
  expect((content as Record<string, unknown>).text).toBe('keep me');
  expect(Object.keys(content as object).sort()).toEqual(['__proto__', 'text']);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

/** Cheap attributed reads until the Lead has continued as new once more (it does after 1,000 accepted Updates). */
async function rollOver(team: TeamClient): Promise<void> {
  const before = await team.runInfo();
  for (let batch = 0; (await team.runInfo()).continuedRuns === before.continuedRuns; batch++) {
    expect(batch).toBeLessThan(200);
    await Promise.all(Array.from({ length: 16 }, () => team.listTasks()));
  }
  expect((await team.runInfo()).runId).not.toBe(before.runId);
}

const entryOf = (conversation: ConversationEntry[], messageId: string): ConversationEntry | undefined => conversation.find((e) => e.messageId === messageId);

test(
  "unknown content stays decoded JSON: an own __proto__ key survives the Lead's continue-as-new, " + "in its pending inbox and its agent's conversation",
  async () => {
    // An operator-driven Lead: the message waits in its inbox, carried across the rollover unread.
    const operated = await newTeam(env.client, env.worker.taskQueue);
    await operated.spawnTeammate({ name: 'writer', message: script(send('lead', protoContent())) as never });
    await eventually(
      () => teammateState(operated, 'writer'),
      (s) => s.status === 'idle' && s.turns === 1,
    );
    // A Lead agent: the message is taken into its conversation before the rollover.
    const agentLed = await TeamClient.start(env.client, {
      teamId: uniqueId('team-proto-agent'),
      taskQueue: env.worker.taskQueue,
      agent: {
        profile: 'team',
        prompt: scriptText(tool('spawn_teammate', { name: 'writer', message: script(send('lead', protoContent())) }), answer('spawned')),
      },
    });
    const answered = await agentLed.waitForAnswer({ timeoutMs: 120_000 });
    const fromWriter = answered.conversation.find((e) => e.role === 'user' && e.from === 'writer');
    expect(fromWriter).toBeDefined();
    expectUnchanged(fromWriter!.content);

    await Promise.all([rollOver(operated), rollOver(agentLed)]);

    const [inLeadInbox] = await eventually(
      () => operated.readLeadInbox(),
      (messages) => messages.length > 0,
    );
    expect(inLeadInbox!.from).toBe('writer');
    expectUnchanged(inLeadInbox!.content);
    const carried = (await agentLed.agentState()).conversation.find((e) => e.role === 'user' && e.from === 'writer');
    expectUnchanged(carried!.content);
    await Promise.all([operated.dispose(), agentLed.dispose()]);
  },
);

test("unknown content stays decoded JSON: an own __proto__ key survives a teammate's continue-as-new, in its carried inbox and conversation", async () => {
  // One turn per run: the teammate rolls over after every turn.
  const team = await TeamClient.start(env.client, { teamId: uniqueId('team-proto-mate'), taskQueue: env.worker.taskQueue, teammateMaxTurnsPerRun: 1 });
  await team.spawnTeammate({ name: 'keeper', message: script(think(3_000)) as never });
  // Its model call has started: the turn is past its step boundary, so a message now waits for the next turn.
  await untilModelCallStarted(team, 'keeper');
  // Arrives while the first turn thinks: it is still pending when that run continues as new.
  await team.sendMessage('keeper', protoContent() as never, 'proto-pending');
  const state = await eventually(
    () => teammateState(team, 'keeper'),
    (s) => s.continuedRuns >= 2 && entryOf(s.conversation, 'proto-pending') !== undefined && s.status === 'idle',
  );
  expectUnchanged(entryOf(state.conversation, 'proto-pending')!.content);
  expect(state.consumed).toBe(2);
  await team.dispose();
});

test("unknown content stays decoded JSON: an own __proto__ key survives the Lead agent's own send_message to a teammate", async () => {
  const team = await TeamClient.start(env.client, {
    teamId: uniqueId('team-proto-lead-send'),
    taskQueue: env.worker.taskQueue,
    agent: {
      profile: 'team',
      prompt: scriptText(tool('spawn_teammate', { name: 'reader', message: 'start' }), think(1), send('reader', protoContent()), answer('sent')),
    },
  });
  const answered = await team.waitForAnswer({ timeoutMs: 120_000 });
  // The Lead's send went through its own tool (in the workflow), not a client Update.
  const sendCall = answered.conversation.flatMap((e) => e.toolCalls ?? []).find((c) => c.name === 'send_message');
  expect(sendCall).toBeDefined();
  const leadHistory = await team.handle().fetchHistory();
  const sendUpdates = (leadHistory.events ?? []).filter(
    (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'sendMessage',
  );
  expect(sendUpdates).toHaveLength(0);

  const state = await eventually(
    () => teammateState(team, 'reader'),
    (s) => s.conversation.some((e) => e.role === 'user' && e.from === 'lead' && typeof e.content === 'object'),
  );
  const delivered = state.conversation.find((e) => e.role === 'user' && e.from === 'lead' && typeof e.content === 'object');
  expectUnchanged(delivered!.content);
  await team.dispose();
});
