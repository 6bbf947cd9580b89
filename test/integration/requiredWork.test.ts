/**
 * The Lead waits for required work before its final answer (seed: Decision), on the real server:
 * after a reply it waits while teammates are busy, and when that wait runs out (30 minutes by
 * default; `agent.requiredWorkWaitMs` shortens it here, through the workflow input) it gets a turn
 * with a note of who is still busy, a note that does not count against the open-task nudge limit; once
 * the Team is quiet it is told about open tasks at most MAX_COMPLETION_NUDGES times, then its answer
 * is accepted with the tasks still open.
 */
import { answer, script, scriptText, think, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import type { ConversationEntry, LeadAgentView } from '../../shared/contract';
import { MAX_COMPLETION_NUDGES, REQUIRED_WORK_WAIT_MS } from '../../shared/lead';
import { useClientAndWorker } from '../support/harness';
import { uniqueId } from '../support/temporal';
import { eventually } from '../support/teams';

const env = useClientAndWorker();

/** The runtime's notes to the Lead (delivered through its own inbox, from "lead"), by their event. */
function notes(view: LeadAgentView, event: string): Record<string, unknown>[] {
  return view.conversation
    .filter((e: ConversationEntry) => e.role === 'user' && e.from === 'lead' && typeof e.content === 'object' && e.content !== null)
    .map((e) => e.content as Record<string, unknown>)
    .filter((c) => c.event === event);
}

/** The durations (s) of the timers the Lead started. */
async function timerSeconds(team: TeamClient): Promise<number[]> {
  const history = await team.handle().fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const timeout = e.timerStartedEventAttributes?.startToFireTimeout;
    return timeout ? [Number(timeout.seconds ?? 0)] : [];
  });
}

/** A Lead that opens a task it never finishes and spawns a teammate that thinks for `thinkMs`, then answers. */
function startLead(thinkMs: number, requiredWorkWaitMs?: number): Promise<TeamClient> {
  return TeamClient.start(env.client, {
    teamId: uniqueId('team-required-work'),
    taskQueue: env.worker.taskQueue,
    agent: {
      profile: 'team',
      prompt: scriptText(
        tool('create_task', { subject: 'left open' }),
        tool('spawn_teammate', { name: 'slow', message: script(think(thinkMs)) }),
        answer('done'),
      ),
      ...(requiredWorkWaitMs !== undefined ? { requiredWorkWaitMs } : {}),
    },
  });
}

test('the Lead waits for required work: a wait for busy teammates that runs out gives the Lead a turn, outside the open-task nudge limit', async () => {
  const WAIT_MS = 2_000;
  const team = await startLead(9_000, WAIT_MS);
  await eventually(
    () => team.agentState(),
    (v) => v.status === 'waiting',
  );
  const view = await team.waitForAnswer({ timeoutMs: 120_000 });

  // Every wait that ran out became a turn with a note of who is busy; there were several, none counted.
  const busy = notes(view, 'teammates are still busy');
  expect(busy.length).toBeGreaterThanOrEqual(2);
  for (const note of busy) expect(note).toEqual({ event: 'teammates are still busy', busy: ['slow'], waitedMs: WAIT_MS });
  // Then, with the Team quiet, the open task: told exactly MAX_COMPLETION_NUDGES times, then the answer is accepted.
  const remains = notes(view, 'work remains before your final answer');
  expect(remains).toHaveLength(MAX_COMPLETION_NUDGES);
  for (const note of remains) expect(note).toMatchObject({ openTasks: [1] });
  const events = view.conversation.flatMap((e) => (e.from === 'lead' && typeof e.content === 'object' ? [(e.content as { event?: string }).event] : []));
  expect(events.lastIndexOf('teammates are still busy')).toBeLessThan(events.indexOf('work remains before your final answer'));
  expect(view.openTasksAtAnswer).toEqual([1]);
  expect(view.turns).toBe(1 + busy.length + MAX_COMPLETION_NUDGES);
  // Each of those waits was a durable timer of the configured length.
  expect((await timerSeconds(team)).filter((s) => s === WAIT_MS / 1000).length).toBeGreaterThanOrEqual(busy.length);
  await team.dispose();
});

test('the Lead waits for required work: by default up to 30 minutes, woken as soon as the busy teammate settles', async () => {
  const team = await startLead(3_000);
  await eventually(
    () => team.agentState(),
    (v) => v.status === 'waiting',
  );
  const view = await team.waitForAnswer({ timeoutMs: 120_000 });
  // The 30-minute wait was started and ended early: no busy note, then the open-task nudges.
  expect(await timerSeconds(team)).toContain(REQUIRED_WORK_WAIT_MS / 1000);
  expect(notes(view, 'teammates are still busy')).toEqual([]);
  expect(notes(view, 'work remains before your final answer')).toHaveLength(MAX_COMPLETION_NUDGES);
  expect(view.openTasksAtAnswer).toEqual([1]);
  expect(view.turns).toBe(1 + MAX_COMPLETION_NUDGES);
  await team.dispose();
});
