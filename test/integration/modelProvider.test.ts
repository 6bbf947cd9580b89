/**
 * A Lead agent on the OpenAI-compatible provider, against a local HTTP server that speaks the
 * chat-completions API, on the real Temporal server: the request carries the Team policy and
 * catalog, tool calls are dispatched, malformed tool-call JSON goes back to the model as a tool
 * error, a 429 is retried by Temporal's activity retry (honouring retry-after), a failing server
 * gets exactly one HTTP request per activity attempt (Temporal is the only retry layer), a
 * retry-after over the cap fails the turn at once, and an auth failure is not retried and fails the
 * turn with a message that says what to do. No retry after a failed attempt counts as a lost answer.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LostAnswerTags } from '../../activities/lostAnswers';
import { createModelActivities, MODEL_RETRY_AFTER_TOO_LONG_TYPE } from '../../activities/modelCall';
import { createOpenAICompatibleProvider } from '../../activities/providers/openaiCompatible';
import { LEAD_TURN_FAILED, TeamClient } from '../../client/teamClient';
import { connectClient, startWorker, uniqueId, type RunningWorker } from '../support/temporal';
import { rejectionOf, toolResult } from '../support/teams';
import type { Client } from '@temporalio/client';
import { toolSpecsFor } from '../../shared/agent/profiles';

interface WireRequest {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: unknown[] }[];
  tools?: { function: { name: string } }[];
}

const requests: WireRequest[] = [];
let flaked = false;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const request = JSON.parse(body) as WireRequest;
    requests.push(request);
    const reply = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    if (request.model === 'deny') return reply(401, { error: { message: 'invalid api key' } });
    if (request.model === 'down') return reply(503, { error: { message: 'overloaded' } }, { 'retry-after-ms': '100' });
    if (request.model === 'quota') return reply(429, { error: { message: 'daily quota exhausted' } }, { 'retry-after': '7200' });
    if (request.model === 'flaky' && !flaked) {
      flaked = true;
      return reply(429, { error: { message: 'slow down' } }, { 'retry-after-ms': '200' });
    }
    const toolResults = request.messages.filter((m) => m.role === 'tool').length;
    const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });
    const message =
      toolResults === 0
        ? { role: 'assistant', content: null, tool_calls: [call('c1', 'create_task', '{"subject":"from a chat-completions model"}')] }
        : toolResults === 1
          ? { role: 'assistant', content: null, tool_calls: [call('c2', 'create_task', '{"subject": ')] }
          : { role: 'assistant', content: 'planned one task' };
    reply(200, {
      id: 'x',
      choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    });
  });
});

/** Attempts the callModel activity counted as lost (activities/lostAnswers.ts): every retry here follows an attempt that failed with an outcome. */
const lostAnswers: LostAnswerTags[] = [];
let client: Client;
let closeClient: () => Promise<void>;
let worker: RunningWorker;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  // The provider makes one HTTP request per call: a 429 surfaces as a retryable ModelCallError and Temporal retries the activity.
  const modelProvider = createOpenAICompatibleProvider({ baseUrl, apiKey: 'test-key', model: 'flaky' });
  // The project's callModel over the same provider, with its lost-answer counter recorded here.
  const { callModel } = createModelActivities({ provider: modelProvider, toolsFor: toolSpecsFor, countLostAnswer: (tags) => lostAnswers.push(tags) });
  worker = await startWorker(uniqueId('tq-model'), { modelProvider, extraActivities: { callModel } });
  ({ client, close: closeClient } = await connectClient());
});
afterAll(async () => {
  await worker.stop();
  await closeClient();
  await new Promise((resolve) => server.close(resolve));
});

async function startLead(model: string): Promise<TeamClient> {
  const teamId = uniqueId('model-team');
  return TeamClient.start(client, { teamId, taskQueue: worker.taskQueue, agent: { prompt: 'Plan the parser work.', profile: 'team', model } });
}

test('a chat-completions model drives the Lead: catalog and policy sent, tools dispatched, malformed JSON answered, 429 retried by Temporal', async () => {
  const team = await startLead('flaky');
  const view = await team.waitForAnswer({ timeoutMs: 60_000 });
  expect(view.finalAnswer).toBe('planned one task');
  expect((await team.view()).tasks.map((t) => t.subject)).toEqual(['from a chat-completions model']);
  const results = view.conversation.filter((e) => e.role === 'tool').map((e) => [e.toolName, e.ok, toolResult(e)]);
  expect(results[0]).toEqual(['create_task', true, expect.objectContaining({ task: expect.objectContaining({ id: 1 }) })]);
  expect(results[1]).toEqual(['create_task', false, expect.objectContaining({ error: 'InvalidToolArguments' })]);

  const first = requests.find((r) => r.model === 'flaky')!;
  expect(first.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Agent Team') });
  expect(first.messages[1]).toMatchObject({ role: 'user', content: expect.stringContaining('Plan the parser work.') });
  expect(first.tools?.map((t) => t.function.name)).toEqual(expect.arrayContaining(['spawn_teammate', 'send_message', 'claim_task', 'wait_agent', 'read_file']));

  // The rate-limited call was retried by Temporal: its activity started a second attempt.
  const history = await team.handle().fetchHistory();
  const attempts = (history.events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : []));
  expect(attempts[0]).toBe(2);
  // Temporal records only the final attempt of a retried activity: no failure event, attempt 2 started.
  expect((history.events ?? []).filter((e) => e.activityTaskFailedEventAttributes)).toHaveLength(0);
  // One HTTP request per attempt: history records each model call's last attempt, so the attempts sum to the requests.
  const callModelScheduled = new Set(
    (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').map((e) => String(e.eventId)),
  );
  const callModelAttempts = (history.events ?? []).flatMap((e) =>
    e.activityTaskStartedEventAttributes && callModelScheduled.has(String(e.activityTaskStartedEventAttributes.scheduledEventId))
      ? [e.activityTaskStartedEventAttributes.attempt ?? 0]
      : [],
  );
  expect(callModelAttempts.length).toBeGreaterThanOrEqual(3);
  expect(callModelAttempts.reduce((sum, attempt) => sum + attempt, 0)).toBe(requests.filter((r) => r.model === 'flaky').length);
  // The model call is bounded as a whole: schedule-to-close 30 minutes over 8 attempts of at most 10 minutes each.
  const scheduled = (history.events ?? []).find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes;
  expect(scheduled?.activityType?.name).toBe('callModel');
  expect(Number(scheduled?.scheduleToCloseTimeout?.seconds)).toBe(30 * 60);
  expect(Number(scheduled?.startToCloseTimeout?.seconds)).toBe(10 * 60);
  expect(scheduled?.retryPolicy?.maximumAttempts).toBe(8);
  await team.dispose();
});

test('an auth failure is not retried: the turn fails with a message that says what to do, and the Team stays usable', async () => {
  const team = await startLead('deny');
  const failure = await rejectionOf(team.waitForAnswer({ timeoutMs: 60_000 }));
  expect(failure.type).toBe(LEAD_TURN_FAILED);
  expect(failure.message).toMatch(/MODEL_API_KEY|auth/i);
  const view = await team.agentState();
  expect(view.status).toBe('failed');
  const history = await team.handle().fetchHistory();
  const started = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes);
  expect(started.map((e) => e.activityTaskStartedEventAttributes?.attempt)).toEqual([1]);
  const failed = (history.events ?? []).find((e) => e.activityTaskFailedEventAttributes)?.activityTaskFailedEventAttributes?.failure;
  expect(failed?.cause?.applicationFailureInfo?.type ?? failed?.applicationFailureInfo?.type).toBe('ModelAuthFailed');
  // The board still works: the failure was the model's, not the Team's.
  expect((await team.createTask({ subject: 'by hand' })).task.id).toBe(1);
  await team.dispose();
});

test('a server failing with 503 gets exactly one HTTP request per activity attempt, until the retry policy gives up', async () => {
  const team = await startLead('down');
  const failure = await rejectionOf(team.waitForAnswer({ timeoutMs: 60_000 }));
  expect(failure.type).toBe(LEAD_TURN_FAILED);
  expect(failure.message).toContain('overloaded');
  const history = await team.handle().fetchHistory();
  const events = history.events ?? [];
  const started = events.flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : []));
  // Only the last attempt is recorded: the 8th (retry-after-ms 100 set each delay).
  expect(started).toEqual([8]);
  expect(requests.filter((r) => r.model === 'down')).toHaveLength(8);
  const failed = events.find((e) => e.activityTaskFailedEventAttributes)?.activityTaskFailedEventAttributes;
  const info = failed?.failure?.applicationFailureInfo ?? failed?.failure?.cause?.applicationFailureInfo;
  expect(info?.type).toBe('ModelServerError');
  expect(info?.nonRetryable).toBeFalsy();
  // Seven retries, each after an attempt whose failure carried its last heartbeat ("failed"): none counted as a lost answer.
  expect(lostAnswers).toEqual([]);
  await team.dispose();
});

test('a retry-after over the 5-minute cap fails the turn at once with ModelRetryAfterTooLong, after one HTTP request', async () => {
  const team = await startLead('quota');
  const failure = await rejectionOf(team.waitForAnswer({ timeoutMs: 60_000 }));
  expect(failure.type).toBe(LEAD_TURN_FAILED);
  expect(failure.message).toContain('daily quota exhausted');
  expect(failure.message).toMatch(/prompt again .*raise the provider's quota/);
  expect((await team.agentState()).status).toBe('failed');
  const history = await team.handle().fetchHistory();
  const events = history.events ?? [];
  expect(events.flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : []))).toEqual([1]);
  expect(requests.filter((r) => r.model === 'quota')).toHaveLength(1);
  const failed = events.find((e) => e.activityTaskFailedEventAttributes)?.activityTaskFailedEventAttributes?.failure;
  const info = failed?.applicationFailureInfo ?? failed?.cause?.applicationFailureInfo;
  expect(info?.type).toBe(MODEL_RETRY_AFTER_TOO_LONG_TYPE);
  expect(info?.nonRetryable).toBe(true);
  await team.dispose();
});
