/**
 * No workflow task over the gRPC limit (issue 23): every Update result, echoed request and command
 * payload of a Lead's workflow task stays within COMPLETION_MAX_BYTES, and what does not fit is
 * sent from a later task, in arrival order. On the dev server with the project's
 * history.maxInFlightUpdates=128, 64 concurrent `listTasks` of ~700 kB each (45 MB in all) used to
 * get 7 answers out of 40 and fail the Lead's workflow tasks with GRPC_MESSAGE_TOO_LARGE.
 */
import { Client, Connection, WorkflowUpdateFailedError, WorkflowUpdateStage, isGrpcServiceError, makeGrpcRetryInterceptor } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  claimTaskUpdate,
  getAgentStateQuery,
  getTeamViewQuery,
  listTasksPageUpdate,
  listTasksUpdate,
  promptLeadUpdate,
  type TaskView,
} from '../../shared/contract';
import { COMPLETION_MAX_BYTES } from '../../shared/lead/completionSize';
import { jsonBytes } from '../../shared/contract/limits';
import { useClientAndWorker } from '../support/harness';
import { replayRecorded } from '../support/replay';
import { fillBoardToLimit } from '../support/largeBoard';
import { chainReport } from '../support/adversarial';
import { connectHistoryClient } from '../support/maxima';
import { eventually, newTeam } from '../support/teams';
import { TEAM_SERVER_DYNAMIC_CONFIG } from '../../scripts/serverSettings';
import { address, connectClient, eventKind } from '../support/temporal';

const env = useClientAndWorker();
let history: { client: Client; close: () => Promise<void> };
beforeAll(async () => void (history = await connectHistoryClient()));
afterAll(async () => history.close());

/** What the Lead's history shows of a burst: failed tasks, and how the results were spread. */
async function burstReport(teamId: string, runId: string, fromEvent: number) {
  const events = ((await history.client.workflow.getHandle(teamId, runId).fetchHistory()).events ?? []).slice(fromEvent);
  const kinds = events.map(eventKind);
  const count = (kind: string): number => kinds.filter((k) => k === kind).length;
  // A result is deferred when a workflow task completed between its acceptance and its completion.
  const taskCompletedAt = events.filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => Number(e.eventId));
  const acceptedAt = new Map(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).map((e) => [Number(e.eventId), Number(e.eventId)]));
  const completions = events.filter((e) => e.workflowExecutionUpdateCompletedEventAttributes);
  const deferred = completions.filter((e) => {
    const accepted = acceptedAt.get(Number(e.workflowExecutionUpdateCompletedEventAttributes!.acceptedEventId));
    return accepted !== undefined && taskCompletedAt.some((at) => at > accepted && at < Number(e.eventId));
  }).length;
  // The cost of deferral: each nudge's two signal events (initiated, refused), and the workflow task it forces.
  const nudges = events.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'completionNudge').length;
  const deferralEvents = 5 * nudges;
  const at = (e: (typeof events)[number]): number => Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
  const spans = (from: string, to: string): number[] => {
    const out: number[] = [];
    events.forEach((e, i) => {
      if (!(e as Record<string, unknown>)[from]) return;
      const next = events.slice(i + 1).find((n) => (n as Record<string, unknown>)[to]);
      if (next) out.push(at(next) - at(e));
    });
    return out.sort((a, b) => a - b);
  };
  const median = (values: number[]): number => values[Math.floor(values.length / 2)] ?? 0;
  const kindCounts: Record<string, number> = {};
  for (const kind of kinds) kindCounts[kind] = (kindCounts[kind] ?? 0) + 1;
  return {
    kindCounts,
    burstMs: events.length > 0 ? at(events[events.length - 1]!) - at(events[0]!) : 0,
    medianTaskMs: median(spans('workflowTaskStartedEventAttributes', 'workflowTaskCompletedEventAttributes')),
    medianScheduleToStartMs: median(spans('workflowTaskScheduledEventAttributes', 'workflowTaskStartedEventAttributes')),
    nudges,
    failedTasks: count('workflowTaskFailedEventAttributes'),
    completed: completions.length,
    deferred,
    workflowTasks: count('workflowTaskCompletedEventAttributes'),
    deferralEvents,
    eventsPerDeferredResult: deferred === 0 ? 0 : Math.round((deferralEvents / deferred) * 100) / 100,
    completedOrder: completions.map((e) => Number(e.workflowExecutionUpdateCompletedEventAttributes!.acceptedEventId)),
  };
}

/** Replays the Lead's history against the workflow code, as a restarted worker would: deferral must be deterministic. */
const replay = (teamId: string, runId: string): Promise<void> => replayRecorded(history.client, teamId, runId);

test('64 concurrent listTasks on a board at its size limit: 64 answered, 0 failed workflow tasks, in arrival order', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  const { tasks, listBytes } = await fillBoardToLimit(team);
  expect(listBytes).toBeGreaterThan(600_000);
  // The burst may make the server suggest continue-as-new: the report reads the run it began in.
  const { runId } = await env.client.workflow.getHandle(team.teamId).describe();
  const before = ((await history.client.workflow.getHandle(team.teamId, runId).fetchHistory()).events ?? []).length;

  const connections = await Promise.all(Array.from({ length: 4 }, () => connectClient()));
  try {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 64 }, (_, i) =>
        connections[i % 4]!.client.workflow.getHandle(team.teamId).executeUpdate(listTasksUpdate, { args: [{ caller: 'lead' }] }),
      ),
    );
    const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => String(o.reason).slice(0, 300));
    expect(failures).toEqual([]);
    for (const outcome of outcomes) expect((outcome as PromiseFulfilledResult<unknown[]>).value).toHaveLength(tasks);
  } finally {
    await Promise.all(connections.map((c) => c.close()));
  }

  const report = await burstReport(team.teamId, runId, before);
  console.log(JSON.stringify({ listBytes, tasks, completionMaxBytes: COMPLETION_MAX_BYTES, ...report, completedOrder: undefined }));
  expect(report.failedTasks).toBe(0);
  expect(report.completed).toBe(64);
  // Two results fit one completion at most: the rest were sent from later tasks.
  expect(report.deferred).toBeGreaterThanOrEqual(64 - 2 * report.workflowTasks);
  expect(report.deferred).toBeGreaterThan(0);
  // Arrival order: results complete in the order their Updates were accepted.
  expect(report.completedOrder).toEqual([...report.completedOrder].sort((a, b) => a - b));
  expect(await env.client.workflow.getHandle(team.teamId).describe()).toMatchObject({ status: { name: 'RUNNING' } });
  // A worker that picks the Lead up after a restart replays the burst exactly.
  await replay(team.teamId, runId);
}, 300_000);

test('a deferred read answers with the board as of its own completion', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  await fillBoardToLimit(team);
  const handle = env.client.workflow.getHandle(team.teamId);
  const firstRunId = (await handle.describe()).runId;
  /** One round: twelve lists, then a claim of `taskId`; returns how many lists were accepted before the claim and sent after it. */
  const round = async (taskId: number): Promise<{ acceptedBeforeSentAfter: number; listBytes: number }> => {
    const { runId } = await handle.describe();
    // Twelve lists take six completions; the claim, sent once all are accepted, is accepted while most still wait.
    const listIds = Array.from({ length: 12 }, (_, i) => `${team.teamId}-round-${taskId}-list-${i}`);
    const claimId = `${team.teamId}-round-${taskId}-claim`;
    const accepted = await Promise.all(
      listIds.map((updateId) => handle.startUpdate(listTasksUpdate, { args: [{ caller: 'lead' }], updateId, waitForStage: WorkflowUpdateStage.ACCEPTED })),
    );
    const lists = accepted.map((update) => update.result());
    const claim = handle.executeUpdate(claimTaskUpdate, { args: [{ caller: 'lead', taskId, expectedRevision: 1 }], updateId: claimId });
    const [results, claimed] = await Promise.all([Promise.all(lists), claim]);
    expect(claimed.task.revision).toBe(2);
    const ownerIn = (list: TaskView[]): string | null => list.find((t) => t.id === taskId)?.owner ?? null;

    // The lists can make the server suggest continue-as-new: read the run they began in and, if it rolled over, the next.
    const latest = (await handle.describe()).runId;
    const runs = latest === runId ? [runId] : [runId, latest];
    const events = (await Promise.all(runs.map(async (id) => (await history.client.workflow.getHandle(team.teamId, id).fetchHistory()).events ?? []))).flat();
    // Positions in the chain (event ids start again in each run).
    const eventOf = (updateId: string, kind: 'accepted' | 'completed'): number =>
      events.findIndex((e) =>
        kind === 'accepted'
          ? e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId === updateId
          : e.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId === updateId,
      );
    // Which workflow task an event was written by: results and acceptances of one task share its order of processing.
    const taskCompletions = events.flatMap((e, at) => (e.workflowTaskCompletedEventAttributes ? [at] : []));
    const taskOf = (position: number): number => taskCompletions.filter((at) => at < position).length;
    const claimAccepted = eventOf(claimId, 'accepted');
    expect(claimAccepted).toBeGreaterThan(0);
    const claimTask = taskOf(claimAccepted);
    let acceptedBeforeSentAfter = 0;
    listIds.forEach((updateId, i) => {
      const sent = taskOf(eventOf(updateId, 'completed'));
      const owner = ownerIn(results[i]!);
      // Sent by a task before the claim's: the board before it; after: with it, even when accepted before it.
      if (sent < claimTask) expect({ updateId, owner }).toEqual({ updateId, owner: null });
      if (sent > claimTask) expect({ updateId, owner }).toEqual({ updateId, owner: 'lead' });
      // Accepted before the claim (its handler ran first, so its first result had no owner), sent after it.
      if (eventOf(updateId, 'accepted') < claimAccepted && sent > claimTask) acceptedBeforeSentAfter += 1;
    });
    return { acceptedBeforeSentAfter, listBytes: jsonBytes(results[0]) };
  };
  // When the claim happens to arrive after every list was sent, nothing was deferred past it: go again on another task.
  let acceptedBeforeSentAfter = 0;
  for (let taskId = 1; taskId <= 4 && acceptedBeforeSentAfter === 0; taskId++) {
    const outcome = await round(taskId);
    expect(outcome.listBytes).toBeGreaterThan(600_000);
    acceptedBeforeSentAfter = outcome.acceptedBeforeSentAfter;
  }
  expect(acceptedBeforeSentAfter).toBeGreaterThan(0);
  const report = await burstReport(team.teamId, firstRunId, 0);
  expect(report.deferred).toBeGreaterThan(0);
  expect(report.failedTasks).toBe(0);
  // A worker that picks the Lead up after a restart replays the deferral exactly.
  await replay(team.teamId, firstRunId);
}, 300_000);

/** The payload bytes each workflow-task completion of one run wrote: the events after each WorkflowTaskCompleted, up to the next task. */
function completionPayloadBytes(events: object[]): number[] {
  const bytesIn = (value: unknown): number => {
    if (value instanceof Uint8Array) return value.length;
    if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + bytesIn(item), 0);
    if (value !== null && typeof value === 'object') return Object.values(value).reduce((sum: number, item) => sum + bytesIn(item), 0);
    return 0;
  };
  const completions: number[] = [];
  let current: number | null = null;
  for (const event of events) {
    const kind = eventKind(event);
    if (kind === 'workflowTaskCompletedEventAttributes') current = completions.push(0) - 1;
    else if (kind.startsWith('workflowTask')) current = null;
    else if (current !== null) completions[current]! += bytesIn(event);
  }
  return completions;
}

test('64 concurrent listTasks during a Lead agent turn whose model-call input is at its limit: all answered, every completion within the limit', async () => {
  const { TeamClient } = await import('../../client/teamClient');
  const { answer, scriptText, think } = await import('../../activities/providers/scriptedModelScript');
  const { MAX_MESSAGE_BYTES, PROMPT_MAX_BYTES } = await import('../../shared/contract/limits');
  const team = await TeamClient.start(env.client, {
    teamId: `completion-budget-turn-${Date.now()}`,
    taskQueue: env.worker.taskQueue,
    agent: { profile: 'team', prompt: scriptText(answer('ready')) },
  });
  const first = await team.waitForAnswer({ timeoutMs: 60_000 });
  expect(first.finalAnswer).toBe('ready');
  /** A prompt of about `bytes` (at most MAX_MESSAGE_BYTES) of three-byte characters, carrying its script. */
  const bigPrompt = (text: string, bytes = MAX_MESSAGE_BYTES - 256): string => {
    const steps = JSON.parse(scriptText(answer(text))) as { script: unknown[] };
    const room = Math.floor((bytes - jsonBytes(JSON.stringify({ script: steps.script, pad: '' }))) / 3);
    return JSON.stringify({ script: steps.script, pad: '€'.repeat(room) });
  };
  // The board at its size limit, every task completed: with none open, the Lead answers without nudges of its own.
  const { tasks } = await fillBoardToLimit(team);
  for (const task of await team.listTasks()) {
    const claimed = await team.claimTask({ taskId: task.id, expectedRevision: task.revision });
    await team.transitionTask({ taskId: task.id, expectedRevision: claimed.task.revision, status: 'completed' });
  }
  const handle = env.client.workflow.getHandle(team.teamId);
  const runEvents = async (id: string) => (await history.client.workflow.getHandle(team.teamId, id).fetchHistory()).events ?? [];
  const callModelInputs = (events: Awaited<ReturnType<typeof runEvents>>) =>
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
      .map((e) => (e.activityTaskScheduledEventAttributes!.input?.payloads ?? []).reduce((sum, p) => sum + (p.data?.length ?? 0), 0));

  /**
   * One attempt: a fresh run; three large prompts taken by one turn (the conversation then holds
   * about 720 kB); then a fourth, taking the next model call's input just under PROMPT_MAX_BYTES
   * (prompts are fitted by whole turns: going over would drop the oldest), sent at the same moment
   * as the 64 lists. The burst's 45 MB makes the server suggest continue-as-new after its first
   * tasks; when that comes before the fourth prompt (refused as TeamRollingOver and retried in the
   * next run, where the conversation is compacted), its model call is not at its size limit, and the
   * attempt is made again. Every attempt must answer all 64 with every completion within the limit.
   */
  const attempt = async (n: number) => {
    // One list at a time until the run rolls over, so at most one lands in the new run.
    const rolledBefore = (await team.runInfo()).continuedRuns;
    while ((await team.runInfo()).continuedRuns === rolledBefore) await team.listTasks();
    const { runId } = await handle.describe();
    // The three prompts queue while the Lead thinks, so one model call (not three) takes them: less history before the burst.
    const thinking = await team.promptLead(scriptText(think(3_000), answer(`thought ${n}`)));
    await eventually(
      () => team.handle().query(getAgentStateQuery),
      (state) => state.status === 'running',
      30_000,
    );
    const queued: string[] = [];
    for (const bytes of [190_000, undefined, undefined]) queued.push((await team.promptLead(bigPrompt(`filled ${n}`, bytes))).messageId);
    await eventually(
      () => team.handle().query(getAgentStateQuery),
      (state) => state.status === 'answered' && queued.every((id) => state.conversation.some((entry) => entry.messageId === id)),
      60_000,
    );
    expect(thinking.messageId).toBeDefined();
    expect((await handle.describe()).runId).toBe(runId); // no continue-as-new compacted the conversation yet
    const before = (await runEvents(runId)).length;
    const connections = await Promise.all(Array.from({ length: 4 }, () => connectClient()));
    const reply = `answered amid the lists ${n}`;
    const messageId = `${team.teamId}-amid-${n}`;
    try {
      const prompt = connections[0]!.client.workflow
        .getHandle(team.teamId)
        .executeUpdate(promptLeadUpdate, { args: [{ caller: 'lead', content: bigPrompt(reply), messageId }], updateId: messageId })
        .catch(() => team.promptLead(bigPrompt(reply), messageId)); // refused while rolling over: the client's retry
      const lists = Array.from({ length: 64 }, (_, i) =>
        connections[i % 4]!.client.workflow.getHandle(team.teamId).executeUpdate(listTasksUpdate, { args: [{ caller: 'lead' }] }),
      );
      const outcomes = await Promise.allSettled(lists);
      const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => String(o.reason).slice(0, 300));
      expect(failures).toEqual([]);
      for (const outcome of outcomes) expect((outcome as PromiseFulfilledResult<unknown[]>).value).toHaveLength(tasks);
      await prompt;
      // Its turn ran: the model's reply to it is in the conversation.
      await eventually(
        () => team.handle().query(getAgentStateQuery),
        (state) => state.conversation.some((entry) => entry.role === 'assistant' && entry.content === reply),
        120_000,
      );
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
    // Every run the burst touched (it makes the server suggest continue-as-new).
    const latest = (await handle.describe()).runId;
    const inBurstRun = (await runEvents(runId)).slice(before);
    // Run by run: the next run's WorkflowExecutionStarted carries the continue-as-new input again,
    // and it is no completion's (counted across the boundary it was counted twice).
    const completions = [...completionPayloadBytes(inBurstRun), ...(latest === runId ? [] : completionPayloadBytes(await runEvents(latest)))];
    const report = await burstReport(team.teamId, runId, before);
    const outcome = { modelInputs: callModelInputs(inBurstRun), maxCompletionBytes: Math.max(...completions), ...report };
    console.log(JSON.stringify({ attempt: n, ...outcome, completedOrder: undefined, kindCounts: undefined }));
    expect(report.failedTasks).toBe(0);
    expect(report.deferred).toBeGreaterThan(0);
    expect(outcome.maxCompletionBytes).toBeLessThanOrEqual(COMPLETION_MAX_BYTES);
    return { runId, atLimit: outcome.modelInputs.some((bytes) => bytes > 0.9 * PROMPT_MAX_BYTES) };
  };

  let outcome = await attempt(1);
  for (let n = 2; n <= 3 && !outcome.atLimit; n++) outcome = await attempt(n);
  expect(outcome.atLimit).toBe(true);
  const chain = await chainReport(history.client, team.teamId);
  expect({ failedWorkflowTasks: chain.failedWorkflowTasks, terminated: chain.terminatedRuns }).toEqual({ failedWorkflowTasks: 0, terminated: 0 });
  expect(await handle.describe()).toMatchObject({ status: { name: 'RUNNING' } });
  await replay(team.teamId, outcome.runId);
}, 300_000);

test('listTasksPage reads a board at its size limit in pages within their maxBytes, and 64 concurrent pages share completions', async () => {
  const { LIST_PAGE_DEFAULT_BYTES } = await import('../../shared/contract/requests');
  const team = await newTeam(env.client, env.worker.taskQueue);
  const { tasks } = await fillBoardToLimit(team);
  const handle = env.client.workflow.getHandle(team.teamId);
  const whole = await handle.executeUpdate(listTasksUpdate, { args: [{ caller: 'lead' }] });
  const read: TaskView[] = [];
  const pageBytes: number[] = [];
  for (let after = 0, pages = 0; ; pages++) {
    expect(pages).toBeLessThan(tasks);
    const page = await handle.executeUpdate(listTasksPageUpdate, { args: [{ caller: 'lead', after }] });
    pageBytes.push(jsonBytes(page.tasks));
    read.push(...page.tasks);
    if (page.nextAfter === null) break;
    after = page.nextAfter;
  }
  expect(read).toEqual(whole);
  // The client's method reads the same pages.
  const second = await team.listTasksPage({ after: read[0]!.id, maxBytes: 100_000 });
  expect(second.tasks[0]?.id).toBe(read[1]!.id);
  expect(jsonBytes(second.tasks)).toBeLessThanOrEqual(100_000);
  expect(pageBytes.length).toBeGreaterThanOrEqual(3);
  for (const bytes of pageBytes) expect(bytes).toBeLessThanOrEqual(LIST_PAGE_DEFAULT_BYTES);
  // A maxBytes past the maximum is a typed refusal, not a larger page.
  await expect(handle.executeUpdate(listTasksPageUpdate, { args: [{ caller: 'lead', maxBytes: 750_001 }] })).rejects.toMatchObject({
    cause: { type: 'InvalidTeamCommand' },
  });

  const { runId } = await handle.describe();
  const before = ((await history.client.workflow.getHandle(team.teamId, runId).fetchHistory()).events ?? []).length;
  const connections = await Promise.all(Array.from({ length: 4 }, () => connectClient()));
  try {
    const pages = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        connections[i % 4]!.client.workflow.getHandle(team.teamId).executeUpdate(listTasksPageUpdate, { args: [{ caller: 'lead' }] }),
      ),
    );
    for (const page of pages) expect(page.tasks.map((t) => t.id)).toEqual(read.slice(0, page.tasks.length).map((t) => t.id));
  } finally {
    await Promise.all(connections.map((c) => c.close()));
  }
  const report = await burstReport(team.teamId, runId, before);
  console.log(JSON.stringify({ pageBytes, ...report, completedOrder: undefined, kindCounts: undefined }));
  expect(report.failedTasks).toBe(0);
  expect(report.completed).toBe(64);
  // A page is at most a sixth of a completion's size limit: five or more share one, where whole lists go two by two.
  expect(report.workflowTasks).toBeLessThanOrEqual(Math.ceil(64 / 5) + 2);
}, 300_000);

/**
 * The worst case the completion limit cannot count (issue 23): what rides in a completion beside the Lead's
 * own items. The echoes of rejected requests are bounded only by the server's in-flight payload
 * setting, and a task can carry the answer to one buffered query. So, at once: 64 whole lists on a
 * board at its size limit (results two per task, about 1.43 MB), hostile requests of 240 kB that the
 * validator rejects, as many at a time as the in-flight setting admits, and a stream of
 * `getTeamView` queries (about 716 kB each answer).
 */
test('64 lists amid rejected 240 kB requests filling the in-flight limit and whole-board queries: all answered, 0 failed workflow tasks', async () => {
  const inFlightBytes = TEAM_SERVER_DYNAMIC_CONFIG['history.maxInFlightUpdatePayloads']!;
  const team = await newTeam(env.client, env.worker.taskQueue);
  const { tasks } = await fillBoardToLimit(team);
  const handle = env.client.workflow.getHandle(team.teamId);
  const { runId } = await handle.describe();
  const before = ((await history.client.workflow.getHandle(team.teamId, runId).fetchHistory()).events ?? []).length;
  expect(jsonBytes(await handle.query(getTeamViewQuery))).toBeGreaterThan(600_000);

  const connections = await Promise.all(Array.from({ length: 4 }, () => connectClient()));
  const hostile = { caller: 'lead', taskId: 'x'.repeat(240_000), expectedRevision: 1 };
  // As many hostile requests in flight as fit beside the 64 small ones.
  const floods = Math.floor((inFlightBytes - 50_000) / 245_000);
  const tally = { floods, rejected: 0, other: [] as string[], queries: 0, queryBytes: 0, queryErrors: [] as string[] };
  let done = false;
  const floodLoop = async (n: number): Promise<void> => {
    while (!done) {
      try {
        await connections[n % 4]!.client.workflow.getHandle(team.teamId).executeUpdate('claimTask', { args: [hostile] });
        tally.other.push('a hostile claim was accepted');
      } catch (error) {
        const cause = error instanceof Error ? error.cause : undefined;
        if (error instanceof WorkflowUpdateFailedError && cause instanceof ApplicationFailure && cause.type === 'InvalidTeamCommand') tally.rejected += 1;
        else tally.other.push(`${String(error)} (${cause instanceof Error ? cause.message : ''})`.slice(0, 200));
      }
    }
  };
  const queryLoop = async (): Promise<void> => {
    while (!done) {
      try {
        const view = await connections[0]!.client.workflow.getHandle(team.teamId).query(getTeamViewQuery);
        tally.queries += 1;
        tally.queryBytes = Math.max(tally.queryBytes, jsonBytes(view));
      } catch (error) {
        tally.queryErrors.push(String(error instanceof Error && error.cause instanceof Error ? error.cause.message : error).slice(0, 200));
      }
    }
  };
  let failures: string[] = [];
  try {
    const loops = [...Array.from({ length: floods }, (_, n) => floodLoop(n)), queryLoop(), queryLoop()];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 64 }, (_, i) =>
        connections[i % 4]!.client.workflow.getHandle(team.teamId).executeUpdate(listTasksUpdate, { args: [{ caller: 'lead' }] }),
      ),
    );
    done = true;
    await Promise.all(loops);
    failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => String(o.reason).slice(0, 300));
    for (const outcome of outcomes) if (outcome.status === 'fulfilled') expect(outcome.value).toHaveLength(tasks);
  } finally {
    done = true;
    await Promise.all(connections.map((c) => c.close()));
  }
  const report = await burstReport(team.teamId, runId, before);
  const chain = await chainReport(history.client, team.teamId);
  const summary = { inFlightBytes, ...tally, other: tally.other.slice(0, 3), queryErrors: tally.queryErrors.slice(0, 3), failures: failures.slice(0, 3) };
  console.log(JSON.stringify({ ...summary, ...report, completedOrder: undefined, kindCounts: undefined }));
  expect(failures).toEqual([]);
  expect(tally.other).toEqual([]);
  expect(tally.queryErrors).toEqual([]);
  // The flood reached the validator throughout the burst, and the queries were answered.
  expect(tally.rejected).toBeGreaterThan(10);
  expect(tally.queries).toBeGreaterThan(0);
  expect(report.failedTasks).toBe(0);
  expect(report.completed).toBe(64);
  expect({ failedWorkflowTasks: chain.failedWorkflowTasks, terminated: chain.terminatedRuns }).toEqual({ failedWorkflowTasks: 0, terminated: 0 });
  expect(await handle.describe()).toMatchObject({ status: { name: 'RUNNING' } });
  // The rejected requests left no trace in history, and the replay decides exactly as the run did.
  await replay(team.teamId, runId);
}, 300_000);

/**
 * Past the limit: the server refuses an Update that does not fit in flight with RESOURCE_EXHAUSTED,
 * and on any such refusal it also drops the workflow's in-memory state (go.temporal.io/server
 * v1.29.1, service/history/workflow/cache/cache.go: the lease's release clears the context on any
 * error of the Update's action). That aborts every Update in flight ("workflow update was aborted",
 * UNAVAILABLE, which the SDK retries) and loses a speculative workflow task. So a caller that keeps
 * sending requests that do not fit stalls the Team while it does so. What must hold: no workflow task
 * fails, no run ends, and the Team serves again as soon as the flood stops.
 */
test('a flood of requests past the in-flight limit stalls the Lead without failing it, and it serves again when the flood stops', async () => {
  const team = await newTeam(env.client, env.worker.taskQueue);
  const { tasks } = await fillBoardToLimit(team);
  const handle = env.client.workflow.getHandle(team.teamId);
  // The flood's own connection does not retry: each refusal comes back at once and the loop sends again.
  const floodConnection = await Connection.connect({
    address: address(),
    interceptors: [makeGrpcRetryInterceptor({ retryableDecider: () => false, delayFunction: () => 0 })],
  });
  const flood = new Client({ connection: floodConnection });
  const hostile = { caller: 'lead', taskId: 'x'.repeat(400_000), expectedRevision: 1 };
  const tally = { rejected: 0, refusedInFlight: 0, aborted: 0, other: [] as string[] };
  let done = false;
  const floodLoop = async (): Promise<void> => {
    while (!done) {
      try {
        await flood.workflow.getHandle(team.teamId).executeUpdate('claimTask', { args: [hostile] });
        tally.other.push('a hostile claim was accepted');
      } catch (error) {
        const cause = error instanceof Error ? error.cause : undefined;
        if (error instanceof WorkflowUpdateFailedError && cause instanceof ApplicationFailure && cause.type === 'InvalidTeamCommand') tally.rejected += 1;
        else if (cause !== undefined && isGrpcServiceError(cause) && /in-flight updates/.test(cause.details)) tally.refusedInFlight += 1;
        else if (cause !== undefined && isGrpcServiceError(cause) && /update was aborted/.test(cause.details)) tally.aborted += 1;
        else tally.other.push(String(error).slice(0, 200));
      }
    }
  };
  try {
    const loops = Array.from({ length: 8 }, floodLoop);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    done = true;
    await Promise.all(loops);
  } finally {
    done = true;
    await floodConnection.close();
  }
  console.log(JSON.stringify({ ...tally, other: tally.other.slice(0, 3) }));
  expect(tally.other).toEqual([]);
  expect(tally.refusedInFlight).toBeGreaterThan(0);
  // Served again: a read and a mutation, through the client.
  expect(await team.listTasks()).toHaveLength(tasks);
  const claimed = await team.claimTask({ taskId: 1, expectedRevision: 1 });
  expect(claimed.task.owner).toBe('lead');
  const chain = await chainReport(history.client, team.teamId);
  expect({ failedWorkflowTasks: chain.failedWorkflowTasks, terminated: chain.terminatedRuns }).toEqual({ failedWorkflowTasks: 0, terminated: 0 });
  expect(await handle.describe()).toMatchObject({ status: { name: 'RUNNING' } });
}, 300_000);
