/**
 * The model-call activity: failure mapping (pure), and runs in MockActivityEnvironment (an
 * in-process mock of the activity context only; workflows run against a real server elsewhere).
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import {
  createModelActivities,
  MODEL_FAILURE_TYPES,
  MODEL_RETRY_AFTER_CAP_MS,
  MODEL_RETRY_AFTER_TOO_LONG_TYPE,
  toActivityFailure,
} from '../../activities/modelCall';
import type { CallModelInput } from '../../shared/contract';
import { createScriptedModel } from '../../activities/providers/scriptedModel';
import { ScriptExhaustedError } from '../../activities/providers/scriptExhausted';
import { ATTEMPT_FAILED, AWAITING_ANSWER, type LostAnswerTags, lostAnswerTags } from '../../activities/lostAnswers';
import { createScriptedProvider, scriptedText } from '../support/scriptedProvider';
import { renderInboxMessage } from '../../shared/agent/transcript';
import type { JsonValue } from '../../shared/contract/json';
import { jsonBytes, PAYLOAD_MAX_BYTES } from '../../shared/contract/limits';
import { MODEL_ERROR_KINDS, ModelCallError, type ModelProvider, type ModelRequest, type ModelResponse, type ToolSpec } from '../../shared/contract/model';

const sendTool: ToolSpec = { name: 'send_message', description: 'Send a message.', parameters: { type: 'object' } };

function toolsFor(toolset: string): ToolSpec[] {
  if (toolset === 'member') return [sendTool];
  throw new Error(`unknown toolset ${toolset}`);
}

function newEnv(): MockActivityEnvironment {
  // Quiet: failing activities are expected here.
  return new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
}

function failingProvider(error: Error): ModelProvider {
  return { complete: () => Promise.reject(error) };
}

const input: CallModelInput = { model: null, toolset: 'member', messages: [{ role: 'user', content: 'hello' }] };

describe('toActivityFailure', () => {
  test('every error kind has a failure type', () => {
    expect(Object.keys(MODEL_FAILURE_TYPES).sort()).toEqual([...MODEL_ERROR_KINDS].sort());
    expect(new Set(Object.values(MODEL_FAILURE_TYPES)).size).toBe(MODEL_ERROR_KINDS.length);
  });

  test('a retryable rate limit keeps its retry-after as nextRetryDelay', () => {
    const failure = toActivityFailure(
      new ModelCallError('rate limited by the provider (HTTP 429)', { kind: 'rate_limited', retryable: true, retryAfterMs: 1500, status: 429 }),
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const af = failure as ApplicationFailure;
    expect(af.type).toBe('ModelRateLimited');
    expect(af.nonRetryable).toBe(false);
    expect(af.nextRetryDelay).toBe(1500);
    expect(af.details).toEqual([{ kind: 'rate_limited', status: 429 }]);
    expect(af.message).toMatch(/^rate limited by the provider \(HTTP 429\) \[rate_limited, HTTP 429; Temporal retries it .*1500 ms.*\]$/);
  });

  test('a non-retryable kind is nonRetryable, without nextRetryDelay', () => {
    const af = toActivityFailure(new ModelCallError('unauthorized', { kind: 'auth', retryable: false, status: 401 })) as ApplicationFailure;
    expect(af.type).toBe('ModelAuthFailed');
    expect(af.nonRetryable).toBe(true);
    expect(af.nextRetryDelay).toBeUndefined();
    expect(af.message).toContain('MODEL_API_KEY');
    const timeout = toActivityFailure(new ModelCallError('timed out', { kind: 'timeout', retryable: true })) as ApplicationFailure;
    expect(timeout.type).toBe('ModelTimeout');
    expect(timeout.details).toEqual([{ kind: 'timeout', status: null }]);
  });

  test('retry-after is capped at 5 minutes: up to the cap it is the next retry delay', () => {
    expect(MODEL_RETRY_AFTER_CAP_MS).toBe(5 * 60 * 1000);
    const atCap = toActivityFailure(
      new ModelCallError('rate limited', { kind: 'rate_limited', retryable: true, retryAfterMs: MODEL_RETRY_AFTER_CAP_MS, status: 429 }),
    ) as ApplicationFailure;
    expect(atCap).toMatchObject({ type: 'ModelRateLimited', nonRetryable: false, nextRetryDelay: MODEL_RETRY_AFTER_CAP_MS });
    const serverUnderCap = toActivityFailure(
      new ModelCallError('unavailable', { kind: 'server_error', retryable: true, retryAfterMs: 60_000, status: 503 }),
    ) as ApplicationFailure;
    expect(serverUnderCap).toMatchObject({ type: 'ModelServerError', nonRetryable: false, nextRetryDelay: 60_000 });
  });

  test('a retry-after over the cap: non-retryable ModelRetryAfterTooLong that says what was asked and what to do', () => {
    const asked = MODEL_RETRY_AFTER_CAP_MS + 1;
    const af = toActivityFailure(
      new ModelCallError('rate limited: quota', { kind: 'rate_limited', retryable: true, retryAfterMs: asked, status: 429 }),
    ) as ApplicationFailure;
    expect(af).toBeInstanceOf(ApplicationFailure);
    expect(af.type).toBe(MODEL_RETRY_AFTER_TOO_LONG_TYPE);
    expect(af.type).toBe('ModelRetryAfterTooLong');
    expect(af.nonRetryable).toBe(true);
    expect(af.nextRetryDelay).toBeUndefined();
    expect(af.message).toMatch(
      new RegExp(
        /^rate limited: quota \[rate_limited, HTTP 429; the provider asked to wait 300001 ms \(about 5 min\) before trying again, longer than the 5 min .*/
          .source + /not retried: prompt again once that time has passed, or raise the provider's quota or rate limit\]$/.source,
      ),
    );
    expect(af.details).toEqual([{ kind: 'rate_limited', status: 429, retryAfterMs: asked, capMs: MODEL_RETRY_AFTER_CAP_MS }]);
    const days = toActivityFailure(
      new ModelCallError('unavailable', { kind: 'server_error', retryable: true, retryAfterMs: 3 * 24 * 3_600_000, status: 503 }),
    ) as ApplicationFailure;
    expect(days).toMatchObject({ type: MODEL_RETRY_AFTER_TOO_LONG_TYPE, nonRetryable: true });
    expect(days.message).toContain('about 72 h');
  });

  test('a zero retry-after leaves the backoff to the retry policy; a non-retryable error never gets a delay', () => {
    const zero = toActivityFailure(
      new ModelCallError('rate limited', { kind: 'rate_limited', retryable: true, retryAfterMs: 0, status: 429 }),
    ) as ApplicationFailure;
    expect(zero).toMatchObject({ type: 'ModelRateLimited', nonRetryable: false });
    expect(zero.nextRetryDelay).toBeUndefined();
    const notRetryable = toActivityFailure(
      new ModelCallError('bad', { kind: 'bad_request', retryable: false, retryAfterMs: 10 * MODEL_RETRY_AFTER_CAP_MS, status: 400 }),
    ) as ApplicationFailure;
    expect(notRetryable).toMatchObject({ type: 'ModelBadRequest', nonRetryable: true });
    expect(notRetryable.nextRetryDelay).toBeUndefined();
  });

  test('script exhaustion is non-retryable; abort, cancellation and other errors pass through', () => {
    const af = toActivityFailure(new ScriptExhaustedError('the script has 1 step(s)')) as ApplicationFailure;
    expect(af.type).toBe('ScriptedModelExhausted');
    expect(af.nonRetryable).toBe(true);
    const abort = Object.assign(new Error('cancelled'), { name: 'AbortError' });
    expect(toActivityFailure(abort)).toBe(abort);
    const cancelled = new CancelledFailure('CANCELLED');
    expect(toActivityFailure(cancelled)).toBe(cancelled);
    const other = new TypeError('bug');
    expect(toActivityFailure(other)).toBe(other);
    expect(toActivityFailure('weird')).toBeInstanceOf(Error);
  });
});

describe('callModel activity (MockActivityEnvironment)', () => {
  test('success: the request carries the toolset and the provider default model', async () => {
    const provider = createScriptedProvider([scriptedText('hi there')]);
    const { callModel } = createModelActivities({ provider, toolsFor });
    const response = await newEnv().run(callModel, input);
    expect(response).toEqual(scriptedText('hi there'));
    expect(provider.calls).toEqual([{ model: '', messages: input.messages, tools: [sendTool] } satisfies ModelRequest]);
  });

  test('passes a named model through', async () => {
    const provider = createScriptedProvider([scriptedText('x')]);
    await newEnv().run(createModelActivities({ provider, toolsFor }).callModel, { ...input, model: 'gpt-x' });
    expect(provider.calls[0]?.model).toBe('gpt-x');
  });

  test('a 429 with retry-after: retryable ApplicationFailure with nextRetryDelay', async () => {
    const error = new ModelCallError('rate limited (HTTP 429)', { kind: 'rate_limited', retryable: true, retryAfterMs: 2000, status: 429 });
    const { callModel } = createModelActivities({ provider: failingProvider(error), toolsFor });
    const failure: unknown = await newEnv()
      .run(callModel, input)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ModelRateLimited', nonRetryable: false, nextRetryDelay: 2000 });
  });

  test('auth failure: nonRetryable', async () => {
    const error = new ModelCallError('unauthorized (HTTP 401)', { kind: 'auth', retryable: false, status: 401 });
    const { callModel } = createModelActivities({ provider: failingProvider(error), toolsFor });
    await expect(newEnv().run(callModel, input)).rejects.toMatchObject({ type: 'ModelAuthFailed', nonRetryable: true });
  });

  test('a response over the payload limit fails typed and non-retryable instead of becoming the activity result', async () => {
    const huge = scriptedText('x'.repeat(PAYLOAD_MAX_BYTES));
    expect(jsonBytes(huge)).toBeGreaterThan(PAYLOAD_MAX_BYTES);
    const { callModel } = createModelActivities({ provider: createScriptedProvider([huge]), toolsFor });
    const failure: unknown = await newEnv()
      .run(callModel, input)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ModelMalformedResponse', nonRetryable: true });
    expect((failure as ApplicationFailure).message).toContain(`over the ${PAYLOAD_MAX_BYTES}-byte budget`);
    // Just under the limit is returned as is.
    const fits = scriptedText('y'.repeat(PAYLOAD_MAX_BYTES - 200));
    expect(jsonBytes(fits)).toBeLessThanOrEqual(PAYLOAD_MAX_BYTES);
    const { callModel: callFits } = createModelActivities({ provider: createScriptedProvider([fits]), toolsFor });
    const ok: ModelResponse = await newEnv().run(callFits, input);
    expect(ok.message.content).toHaveLength(PAYLOAD_MAX_BYTES - 200);
  });

  test('an unknown toolset: nonRetryable UnknownToolset, the provider is not called', async () => {
    const provider = createScriptedProvider([]);
    const { callModel } = createModelActivities({ provider, toolsFor });
    await expect(newEnv().run(callModel, { ...input, toolset: 'nope' })).rejects.toMatchObject({ type: 'UnknownToolset', nonRetryable: true });
    expect(provider.calls).toHaveLength(0);
  });

  test('cancellation aborts a slow scripted think promptly; it heartbeats while it runs', async () => {
    const { callModel } = createModelActivities({ provider: createScriptedModel(), toolsFor });
    const env = newEnv();
    const heartbeats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => {
      heartbeats.push(details);
      env.cancel();
    });
    const started = Date.now();
    const content: JsonValue = { script: [{ think: 60_000 }, { send: { to: 'lead', content: 'too late' } }] };
    const slow: CallModelInput = { ...input, messages: [{ role: 'user', content: renderInboxMessage({ messageId: 'm-1', from: 'lead', content }) }] };
    const run = env.run(callModel, slow);
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(heartbeats.length).toBeGreaterThanOrEqual(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(env.context.cancellationSignal.aborted).toBe(true);
  });
});

describe('callModel: answers lost to a dead worker or a timeout (activities/lostAnswers.ts)', () => {
  const quiet = (info: Record<string, unknown>) => new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
  const run = async (info: Record<string, unknown>, provider: ModelProvider) => {
    const lost: LostAnswerTags[] = [];
    const heartbeats: unknown[] = [];
    const env = quiet(info);
    env.on('heartbeat', (details: unknown) => heartbeats.push(details));
    const outcome = await env
      .run(createModelActivities({ provider, toolsFor, countLostAnswer: (tags) => lost.push(tags) }).callModel, { ...input, model: 'anthropic:claude-x' })
      .then(
        () => 'answered',
        () => 'failed',
      );
    return { lost, heartbeats, outcome };
  };
  const serverError = new ModelCallError('overloaded (HTTP 503)', { kind: 'server_error', retryable: true, status: 503 });

  test('an attempt says it awaits the answer before the provider has the request, and that it failed when it did', async () => {
    const seen: unknown[] = [];
    const env = quiet({ attempt: 1 });
    env.on('heartbeat', (details: unknown) => seen.push(details));
    let heartbeatsBeforeRequest = -1;
    const failing: ModelProvider = {
      complete: () => {
        heartbeatsBeforeRequest = seen.length;
        return Promise.reject(serverError);
      },
    };
    await expect(env.run(createModelActivities({ provider: failing, toolsFor }).callModel, input)).rejects.toMatchObject({ type: 'ModelServerError' });
    expect(heartbeatsBeforeRequest).toBe(1);
    expect(seen).toEqual([AWAITING_ANSWER, ATTEMPT_FAILED]);
    const { heartbeats, outcome, lost } = await run({ attempt: 1 }, failingProvider(serverError));
    expect([outcome, heartbeats, lost]).toEqual(['failed', [AWAITING_ANSWER, ATTEMPT_FAILED], []]);
    expect(heartbeats).toEqual([AWAITING_ANSWER, ATTEMPT_FAILED]);
  });

  test('a retry after an attempt that ended with no word counts one lost answer, labelled by role, provider and model', async () => {
    const { lost, outcome } = await run(
      { attempt: 2, heartbeatDetails: AWAITING_ANSWER, workflowType: 'teammate' },
      createScriptedProvider([scriptedText('x')]),
    );
    expect(outcome).toBe('answered');
    expect(lost).toEqual([{ role: 'teammate', provider: 'anthropic', model: 'claude-x' }]);
  });

  test('a first attempt, a retry after a failed attempt, and hostile details count nothing', async () => {
    for (const info of [
      { attempt: 1, heartbeatDetails: AWAITING_ANSWER },
      { attempt: 2, heartbeatDetails: ATTEMPT_FAILED },
      { attempt: 3 },
      { attempt: 2, heartbeatDetails: 'awaiting-answer' },
      { attempt: 2, heartbeatDetails: Object.create({ modelCall: 'awaiting-answer' }) as unknown },
    ]) {
      const { lost } = await run(info, createScriptedProvider([scriptedText('x')]));
      expect({ info, lost }).toEqual({ info, lost: [] });
    }
  });

  test('labels: the Lead, subagents, an unknown workflow type, and an unqualified model', () => {
    expect(lostAnswerTags('teamLead', null)).toEqual({ role: 'lead', provider: 'default', model: 'default' });
    expect(lostAnswerTags('subagent', 'gpt-x')).toEqual({ role: 'subagent', provider: 'default', model: 'gpt-x' });
    expect(lostAnswerTags('__proto__', 'openai:gpt-x')).toEqual({ role: 'other', provider: 'openai', model: 'gpt-x' });
  });
});
