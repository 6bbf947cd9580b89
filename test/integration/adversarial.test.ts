/**
 * Adversarial suite (issue 8): nothing a caller or a model sends can wedge or kill a Team.
 *
 * On the real dev server with the project's worker and the scripted model, hostile payloads built
 * by fast-check arbitraries (test/support/adversarial.ts) go through RAW SDK handles
 * (`client.workflow.getHandle(id)`, string Update and signal names, any argument list) to:
 *  - every Update of the Lead (createTask … disposeTeam with a non-Lead caller),
 *  - every Lead signal (reportMemberStatus, watchEdges, unwatchEdges, subagentAnswer) and every
 *    teammate signal (deliverMessage, interruptTurn, edgeNotification), also with NO argument at all
 *    (what `temporal workflow signal --name X` without `--input` sends),
 *  - every workflow input (teamLead, and teammate started directly).
 *
 * What must hold:
 *  - every Update call is answered (a result) or rejected with an ApplicationFailure whose `type` is a
 *    documented stable string (the "Failure types" tables of docs/wire-contract.md, read at run
 *    time); no hang, no untyped failure. The one exception is a request that alone is over the
 *    server's in-flight Update payload limit (1 MiB here; the 1.9 MB cases): the server refuses it
 *    before the Lead sees it, and the state must stay as it was. The largest request it admits
 *    (~1 MB) is what the validators meet;
 *  - a rejected Update leaves the board and roster (getTeamView) exactly as they were; a signal never
 *    changes them, and live status stays a map from roster names to the four documented statuses;
 *  - every Update result stays under Temporal's 2 MB payload limit;
 *  - after every batch the Team still serves a normal createTask + readTask (and a teammate still
 *    takes a message into a turn);
 *  - walking EVERY run of each continue-as-new chain (Lead and every teammate): 0 failed workflow
 *    tasks and 0 terminated runs. (Two causes the server records itself are not failures of
 *    workflow code and are reported but not counted: UNHANDLED_COMMAND, the server asking the SDK to
 *    redo a completing task because new events arrived, and FORCE_CLOSE_COMMAND, the server failing
 *    an in-flight task to flush signals buffered past its limit. Everything else is counted.)
 *  - a hostile WORKFLOW INPUT ends that workflow cleanly: the run closes as FAILED with a typed
 *    ApplicationFailure (non-empty `type`) within seconds, with 0 failed workflow tasks, never
 *    terminated, never looping through continue-as-new. The only exception is input docs/semantics.md
 *    documents as tolerated: `legacyMailbox` records are validated and the bad ones listed in
 *    `problems` (and an unknown extra key may be ignored) — there a Lead that keeps running is fine
 *    too, provided it has no failed workflow task and serves Updates.
 *
 * Payload counts: ~77 per Update × 16 Updates (sent one at a time so each rejection's state check is
 * exact), ~320 concurrent mixed Updates (pool of 6), ~61 per
 * signal × 7 signals plus the no-payload cases, ~40 workflow inputs, and the named scenarios.
 * fast-check runs with fixed seeds (SEED below) and without shrinking: every sample goes to a real
 * server once. Workflows this file leaves running (wedged ones) are terminated only after their
 * histories were read and asserted on.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { defineSignal } from '@temporalio/workflow';
import fc from 'fast-check';
import { answer, scriptText, tool, type ScriptStep } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import { useClientAndWorker } from '../support/harness';
import { TEAM_SERVER_DYNAMIC_CONFIG } from '../../scripts/serverSettings';
import { address, uniqueId } from '../support/temporal';
import { toolResult } from '../support/teams';
import {
  BENIGN_TASK_FAILURE_CAUSES,
  GRPC_MESSAGE_LIMIT_BYTES,
  PAYLOAD_LIMIT_BYTES,
  chainReport,
  chunks,
  cloneOwn,
  deepArray,
  deepObject,
  defineOwn,
  documentedFailureTypes,
  firstDifference,
  healthProblems,
  hostileValue,
  hugeString,
  largestAdmittedString,
  adversarialRetryInterceptors,
  jsonBytes,
  kebabName,
  late,
  nestedScopes,
  payloadArbitrary,
  pool,
  preview,
  protoKeyObject,
  PROTO_NAMES,
  rawQuery,
  rawSignal,
  rawUpdate,
  resolvePayload,
  sampleOf,
  shapeCases,
  sleep,
  teamHealth,
  teamWorkflowIds,
  terminateRunning,
  type Hostile,
  type PayloadCase,
  type PayloadSpec,
  type PayloadTemplate,
  type SendContext,
  type TeamHealth,
  type UpdateOutcome,
} from '../support/adversarial';

const env = useClientAndWorker();
/**
 * This file's own client: histories that took megabyte payloads are larger than a gRPC client's
 * default 4 MB receive limit, and reading them whole is the point of the health check.
 */
const own = {} as { client: Client; connection: Connection };
beforeAll(async () => {
  own.connection = await Connection.connect({
    address: address(),
    channelArgs: { 'grpc.max_receive_message_length': 256 * 1024 * 1024 },
    interceptors: adversarialRetryInterceptors(),
  });
  own.client = new Client({ connection: own.connection });
});
afterAll(async () => {
  await own.connection?.close();
});

/** fast-check seed base; each test adds its own offset so runs are reproducible. */
const SEED = 20_250_708;
const FUZZ_PER_UPDATE = 60;
const FUZZ_PER_SIGNAL = 50;
const BURST_PER_UPDATE = 20;
const BATCH = 20;
const SIGNAL_BATCH = 10;
const CALL_TIMEOUT_MS = 20_000;

const DOCUMENTED_TYPES = documentedFailureTypes();

/** Payloads sent and how they ended, per test (printed once after the file). */
const stats = new Map<string, Record<string, number>>();
function count(test: string, key: string, n = 1): void {
  const entry = stats.get(test) ?? {};
  entry[key] = (entry[key] ?? 0) + n;
  stats.set(test, entry);
}
function countOutcome(test: string, outcome: UpdateOutcome): void {
  count(test, 'payloads');
  count(test, outcome.kind === 'rejected' ? `rejected ${outcome.type ?? '?'}` : outcome.kind);
}
afterAll(() => {
  const lines = [...stats].map(
    ([test, entry]) =>
      `${test}: ${Object.entries(entry)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
  );
  const total = [...stats.values()].reduce((n, e) => n + (e.payloads ?? 0), 0);
  console.info(`adversarial payloads sent: ${total}\n${lines.join('\n')}`);
});
const LIVE_STATUSES = ['starting', 'running', 'idle', 'exited'];
const MATE = 'mate';
const teammateId = (teamId: string, name: string): string => `${teamId}/teammate/${name}`;

const UPDATE_NAMES = [
  'createTask',
  'editTask',
  'claimTask',
  'assignTask',
  'releaseTask',
  'transitionTask',
  'deleteTask',
  'readTask',
  'listTasks',
  'listTasksPage',
  'spawnTeammate',
  'sendMessage',
  'interruptTeammate',
  'waitForEdge',
  'readLeadInbox',
  'promptLead',
  'setBudget',
  'disposeTeam',
] as const;
type UpdateName = (typeof UPDATE_NAMES)[number];
const LEAD_SIGNALS = ['reportMemberStatus', 'watchEdges', 'unwatchEdges', 'subagentAnswer', 'completionNudge', 'modelCallRequest'] as const;
const TEAMMATE_SIGNALS = ['deliverMessage', 'interruptTurn', 'edgeNotification', 'budgetChanged', 'modelCallAnswer'] as const;

interface TeamViewLike {
  teamId: string;
  members: { name: string; workflowId: string; phase: string }[];
  tasks: { id: number; revision: number; subject: string; description: string; status: string; owner: string | null }[];
  nextTaskId: number;
}

// ---- a Team to attack ----------------------------------------------------------------------------

interface FuzzTeam {
  teamId: string;
  mateId: string;
  ids: { ready: number; owned: number; completed: number; deleted: number; blocked: number };
  /** 100 small live tasks (only when asked for): the documented maximum of dependencies. */
  tiny: number[];
}

function mustOk(outcome: UpdateOutcome, what: string): unknown {
  if (outcome.kind !== 'ok') throw new Error(`setup step ${what} failed: ${describeOutcome(outcome)}`);
  return outcome.result;
}

function describeOutcome(outcome: UpdateOutcome): string {
  if (outcome.kind === 'ok') return `ok (${outcome.resultBytes} bytes)`;
  if (outcome.kind === 'rejected') return `rejected ${outcome.type ?? '<no type>'}: ${outcome.message.slice(0, 200)}`;
  if (outcome.kind === 'refused') return `refused by the server: a request of ${outcome.requestBytes} bytes at an in-flight limit of ${outcome.limitBytes}`;
  return `error ${outcome.error.slice(0, 300)}`;
}

const taskOf = (result: unknown): { id: number; revision: number } => (result as { task: { id: number; revision: number } }).task;

async function update(teamId: string, name: string, argument: unknown, timeoutMs = CALL_TIMEOUT_MS): Promise<UpdateOutcome> {
  return rawUpdate(own.client, teamId, name, [argument], { timeoutMs });
}

const view = (teamId: string): Promise<TeamViewLike> => rawQuery<TeamViewLike>(own.client, teamId, 'getTeamView');

async function waitFor<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await probe();
      if (accept(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await sleep(150);
  }
  throw new Error(
    `${what} not reached within ${timeoutMs} ms; last: ${preview(last, 300)}${lastError instanceof Error ? `; last error: ${lastError.message}` : ''}`,
  );
}

async function startFuzzTeam(label: string, options: { tinyTasks?: boolean } = {}): Promise<FuzzTeam> {
  const team = await TeamClient.start(own.client, { teamId: uniqueId(`adv-${label}`), taskQueue: env.worker.taskQueue });
  const teamId = team.teamId;
  mustOk(await update(teamId, 'spawnTeammate', { caller: 'lead', name: MATE, message: 'hello' }), 'spawn mate');
  const mateId = teammateId(teamId, MATE);
  await waitFor(
    () => rawQuery<{ status: string; consumed: number }>(own.client, mateId, 'getTeammateState'),
    (s) => s.status === 'idle' && s.consumed === 1,
    60_000,
    'mate idle',
  );
  const create = async (body: Record<string, unknown>): Promise<{ id: number; revision: number }> =>
    taskOf(mustOk(await update(teamId, 'createTask', { caller: 'lead', ...body }), `create ${String(body.subject)}`));
  const ready = (await create({ subject: 'ready' })).id;
  const owned = (await create({ subject: 'owned by mate' })).id;
  mustOk(await update(teamId, 'claimTask', { caller: MATE, taskId: owned, expectedRevision: 1 }), 'mate claims');
  const completed = (await create({ subject: 'completed' })).id;
  mustOk(await update(teamId, 'claimTask', { caller: 'lead', taskId: completed, expectedRevision: 1 }), 'lead claims');
  mustOk(await update(teamId, 'transitionTask', { caller: 'lead', taskId: completed, expectedRevision: 2, status: 'completed' }), 'complete');
  const deleted = (await create({ subject: 'tombstone' })).id;
  mustOk(await update(teamId, 'deleteTask', { caller: 'lead', taskId: deleted, expectedRevision: 1 }), 'delete');
  const blocked = (await create({ subject: 'blocked', dependencies: [ready] })).id;
  const tiny: number[] = [];
  if (options.tinyTasks) {
    const created = await pool(
      Array.from({ length: 100 }, (_, i) => i),
      4,
      async (i) => (await create({ subject: `tiny ${i}` })).id,
    );
    tiny.push(...created.sort((a, b) => a - b));
  }
  return { teamId, mateId, ids: { ready, owned, completed, deleted, blocked }, tiny };
}

/**
 * Resolves with the reason once the workflow has a failed workflow task or is no longer running;
 * never resolves otherwise. Raced against calls that would otherwise wait for their deadline.
 */
function wedgeOf(workflowId: string, stop: { done: boolean }): Promise<string> {
  return new Promise((resolve) => {
    const poll = async (): Promise<void> => {
      while (!stop.done) {
        await sleep(1_500);
        if (stop.done) return;
        const wedged = await workflowWedged(workflowId);
        if (wedged) return resolve(wedged);
      }
    };
    void poll();
  });
}

/** Runs `call`, but gives up as soon as `workflowId` is found wedged (the call would only hang). */
async function unlessWedged<T>(workflowId: string, call: Promise<T>, wedgedValue: (reason: string) => T): Promise<T> {
  const stop = { done: false };
  try {
    return await Promise.race([call, wedgeOf(workflowId, stop).then(wedgedValue)]);
  } finally {
    stop.done = true;
  }
}

/** The Team still serves a normal createTask + readTask (TeamRollingOver is retried, as documented). */
async function serveCheck(teamId: string, probe: string): Promise<string | null> {
  const check = async (): Promise<string | null> => {
    const deadline = Date.now() + CALL_TIMEOUT_MS;
    let created: UpdateOutcome;
    do {
      created = await update(teamId, 'createTask', { caller: 'lead', subject: `probe ${probe}` });
      if (created.kind === 'rejected' && created.type === 'TeamRollingOver') await sleep(200);
      else break;
    } while (Date.now() < deadline);
    if (created.kind !== 'ok') return `createTask probe after ${probe}: ${describeOutcome(created)}`;
    const id = taskOf(created.result).id;
    const read = await update(teamId, 'readTask', { caller: 'lead', taskId: id });
    if (read.kind !== 'ok') return `readTask probe after ${probe}: ${describeOutcome(read)}`;
    if ((read.result as { subject?: unknown }).subject !== `probe ${probe}`) return `readTask probe after ${probe} returned ${preview(read.result)}`;
    return null;
  };
  return unlessWedged(teamId, check(), (reason) => `the Team does not serve a createTask after ${probe}: ${reason}`);
}

/** A teammate still takes a message into a turn (sent through the Lead). */
async function teammateServeCheck(teamId: string, name: string, probe: string): Promise<string | null> {
  const messageId = `probe-${probe}-${uniqueId('m')}`;
  const sent = await unlessWedged(
    teamId,
    update(teamId, 'sendMessage', { caller: 'lead', to: name, content: `probe ${probe}`, messageId }),
    (reason): UpdateOutcome => ({ kind: 'error', error: reason, deadline: false }),
  );
  if (sent.kind !== 'ok') return `sendMessage probe to ${name} after ${probe}: ${describeOutcome(sent)}`;
  const taken = waitFor(
    () => rawQuery<{ conversation: { messageId?: string }[]; status: string }>(own.client, teammateId(teamId, name), 'getTeammateState', [], 10_000),
    (s) => s.conversation.some((e) => e.messageId === messageId),
    30_000,
    `${name} takes ${messageId} into a turn`,
  ).then(
    () => null,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  const problem = await unlessWedged(teammateId(teamId, name), taken, (reason) => reason);
  return problem === null ? null : `teammate ${name} after ${probe}: ${problem}`;
}

/** Quick wedge detector: a workflow's runs have failed workflow tasks, or its latest run is not running. */
async function workflowWedged(workflowId: string): Promise<string | null> {
  try {
    const chain = await chainReport(own.client, workflowId);
    const latest = chain.runs[0];
    const failures = chain.runs.flatMap((r) => r.workflowTaskFailures);
    if (failures.length > 0) return `${workflowId} has ${failures.length} failed workflow tasks, first: ${failures[0]!.cause}: ${failures[0]!.message}`;
    if (latest && latest.status !== 'RUNNING') return `${workflowId} is ${latest.status}${latest.terminationReason ? `: ${latest.terminationReason}` : ''}`;
    return null;
  } catch (error) {
    return `${workflowId} health unreadable: ${String(error)}`;
  }
}
const leadWedged = workflowWedged;

function liveStatusProblems(liveStatus: Record<string, unknown>, members: readonly string[]): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(liveStatus)) {
    const value: unknown = Object.getOwnPropertyDescriptor(liveStatus, key)?.value;
    if (!members.includes(key)) problems.push(`live status has key ${preview(key)} which is not a roster member`);
    if (typeof value !== 'string' || !LIVE_STATUSES.includes(value)) problems.push(`live status of ${preview(key)} is ${preview(value)}`);
  }
  return problems;
}

/** The server's in-flight Update payload limit that the test servers run with. */
const IN_FLIGHT_LIMIT_BYTES = TEAM_SERVER_DYNAMIC_CONFIG['history.maxInFlightUpdatePayloads']!;

function outcomeProblem(label: string, outcome: UpdateOutcome): string | null {
  if (outcome.kind === 'error') return `${label}: not answered with a result or typed rejection: ${outcome.error.slice(0, 300)}`;
  // Only a request that alone is over the server's in-flight limit may be refused (rawUpdate retries any other).
  if (outcome.kind === 'refused' && (outcome.limitBytes !== IN_FLIGHT_LIMIT_BYTES || outcome.requestBytes < IN_FLIGHT_LIMIT_BYTES)) {
    return `${label}: refused at an in-flight limit of ${outcome.limitBytes} bytes with a request of ${outcome.requestBytes} bytes`;
  }
  if (outcome.kind === 'rejected' && (!outcome.type || !DOCUMENTED_TYPES.has(outcome.type))) {
    return `${label}: rejected with undocumented type ${preview(outcome.type)}: ${outcome.message.slice(0, 200)}`;
  }
  if (outcome.kind === 'ok' && outcome.resultBytes >= PAYLOAD_LIMIT_BYTES)
    return `${label}: result of ${outcome.resultBytes} bytes is over the 2 MB payload limit`;
  return null;
}

interface Verdict {
  violations: string[];
  failedWorkflowTasks: number;
  terminatedRuns: number;
  problems: string[];
}

/** Serve check, disposal (healthy Teams), health over every run of every workflow, then cleanup. */
async function finishTeam(
  teamId: string,
  violations: string[],
  options: { wedged?: string | null; extraIds?: string[]; dispose?: boolean } = {},
): Promise<Verdict> {
  let wedged = options.wedged ?? null;
  if (!wedged) {
    const served = await serveCheck(teamId, 'final');
    if (served) {
      violations.push(served);
      wedged = served;
    }
  }
  const ids = await teamWorkflowIds(own.client, teamId, options.extraIds ?? []);
  let health: TeamHealth;
  try {
    health = await teamHealth(own.client, teamId, ids);
    // Disposal waits until every child has exited, which a wedged child never does: dispose only a healthy Team.
    const stuck = health.chains.some((c) => c.runs[0]?.status === 'RUNNING' && c.runs[0].workflowTaskFailures.length > 0);
    if (!wedged && !stuck && options.dispose !== false) {
      const disposed = await update(teamId, 'disposeTeam', { caller: 'lead' }, 45_000);
      if (disposed.kind !== 'ok') violations.push(`disposeTeam by the Lead: ${describeOutcome(disposed)}`);
      health = await teamHealth(own.client, teamId, ids);
    }
  } finally {
    await terminateRunning(own.client, ids, 'adversarial suite cleanup (after histories were read)');
  }
  return { violations, failedWorkflowTasks: health.failedWorkflowTasks, terminatedRuns: health.terminatedRuns, problems: healthProblems(health) };
}

function expectClean(verdict: Verdict): void {
  expect(verdict).toEqual({ violations: [], failedWorkflowTasks: 0, terminatedRuns: 0, problems: [] });
}

// ---- payload specs per Update --------------------------------------------------------------------

const H = (label: string, value: unknown): Hostile => ({ label, value });
const currentRevision = late('current revision', (context, argument) => context.revisionOf(Object.getOwnPropertyDescriptor(argument, 'taskId')?.value));

interface UpdateFuzzSpec {
  spec: PayloadSpec;
  /** Documented maxima (and one past them), sent deterministically. */
  maxima: PayloadTemplate[];
  /** Keeps a payload from doing something that would end the test rather than probe it. */
  guard?: (argument: Record<string, unknown>) => void;
}

function updateSpecs(team: FuzzTeam): Record<UpdateName, UpdateFuzzSpec> {
  const { ids, tiny } = team;
  const taskId = {
    specific: fc.constantFrom(
      H('ready task id', ids.ready),
      H('owned task id', ids.owned),
      H('completed task id', ids.completed),
      H('tombstone id', ids.deleted),
      H('blocked task id', ids.blocked),
      H('unknown id 99999', 99_999),
      H('MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER),
      H('"1"', '1'),
    ),
  };
  const revision = { specific: fc.constantFrom(H('current revision', currentRevision), H('0', 0), H('stale 1', 1), H('2**53+2', 2 ** 53 + 2), H('"1"', '1')) };
  const subject = {
    specific: fc.constantFrom(
      H('200 chars', 's'.repeat(200)),
      H('201 chars', 's'.repeat(201)),
      H('100 astral (200 units)', '😀'.repeat(100)),
      H('whitespace only', '   '),
      H('{}', {}),
    ),
  };
  const description = {
    specific: fc.constantFrom(
      H('20,000 chars', 'd'.repeat(20_000)),
      H('20,001 chars', 'd'.repeat(20_001)),
      H('10,000 astral (20,000 units)', '😀'.repeat(10_000)),
    ),
  };
  const dependencies = {
    specific: fc.constantFrom(
      H('[ready]', [ids.ready]),
      H('[tombstone]', [ids.deleted]),
      H('[99999]', [99_999]),
      H('[ready, ready]', [ids.ready, ids.ready]),
      H('[0]', [0]),
      H('["1"]', ['1']),
      H(
        '101 ids',
        Array.from({ length: 101 }, (_, i) => i + 1),
      ),
    ),
  };
  const writeScopes = {
    specific: fc.constantFrom(
      H('50 nested scopes', nestedScopes(50)),
      H('51 nested scopes', nestedScopes(51)),
      H('["."]', ['.']),
      H('["/abs"]', ['/abs']),
      H('["../out"]', ['../out']),
      H('[""]', ['']),
      H('["C:\\\\x"]', ['C:\\x']),
      H('one 501-char scope', ['w'.repeat(501)]),
      H('[42]', [42]),
    ),
  };
  const memberName = {
    specific: fc.constantFrom(
      H('"mate"', MATE),
      H('"lead"', 'lead'),
      H('"ghost"', 'ghost'),
      H('40-char kebab', kebabName(40)),
      H('41-char kebab', kebabName(41)),
      H('"Bad_Name"', 'Bad_Name'),
      ...PROTO_NAMES.map((n) => H(JSON.stringify(n), n)),
    ),
  };
  const content = {
    specific: fc.constantFrom(
      H('depth 64', deepObject(63)),
      H('depth 65+', deepObject(66)),
      H('own __proto__ keys', protoKeyObject()),
      H('huge string (1.9 MB)', hugeString()),
      H('largest admitted string (1 MB)', largestAdmittedString()),
      H('deep array 1000', deepArray(1_000)),
    ),
  };
  const messageId = {
    specific: fc.constantFrom(
      H('200 chars', 'm'.repeat(200)),
      H('201 chars', 'm'.repeat(201)),
      H('""', ''),
      ...PROTO_NAMES.map((n) => H(JSON.stringify(n), n)),
    ),
  };
  const maxDeps = tiny.length >= 100 ? tiny.slice(0, 100) : [];
  const maxima = (base: Record<string, unknown>, fields: Record<string, [string, unknown][]>): PayloadTemplate[] =>
    Object.entries(fields).flatMap(([field, values]) =>
      values.map(([label, value]) => {
        const argument = cloneOwn(base);
        defineOwn(argument, field, value);
        return { label: `maximum: ${field} ${label}`, args: [argument] };
      }),
    );
  const taskMaxima: Record<string, [string, unknown][]> = {
    subject: [
      ['200 chars', 'S'.repeat(200)],
      ['201 chars', 'S'.repeat(201)],
    ],
    description: [
      ['20,000 chars', 'D'.repeat(20_000)],
      ['20,001 chars', 'D'.repeat(20_001)],
    ],
    writeScopes: [
      ['50 nested (d0, d0/d1, …)', nestedScopes(50)],
      ['51 nested', nestedScopes(51)],
    ],
    ...(maxDeps.length === 100
      ? {
          dependencies: [
            ['100 live tasks', maxDeps],
            ['101 ids', [...maxDeps, ids.ready]],
          ],
        }
      : {}),
  };

  const createBase = { caller: 'lead', subject: 'fuzzed task' };
  const editBase = { caller: 'lead', taskId: ids.ready, expectedRevision: currentRevision, subject: 'edited' };
  return {
    createTask: { spec: { base: createBase, fields: { subject, description, dependencies, writeScopes } }, maxima: maxima(createBase, taskMaxima) },
    editTask: {
      spec: { base: editBase, fields: { taskId, expectedRevision: revision, subject, description, dependencies, writeScopes } },
      maxima: maxima(editBase, taskMaxima),
    },
    claimTask: {
      spec: { base: { caller: MATE, taskId: ids.ready, expectedRevision: currentRevision }, fields: { taskId, expectedRevision: revision } },
      maxima: [],
    },
    assignTask: {
      spec: {
        base: { caller: 'lead', taskId: ids.ready, expectedRevision: currentRevision, owner: MATE },
        fields: { taskId, expectedRevision: revision, owner: { specific: fc.oneof(memberName.specific, fc.constant(H('null', null))) } },
      },
      maxima: [],
    },
    releaseTask: {
      spec: { base: { caller: 'lead', taskId: ids.owned, expectedRevision: currentRevision }, fields: { taskId, expectedRevision: revision } },
      maxima: [],
    },
    transitionTask: {
      spec: {
        base: { caller: 'lead', taskId: ids.owned, expectedRevision: currentRevision, status: 'pending' },
        fields: {
          taskId,
          expectedRevision: revision,
          status: {
            specific: fc.constantFrom(
              ...['pending', 'in_progress', 'completed', 'cancelled', 'deleted', 'PENDING', 'done'].map((s) => H(JSON.stringify(s), s)),
            ),
          },
        },
      },
      maxima: [],
    },
    deleteTask: {
      spec: { base: { caller: 'lead', taskId: ids.blocked, expectedRevision: currentRevision }, fields: { taskId, expectedRevision: revision } },
      maxima: [],
    },
    readTask: {
      spec: { base: { caller: MATE, taskId: ids.ready }, fields: { taskId } },
      maxima: [
        { label: 'maximum: taskId MAX_SAFE_INTEGER', args: [{ caller: MATE, taskId: Number.MAX_SAFE_INTEGER }] },
        { label: 'maximum: taskId MAX_SAFE_INTEGER + 2', args: [{ caller: MATE, taskId: Number.MAX_SAFE_INTEGER + 2 }] },
        { label: 'tombstone resolves', args: [{ caller: MATE, taskId: ids.deleted }] },
      ],
    },
    listTasks: { spec: { base: { caller: MATE }, fields: {} }, maxima: [] },
    listTasksPage: {
      spec: {
        base: { caller: MATE },
        fields: {
          after: {
            specific: fc.constantFrom(
              H('0', 0),
              H('a task id', ids.ready),
              H('-1', -1),
              H('1.5', 1.5),
              H('"1"', '1'),
              H('MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER),
            ),
          },
          maxBytes: { specific: fc.constantFrom(H('1024', 1024), H('1023', 1023), H('750000', 750_000), H('750001', 750_001), H('null', null)) },
        },
      },
      maxima: [
        { label: 'maximum: maxBytes 750000 from the start', args: [{ caller: MATE, after: 0, maxBytes: 750_000 }] },
        { label: 'one past: maxBytes 750001', args: [{ caller: MATE, maxBytes: 750_001 }] },
      ],
    },
    spawnTeammate: {
      spec: {
        base: { caller: 'lead', name: 'fuzz-spawn', message: 'hi' },
        fields: {
          name: memberName,
          message: content,
          context: { specific: fc.constantFrom(H('"fresh"', 'fresh'), H('"fork"', 'fork'), H('"FORK"', 'FORK')) },
          model: { specific: fc.constantFrom(H('null', null), H('"m"', 'm'), H('201 chars', 'x'.repeat(201))) },
        },
      },
      maxima: [
        { label: 'maximum: name of 40 chars', args: [{ caller: 'lead', name: kebabName(40), message: 'hi' }] },
        { label: 'maximum: name of 41 chars', args: [{ caller: 'lead', name: kebabName(41), message: 'hi' }] },
        { label: 'over the in-flight limit: message of 1.9 MB', args: [{ caller: 'lead', name: 'huge-start', message: hugeString() }] },
        { label: 'maximum: message of 1 MB (child start input)', args: [{ caller: 'lead', name: 'big-start', message: largestAdmittedString() }] },
      ],
    },
    sendMessage: {
      spec: { base: { caller: 'lead', to: MATE, content: 'hi' }, fields: { to: memberName, content, messageId } },
      maxima: [
        { label: 'maximum: messageId of 200 chars', args: [{ caller: 'lead', to: MATE, content: 'hi', messageId: 'M'.repeat(200) }] },
        { label: 'maximum: messageId of 201 chars', args: [{ caller: 'lead', to: MATE, content: 'hi', messageId: 'M'.repeat(201) }] },
        { label: 'maximum: content depth 64', args: [{ caller: 'lead', to: MATE, content: deepObject(63) }] },
        { label: 'over the in-flight limit: content of 1.9 MB', args: [{ caller: 'lead', to: MATE, content: hugeString() }] },
        { label: 'maximum: content of 1 MB to a teammate (its turn then runs)', args: [{ caller: 'lead', to: MATE, content: largestAdmittedString() }] },
        { label: 'maximum: content of 1 MB to the Lead', args: [{ caller: 'lead', to: 'lead', content: largestAdmittedString() }] },
      ],
    },
    interruptTeammate: { spec: { base: { caller: 'lead', name: MATE }, fields: { name: memberName } }, maxima: [] },
    waitForEdge: {
      spec: {
        base: { caller: 'lead', timeoutMs: 5 },
        fields: {
          timeoutMs: { specific: fc.constantFrom(H('1', 1), H('0', 0), H('3,600,001', 3_600_001), H('100', 100)) },
          kinds: {
            specific: fc.constantFrom(
              H('[]', []),
              H('["task"]', ['task']),
              H('["bogus"]', ['bogus']),
              H('all kinds', ['roster', 'mailbox', 'task', 'status']),
              H('["task","task"]', ['task', 'task']),
            ),
          },
          afterSeq: { specific: fc.constantFrom(H('0', 0), H('-1', -1), H('2**53+2', 2 ** 53 + 2), H('1.5', 1.5), H('"3"', '3'), H('1e9', 1e9)) },
        },
      },
      maxima: [],
      // A valid long wait would only hold a slot: clamp it to a short one (the shape is still probed).
      guard: (argument) => {
        const timeout: unknown = Object.getOwnPropertyDescriptor(argument, 'timeoutMs')?.value;
        if (typeof timeout === 'number' && Number.isInteger(timeout) && timeout > 300 && timeout <= 3_600_000) defineOwn(argument, 'timeoutMs', 300);
      },
    },
    readLeadInbox: { spec: { base: { caller: 'lead' }, fields: {} }, maxima: [] },
    promptLead: {
      spec: {
        base: { caller: 'lead', content: 'hello' },
        fields: {
          content: { specific: fc.constantFrom(H('100,000 chars', 'p'.repeat(100_000)), H('100,001 chars', 'p'.repeat(100_001)), H('"   "', '   ')) },
          messageId,
        },
      },
      maxima: [],
    },
    setBudget: {
      spec: {
        base: { caller: 'lead', name: MATE, budget: { tokens: 1e12 } },
        fields: {
          name: { specific: fc.constantFrom(H('"lead"', 'lead'), H('"ghost"', 'ghost'), ...PROTO_NAMES.map((n) => H(JSON.stringify(n), n))) },
          budget: {
            specific: fc.constantFrom(
              H('{}', {}),
              H('calls 0', { calls: 0 }),
              H('calls 1.5', { calls: 1.5 }),
              H('cost -1', { costUsd: -1 }),
              H('unknown cap', { minutes: 5 }),
              H('own __proto__ keys', protoKeyObject()),
              H('2**53+2 tokens', { tokens: 2 ** 53 + 2 }),
            ),
          },
        },
      },
      maxima: [],
      // A valid small cap would stop the mate the other probes rely on: keep every accepted cap huge.
      guard: (argument) => {
        const budget: unknown = Object.getOwnPropertyDescriptor(argument, 'budget')?.value;
        if (typeof budget !== 'object' || budget === null) return;
        for (const cap of ['calls', 'tokens', 'costUsd', 'turns']) {
          const value: unknown = Object.getOwnPropertyDescriptor(budget, cap)?.value;
          if (typeof value === 'number' && value > 0 && value < 1e9) defineOwn(budget as Record<string, unknown>, cap, 1e12);
        }
      },
    },
    disposeTeam: {
      spec: { base: { caller: MATE }, fields: {} },
      maxima: [],
      // Never the Lead: a real disposal would end the test, not probe it.
      guard: (argument) => {
        if (Object.getOwnPropertyDescriptor(argument, 'caller')?.value === 'lead') defineOwn(argument, 'caller', MATE);
      },
    },
  };
}

function sendContext(current: TeamViewLike | null): SendContext {
  return {
    revisionOf: (taskId) => current?.tasks.find((t) => t.id === taskId)?.revision ?? 1,
  };
}

function guarded(template: PayloadTemplate, spec: UpdateFuzzSpec, current: TeamViewLike | null): PayloadCase {
  const resolved = resolvePayload(template, sendContext(current));
  const first = resolved.args[0];
  if (spec.guard && typeof first === 'object' && first !== null && !Array.isArray(first)) spec.guard(first as Record<string, unknown>);
  return resolved;
}

function templatesFor(name: UpdateName, spec: UpdateFuzzSpec, count: number, seed: number): PayloadTemplate[] {
  const fuzzed = sampleOf(fieldlessSafe(spec.spec), count, seed);
  return [...shapeCases(spec.spec.base), ...spec.maxima, ...fuzzed].map((t, i) => ({ label: `${name} #${i} ${t.label}`, args: t.args }));
}

/** payloadArbitrary needs at least one field to mutate; Updates that take only `caller` fuzz that. */
function fieldlessSafe(spec: PayloadSpec): fc.Arbitrary<PayloadTemplate> {
  return payloadArbitrary(Object.keys(spec.fields).length > 0 ? spec : { ...spec, fields: { caller: {} } });
}

// ---- the fuzz loops --------------------------------------------------------------------------------

/**
 * Sends each payload alone, reads the view before and after: a rejection must leave it unchanged.
 * After each batch the Team must still serve. Stops early (with the reason) once the Lead is wedged.
 */
async function fuzzUpdatesSequentially(
  team: FuzzTeam,
  name: UpdateName,
  spec: UpdateFuzzSpec,
  templates: PayloadTemplate[],
): Promise<{ violations: string[]; wedged: string | null; sent: number }> {
  const violations: string[] = [];
  let before: TeamViewLike | null = await view(team.teamId);
  let sent = 0;
  for (const [batchIndex, batch] of chunks(templates, BATCH).entries()) {
    for (const template of batch) {
      const payload = guarded(template, spec, before);
      const outcome = await unlessWedged(
        team.teamId,
        rawUpdate(own.client, team.teamId, name, payload.args, { timeoutMs: CALL_TIMEOUT_MS }),
        (reason): UpdateOutcome => ({ kind: 'error', error: reason, deadline: false }),
      );
      sent++;
      countOutcome(`Update ${name}`, outcome);
      const problem = outcomeProblem(payload.label, outcome);
      if (problem) violations.push(problem);
      let after: TeamViewLike | null = null;
      try {
        after = await view(team.teamId);
      } catch (error) {
        violations.push(`${payload.label}: getTeamView failed afterwards: ${String(error).slice(0, 200)}`);
      }
      if ((outcome.kind === 'rejected' || outcome.kind === 'refused') && before && after) {
        const diff = firstDifference(before, after);
        const how = outcome.kind === 'rejected' ? `rejected with ${outcome.type ?? '?'}` : 'refused by the server';
        if (diff) violations.push(`${payload.label}: ${how} but the board/roster changed: ${diff}`);
      }
      if (outcome.kind === 'error' || after === null) {
        const wedged = await leadWedged(team.teamId);
        if (wedged) return { violations: [...violations, `${payload.label}: ${wedged}`], wedged, sent };
      }
      before = after;
    }
    const served = await serveCheck(team.teamId, `${name} batch ${batchIndex}`);
    if (served) {
      const wedged = (await leadWedged(team.teamId)) ?? served;
      return { violations: [...violations, served], wedged, sent };
    }
    before = await view(team.teamId).catch(() => null);
  }
  return { violations, wedged: null, sent };
}

// ---- Updates, one at a time ----------------------------------------------------------------------

describe('every Update, hostile payloads one at a time (state checked around each rejection)', () => {
  test.each(UPDATE_NAMES.map((name, i) => [name, i] as const))('%s', async (name, index) => {
    const team = await startFuzzTeam(name, { tinyTasks: name === 'createTask' || name === 'editTask' });
    const spec = updateSpecs(team)[name];
    const templates = templatesFor(name, spec, FUZZ_PER_UPDATE, SEED + index);
    const { violations, wedged } = await fuzzUpdatesSequentially(team, name, spec, templates);
    expectClean(await finishTeam(team.teamId, violations, { wedged }));
  });
});

// ---- Updates, concurrently -----------------------------------------------------------------------

/** Requests at least this large are sent one at a time in the burst: six of them stay under the in-flight limit. */
const BURST_LARGE_REQUEST_BYTES = IN_FLIGHT_LIMIT_BYTES / 16;

test('mixed hostile Updates concurrently (pool of 6): every call answered or typed, the Team keeps serving', async () => {
  const team = await startFuzzTeam('burst');
  const specs = updateSpecs(team);
  const payloads = UPDATE_NAMES.flatMap((name, i) => templatesFor(name, specs[name], BURST_PER_UPDATE, SEED + 100 + i).map((t) => ({ name, template: t })));
  const order = sampleOf(
    fc.shuffledSubarray(
      payloads.map((_, i) => i),
      { minLength: payloads.length, maxLength: payloads.length },
    ),
    1,
    SEED + 200,
  )[0]!;
  const violations: string[] = [];
  let wedged: string | null = null;
  for (const [batchIndex, batch] of chunks(order, 40).entries()) {
    const current = await view(team.teamId).catch(() => null);
    const resolved = batch.map((i) => {
      const { name, template } = payloads[i]!;
      return { name, payload: guarded(template, specs[name], current) };
    });
    // The server's in-flight limit bounds the requests of one workflow together, whoever sends
    // them: six callers of ~1 MB each would be refused and abort the others (docs/security.md,
    // "Callers with namespace access"). So the large ones go one at a time after the small ones.
    const large = ({ payload }: (typeof resolved)[number]): boolean => jsonBytes(payload.args) >= BURST_LARGE_REQUEST_BYTES;
    const send = async ({ name, payload }: (typeof resolved)[number]): Promise<void> => {
      const outcome = await rawUpdate(own.client, team.teamId, name, payload.args, { timeoutMs: CALL_TIMEOUT_MS });
      countOutcome('concurrent burst', outcome);
      const problem = outcomeProblem(payload.label, outcome);
      if (problem) violations.push(problem);
    };
    await pool(
      resolved.filter((item) => !large(item)),
      6,
      send,
    );
    await pool(resolved.filter(large), 1, send);
    const served = await serveCheck(team.teamId, `burst batch ${batchIndex}`);
    if (served) {
      violations.push(served);
      wedged = (await leadWedged(team.teamId)) ?? served;
      break;
    }
  }
  expect(payloads.length).toBeGreaterThan(300);
  expectClean(await finishTeam(team.teamId, violations, { wedged }));
});

// ---- signals -------------------------------------------------------------------------------------

const SIGNAL_BASES = (teamId: string): Record<string, PayloadSpec> => {
  const at = new Date().toISOString();
  const name = { specific: fc.constantFrom(H('"mate"', MATE), H('"lead"', 'lead'), H('"ghost"', 'ghost'), ...PROTO_NAMES.map((n) => H(JSON.stringify(n), n))) };
  const waitId = { specific: fc.constantFrom(H('"w1"', 'w1'), H('10k id', 'w'.repeat(10_000)), ...PROTO_NAMES.map((n) => H(JSON.stringify(n), n))) };
  const kinds = { specific: fc.constantFrom(H('[]', []), H('["task"]', ['task']), H('["bogus"]', ['bogus']), H('"task"', 'task')) };
  return {
    reportMemberStatus: {
      base: { name: MATE, status: 'idle', turn: 1, consumed: 1 },
      fields: {
        name,
        status: { specific: fc.constantFrom(...['starting', 'running', 'idle', 'exited', 'bogus', 'IDLE'].map((s) => H(JSON.stringify(s), s))) },
        turn: {},
        consumed: { specific: fc.constantFrom(H('2**53+2', 2 ** 53 + 2), H('-5', -5)) },
        usage: {
          specific: fc.constantFrom(
            H('calls only', { calls: 3 }),
            H('tokens 2**53+2', { calls: 1, inputTokens: 2 ** 53 + 2, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 }),
            H('huge', hugeString()),
          ),
        },
        exhausted: {
          specific: fc.constantFrom(
            H('a real stop', { type: 'BudgetExhausted', budget: 'calls', used: 3, limit: 3 }),
            H('unknown budget', { type: 'BudgetExhausted', budget: 'minutes', used: 3, limit: 3 }),
            H('own __proto__ keys', protoKeyObject()),
          ),
        },
      },
    },
    watchEdges: {
      base: { name: MATE, waitId: 'w1', kinds: ['task'], callStartedAt: at },
      fields: {
        name,
        waitId,
        kinds,
        // When the call began: from the epoch (as far back as the Lead keeps edges), the far future, or no time at all.
        callStartedAt: {
          specific: fc.constantFrom(
            H('the epoch', '1970-01-01T00:00:00.000Z'),
            H('year 275760', '+275760-09-13T00:00:00.000Z'),
            H('an offset', '2026-12-07T10:00:00+02:00'),
            H('not a time', 'yesterday'),
            H('10k string', 't'.repeat(10_000)),
            H('a number', 5),
          ),
        },
      },
    },
    unwatchEdges: { base: { name: MATE, waitId: 'w1' }, fields: { name, waitId } },
    subagentAnswer: {
      base: { agentId: `${teamId}/subagent/1`, turn: 1, answer: 'done' },
      fields: {
        agentId: { specific: fc.constantFrom(...PROTO_NAMES.map((n) => H(JSON.stringify(n), n)), H('10k id', 'a'.repeat(10_000))) },
        turn: {},
        answer: {},
      },
    },
    // A member's question under a Team budget (this Team has none: ignored), from anyone, with any payload.
    modelCallRequest: {
      base: {
        member: `${teamId}/teammate/${MATE}`,
        calls: 1,
        usage: { calls: 1, inputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1, reasoningTokens: 0 },
      },
      fields: {
        member: { specific: fc.constantFrom(H('10k id', 'm'.repeat(10_000)), ...PROTO_NAMES.map((n) => H(JSON.stringify(n), n))) },
        calls: { specific: fc.constantFrom(H('2**53+2', 2 ** 53 + 2), H('-5', -5)) },
        usage: { specific: fc.constantFrom(H('calls only', { calls: 3 }), H('own __proto__ keys', protoKeyObject()), H('huge', hugeString())) },
      },
    },
    // The Lead's own wake-up (it carries nothing): anyone's, with any payload, must only cost a workflow task.
    completionNudge: {
      base: { note: 'nudge' },
      fields: {
        note: { specific: fc.constantFrom(H('huge (1.9 MB)', hugeString()), H('own __proto__ keys', protoKeyObject()), H('depth 1000', deepObject(1_000))) },
      },
    },
    deliverMessage: {
      base: { messageId: 'fuzz-delivery', from: 'lead', content: 'hi', sentAt: at },
      fields: {
        messageId: {
          specific: fc.constantFrom(H('201 chars', 'm'.repeat(201)), H('10k id', 'm'.repeat(10_000)), ...PROTO_NAMES.map((n) => H(JSON.stringify(n), n))),
        },
        from: name,
        content: { specific: fc.constantFrom(H('depth 1000', deepObject(1_000)), H('own __proto__ keys', protoKeyObject()), H('huge (1.9 MB)', hugeString())) },
        sentAt: {},
      },
    },
    interruptTurn: { base: { requestedBy: 'lead' }, fields: { requestedBy: name } },
    // Only the Lead sends it, but anyone can: malformed ones are ignored, and no accepted one may stop the mate.
    budgetChanged: {
      base: { limits: { tokens: 1e12 } },
      fields: {
        limits: {
          specific: fc.constantFrom(H('null', null), H('calls -1', { calls: -1 }), H('unknown cap', { minutes: 1 }), H('own __proto__ keys', protoKeyObject())),
        },
        price: { specific: fc.constantFrom(H('negative', { input: -1, output: 1 }), H('string', 'free'), H('huge', hugeString())) },
      },
    },
    // The Lead's answer under a Team budget: the mate has none and never asked, so even a refusal must not stop it.
    modelCallAnswer: {
      base: { calls: 0, exhaustion: { type: 'BudgetExhausted', budget: 'calls', used: 5, limit: 5, scope: 'team' } },
      fields: {
        calls: { specific: fc.constantFrom(H('2**53+2', 2 ** 53 + 2), H('-5', -5), H('"0"', '0')) },
        exhaustion: {
          specific: fc.constantFrom(
            H('unknown budget', { type: 'BudgetExhausted', budget: 'minutes', used: 3, limit: 3 }),
            H('own __proto__ keys', protoKeyObject()),
          ),
        },
      },
    },
    edgeNotification: {
      base: { waitId: 'w1', edge: { seq: 1, kind: 'task', subject: 'taskCreated', at } },
      fields: {
        waitId,
        edge: {
          specific: fc.constantFrom(H('edge null', null), H('edge {}', {}), H('edge seq unsafe', { seq: 2 ** 53 + 2, kind: 'bogus', subject: {}, at: 5 })),
        },
      },
    },
  };
};

async function fuzzSignals(
  team: FuzzTeam,
  signal: string,
  target: 'lead' | 'teammate',
  templates: PayloadTemplate[],
): Promise<{ violations: string[]; wedged: string | null }> {
  const violations: string[] = [];
  const targetId = target === 'lead' ? team.teamId : team.mateId;
  for (const [batchIndex, batch] of chunks(templates, SIGNAL_BATCH).entries()) {
    const before = await view(team.teamId).catch(() => null);
    await pool(batch, 4, async (template) => {
      const error = await rawSignal(own.client, targetId, signal, template.args);
      count(`signal ${signal}`, 'payloads');
      count(`signal ${signal}`, error ? 'refused by the server' : 'delivered');
      // A signal the server refuses (e.g. over its size limit) never reaches the workflow; note it only.
      if (error && !/size|too large|exceed/i.test(error)) violations.push(`${template.label}: signal not delivered: ${error.slice(0, 200)}`);
    });
    const probe = `${signal} batch ${batchIndex}`;
    const served = await serveCheck(team.teamId, probe);
    if (served) return { violations: [...violations, served], wedged: (await leadWedged(team.teamId)) ?? served };
    const after = await view(team.teamId).catch(() => null);
    // The serve check created exactly one task: everything else must be as before the signals.
    if (before && after) {
      const withoutProbe = { ...after, tasks: after.tasks.filter((t) => t.subject !== `probe ${probe}`), nextTaskId: after.nextTaskId - 1 };
      const diff = firstDifference(before, withoutProbe);
      if (diff) violations.push(`${probe}: signals changed the board/roster: ${diff}`);
      const live = await rawQuery<Record<string, unknown>>(own.client, team.teamId, 'getLiveStatus').catch(() => ({}));
      violations.push(
        ...liveStatusProblems(
          live,
          after.members.map((m) => m.name),
        ).map((p) => `${probe}: ${p}`),
      );
    }
    if (target === 'teammate') {
      const mateServed = await teammateServeCheck(team.teamId, MATE, probe);
      if (mateServed) {
        violations.push(mateServed);
        break;
      }
      const state = await rawQuery<{ status: unknown }>(own.client, team.mateId, 'getTeammateState').catch(() => null);
      if (state && !LIVE_STATUSES.includes(String(state.status))) violations.push(`${probe}: teammate status ${preview(state.status)}`);
    }
  }
  return { violations, wedged: null };
}

describe('every signal, hostile payloads (Lead and teammate)', () => {
  test.each(
    [...LEAD_SIGNALS.map((s) => [s, 'lead'] as const), ...TEAMMATE_SIGNALS.map((s) => [s, 'teammate'] as const)].map(([s, t], i) => [s, t, i] as const),
  )('%s (to the %s)', async (signal, target, index) => {
    const team = await startFuzzTeam(`sig-${signal}`);
    const spec = SIGNAL_BASES(team.teamId)[signal]!;
    // Fuzzed payloads first, the shapes (no argument, null, …) last: the no-payload tests below
    // cover those alone, so a handler that breaks on them does not hide what the rest does.
    const templates = [...sampleOf(payloadArbitrary(spec), FUZZ_PER_SIGNAL, SEED + 300 + index), ...shapeCases(spec.base)].map((t, i) => ({
      label: `${signal} #${i} ${t.label}`,
      args: t.args,
    }));
    const { violations, wedged } = await fuzzSignals(team, signal, target, templates);
    expectClean(await finishTeam(team.teamId, violations, { wedged }));
  });
});

describe('every signal with no payload at all (temporal workflow signal --name X, no --input)', () => {
  test.each([...LEAD_SIGNALS.map((s) => [s, 'lead'] as const), ...TEAMMATE_SIGNALS.map((s) => [s, 'teammate'] as const)])(
    '%s (to the %s)',
    async (signal, target) => {
      const team = await startFuzzTeam(`nopayload-${signal}`);
      const targetId = target === 'lead' ? team.teamId : team.mateId;
      const violations: string[] = [];
      // String-name form and definition form, both without any argument.
      count('signals without payload', 'payloads', 2);
      for (const error of [
        await rawSignal(own.client, targetId, signal, []),
        await own.client.workflow
          .getHandle(targetId)
          .signal(defineSignal<[]>(signal))
          .then(
            () => null,
            (e: unknown) => String(e),
          ),
      ]) {
        if (error) violations.push(`signal not delivered: ${error}`);
      }
      const served = await serveCheck(team.teamId, `${signal} without payload`);
      if (served) violations.push(served);
      if (!served && target === 'teammate') {
        const mate = await teammateServeCheck(team.teamId, MATE, `${signal} without payload`);
        if (mate) violations.push(mate);
      }
      expectClean(await finishTeam(team.teamId, violations, { wedged: served ? ((await leadWedged(team.teamId)) ?? served) : null }));
    },
  );
});

// ---- the reported cases --------------------------------------------------------------------------

describe('reported cases', () => {
  test('reportMemberStatus with no payload leaves the Lead serving Updates (no failed workflow task, not wedged)', async () => {
    const team = await startFuzzTeam('report-no-payload');
    const handle = own.client.workflow.getHandle(team.teamId);
    await handle.signal('reportMemberStatus');
    count('reported: reportMemberStatus without payload', 'payloads');
    const violations: string[] = [];
    const served = await serveCheck(team.teamId, 'reportMemberStatus without payload');
    if (served) violations.push(served);
    // Later Updates are answered too, not only the first one.
    const listed = await update(team.teamId, 'listTasks', { caller: 'lead' });
    if (listed.kind !== 'ok') violations.push(`listTasks afterwards: ${describeOutcome(listed)}`);
    expectClean(await finishTeam(team.teamId, violations, { wedged: served ? ((await leadWedged(team.teamId)) ?? served) : null }));
  });

  const prototypeKeys = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
  test.each<[string, ScriptStep[]]>([
    ['send_input', prototypeKeys.map((agentId) => tool('send_input', { agentId, message: 'are you there?' }))],
    ['wait_agent', [tool('wait_agent', { agentId: 'constructor', timeoutMs: 50 })]],
    ['close_agent', [tool('close_agent', { agentId: 'constructor' })]],
  ])(
    'a Lead agent on the default profile calling %s with agentId "constructor" (and other inherited keys) gets a typed tool error and keeps serving',
    async (toolName, steps) => {
      const team = await TeamClient.start(own.client, {
        teamId: uniqueId(`adv-model-${toolName.replace('_', '-')}`),
        taskQueue: env.worker.taskQueue,
        agent: { prompt: scriptText(...steps, answer('probed')) },
      });
      const violations: string[] = [];
      let wedged: string | null = null;
      const deadline = Date.now() + 60_000;
      type AgentView = { status: string; finalAnswer: string | null; conversation: { role: string; toolName?: string; content: unknown }[] };
      let state = null as AgentView | null;
      while (Date.now() < deadline) {
        state = await rawQuery<AgentView>(own.client, team.teamId, 'getAgentState', [], 5_000).catch(() => null);
        if (state && (state.status === 'answered' || state.status === 'failed')) break;
        wedged = await leadWedged(team.teamId);
        if (wedged) break;
        await sleep(500);
      }
      if (wedged) violations.push(wedged);
      else if (!state || state.status !== 'answered' || state.finalAnswer !== 'probed')
        violations.push(`the Lead did not answer: ${preview(state && { status: state.status, finalAnswer: state.finalAnswer }, 200)}`);
      else {
        const results = state.conversation.filter((e) => e.role === 'tool' && e.toolName === toolName).map((e) => toolResult(e));
        if (results.length !== steps.length) violations.push(`expected ${steps.length} ${toolName} results, got ${results.length}`);
        for (const result of results) {
          const type = result.error;
          if (typeof type !== 'string' || !DOCUMENTED_TYPES.has(type)) violations.push(`${toolName} result is not a typed error: ${preview(result, 200)}`);
        }
      }
      expectClean(await finishTeam(team.teamId, violations, { wedged, extraIds: [`${team.teamId}/subagent/1`] }));
    },
  );

  test('five createTask calls with 50 nested write scopes each: every result under 2 MB, the Lead is not terminated', async () => {
    const team = await TeamClient.start(own.client, { teamId: uniqueId('adv-scopes'), taskQueue: env.worker.taskQueue });
    const violations: string[] = [];
    const sizes: Record<string, number> = {};
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const outcome = await update(team.teamId, 'createTask', { caller: 'lead', subject: `scoped ${i}`, writeScopes: nestedScopes(50) });
      countOutcome('reported: 5 × 50 nested scopes', outcome);
      if (outcome.kind === 'ok') {
        sizes[`createTask ${i}`] = outcome.resultBytes;
        ids.push(taskOf(outcome.result).id);
      } else violations.push(`createTask ${i} with the documented maximum of 50 scopes: ${describeOutcome(outcome)}`);
      const problem = outcomeProblem(`createTask ${i}`, outcome);
      if (problem) violations.push(problem);
    }
    const listed = await update(team.teamId, 'listTasks', { caller: 'lead' });
    if (listed.kind === 'ok') sizes.listTasks = listed.resultBytes;
    else violations.push(`listTasks: ${describeOutcome(listed)}`);
    for (const id of ids) {
      const read = await update(team.teamId, 'readTask', { caller: 'lead', taskId: id });
      if (read.kind === 'ok') sizes[`readTask ${id}`] = read.resultBytes;
      else violations.push(`readTask ${id}: ${describeOutcome(read)}`);
    }
    try {
      sizes.getTeamView = jsonBytes(await view(team.teamId));
    } catch (error) {
      violations.push(`getTeamView: ${String(error).slice(0, 300)}`);
    }
    for (const [what, bytes] of Object.entries(sizes)) {
      const limit = what === 'getTeamView' ? GRPC_MESSAGE_LIMIT_BYTES : PAYLOAD_LIMIT_BYTES;
      if (bytes >= limit) violations.push(`${what} is ${bytes} bytes, over the ${limit}-byte limit`);
    }
    expectClean(await finishTeam(team.teamId, violations, { wedged: await leadWedged(team.teamId) }));
  });

  test('a full board (100 tasks × 20,000-char descriptions) plus ~80 more mutations is driven past continue-as-new, and the Lead survives it', async () => {
    const team = await TeamClient.start(own.client, { teamId: uniqueId('adv-fullboard'), taskQueue: env.worker.taskQueue });
    const teamId = team.teamId;
    const violations: string[] = [];
    const model = new Map<number, { subject: string; description: string; revision: number }>();
    let rollingOverRefusals = 0;
    let lostToRunClose = 0;
    let gone: string | null = null;
    /** One mutation as a raw caller: TeamRollingOver and a run closing under the call are retried with the same update id. */
    const mutate = async (name: string, argument: Record<string, unknown>, label: string): Promise<UpdateOutcome | null> => {
      const updateId = uniqueId('u');
      const deadline = Date.now() + 60_000;
      for (;;) {
        const outcome = await rawUpdate(own.client, teamId, name, [argument], { timeoutMs: CALL_TIMEOUT_MS, updateId });
        countOutcome('reported: full board past continue-as-new', outcome);
        if (outcome.kind === 'rejected' && outcome.type === 'TeamRollingOver' && Date.now() < deadline) {
          rollingOverRefusals++;
          await sleep(100);
          continue;
        }
        if (outcome.kind === 'error') {
          const wedged = await leadWedged(teamId);
          if (wedged) {
            gone = wedged;
            violations.push(`${label}: ${wedged}`);
            return null;
          }
          if (Date.now() < deadline) {
            lostToRunClose++;
            continue;
          }
        }
        const problem = outcomeProblem(label, outcome);
        if (problem) violations.push(problem);
        return outcome;
      }
    };
    const big = (tag: string): string => `${tag}:`.padEnd(20_000, tag.slice(-1));
    for (let i = 0; i < 100 && !gone; i++) {
      const description = big(`task ${i} v1 ${String.fromCharCode(97 + (i % 26))}`);
      const outcome = await mutate('createTask', { caller: 'lead', subject: `big ${i}`, description }, `createTask ${i}`);
      if (outcome?.kind === 'ok') {
        const task = taskOf(outcome.result);
        model.set(task.id, { subject: `big ${i}`, description, revision: task.revision });
      }
    }
    const created = [...model.keys()];
    for (let i = 0; i < 80 && !gone && created.length > 0; i++) {
      const id = created[i % created.length]!;
      const entry = model.get(id)!;
      const description = big(`task ${id} v2 ${String.fromCharCode(65 + (i % 26))}`);
      const outcome = await mutate('editTask', { caller: 'lead', taskId: id, expectedRevision: entry.revision, description }, `editTask ${id}`);
      if (outcome?.kind === 'ok') model.set(id, { ...entry, description, revision: taskOf(outcome.result).revision });
    }
    // Keep going with small edits until the Lead has continued as new (it must, after 1,000 accepted Updates at the latest).
    let driver: { id: number; revision: number } | null = null;
    for (let i = 0; i < 1_200 && !gone; i++) {
      if (i % 50 === 0) {
        const info = await rawQuery<{ continuedRuns: number }>(own.client, teamId, 'getLeadRunInfo').catch(() => null);
        if (info && info.continuedRuns >= 1) break;
      }
      if (!driver) {
        const outcome = await mutate('createTask', { caller: 'lead', subject: 'driver' }, 'createTask driver');
        if (outcome?.kind !== 'ok') break;
        driver = taskOf(outcome.result);
        continue;
      }
      const outcome = await mutate(
        'editTask',
        { caller: 'lead', taskId: driver.id, expectedRevision: driver.revision, subject: `driver ${i}` },
        `editTask driver ${i}`,
      );
      if (outcome?.kind !== 'ok') break;
      driver = taskOf(outcome.result);
    }
    const info = gone ? null : await rawQuery<{ continuedRuns: number }>(own.client, teamId, 'getLeadRunInfo').catch(() => null);
    if (!gone && (!info || info.continuedRuns < 1)) violations.push(`the Lead never continued as new (run info ${preview(info)})`);
    if (!gone) {
      try {
        const current = await view(teamId);
        for (const [id, expected] of model) {
          const task = current.tasks.find((t) => t.id === id);
          if (!task || task.subject !== expected.subject || task.description !== expected.description || task.revision !== expected.revision) {
            violations.push(
              `task ${id} after continue-as-new is ${task ? `rev ${task.revision}, description of ${task.description.length} chars` : 'missing'}; ` +
                `expected rev ${expected.revision}`,
            );
            break;
          }
        }
      } catch (error) {
        violations.push(`getTeamView after continue-as-new: ${String(error).slice(0, 300)}`);
      }
    }
    const chain = await chainReport(own.client, teamId);
    for (const run of chain.runs) {
      if (run.startInputBytes >= PAYLOAD_LIMIT_BYTES) violations.push(`run ${run.runId.slice(0, 8)} started with ${run.startInputBytes} bytes of input`);
    }
    // Reported, not asserted: docs/wire-contract.md documents TeamRollingOver as retriable.
    console.info(
      `full board: ${model.size} tasks accepted, ${rollingOverRefusals} TeamRollingOver refusals, ${lostToRunClose} calls retried after their run closed, ` +
        `runs: ${chain.runs.map((r) => `${r.status}/${r.historyLength} events/${r.startInputBytes} B input`).join(', ')}`,
    );
    expectClean(await finishTeam(teamId, violations, { wedged: gone }));
  });
});

// ---- workflow inputs -------------------------------------------------------------------------------

type InputMode = 'strict' | 'tolerant';
interface InputCase {
  label: string;
  /** Builds the argument list for a workflow id. */
  args: (workflowId: string) => unknown[];
  mode: InputMode;
}

const leadInputCases: InputCase[] = [
  { label: 'teamId different from the workflow id', args: () => [{ teamId: 'someone-elses-team' }], mode: 'strict' },
  { label: 'teamId of 10 kB (differs from the workflow id)', args: () => [{ teamId: 't'.repeat(10_000) }], mode: 'strict' },
  { label: 'missing teamId', args: () => [{}], mode: 'strict' },
  { label: 'no input at all', args: () => [], mode: 'strict' },
  { label: 'null input', args: () => [null], mode: 'strict' },
  { label: 'string input', args: (id) => [id], mode: 'strict' },
  { label: 'array input', args: (id) => [[{ teamId: id }]], mode: 'strict' },
  { label: 'teamId as a number', args: () => [{ teamId: 42 }], mode: 'strict' },
  { label: 'teammateMaxTurnsPerRun: 0', args: (id) => [{ teamId: id, teammateMaxTurnsPerRun: 0 }], mode: 'strict' },
  { label: 'teammateMaxTurnsPerRun: -1', args: (id) => [{ teamId: id, teammateMaxTurnsPerRun: -1 }], mode: 'strict' },
  { label: 'teammateMaxTurnsPerRun: "ten"', args: (id) => [{ teamId: id, teammateMaxTurnsPerRun: 'ten' }], mode: 'strict' },
  { label: 'teammateMaxTurnsPerRun: 2**53+2', args: (id) => [{ teamId: id, teammateMaxTurnsPerRun: 2 ** 53 + 2 }], mode: 'strict' },
  { label: 'maxMembers: -1', args: (id) => [{ teamId: id, maxMembers: -1 }], mode: 'strict' },
  { label: 'maxMembers: 1,000,000', args: (id) => [{ teamId: id, maxMembers: 1_000_000 }], mode: 'strict' },
  { label: 'maxMembers: 2**53+2', args: (id) => [{ teamId: id, maxMembers: 2 ** 53 + 2 }], mode: 'strict' },
  { label: 'maxMembers: 1.5', args: (id) => [{ teamId: id, maxMembers: 1.5 }], mode: 'strict' },
  { label: 'maxMembers: "8"', args: (id) => [{ teamId: id, maxMembers: '8' }], mode: 'strict' },
  { label: 'carried: "junk"', args: (id) => [{ teamId: id, carried: 'junk' }], mode: 'strict' },
  { label: 'carried: {}', args: (id) => [{ teamId: id, carried: {} }], mode: 'strict' },
  {
    label: 'carried with null state and junk fields',
    args: (id) => [{ teamId: id, carried: { state: null, leadInbox: 5, edges: 'x', recentUpdates: {}, continuedRuns: -1 } }],
    mode: 'strict',
  },
  {
    label: 'carried state of another Team with own __proto__ keys',
    args: (id) => [
      {
        teamId: id,
        carried: JSON.parse('{"__proto__":{"state":{}},"state":{"teamId":"other","members":{"__proto__":{"phase":"active"}},"tasks":[],"nextTaskId":"1"}}'),
      },
    ],
    mode: 'strict',
  },
  { label: 'carried: depth-1000 object', args: (id) => [{ teamId: id, carried: deepObject(1_000) }], mode: 'strict' },
  { label: 'agent: "junk"', args: (id) => [{ teamId: id, agent: 'junk' }], mode: 'strict' },
  { label: 'agent: { prompt: 42 }', args: (id) => [{ teamId: id, agent: { prompt: 42 } }], mode: 'strict' },
  { label: 'agent: unknown profile', args: (id) => [{ teamId: id, agent: { prompt: 'x', profile: 'root' } }], mode: 'strict' },
  { label: 'agent: requiredWorkWaitMs 0', args: (id) => [{ teamId: id, agent: { prompt: 'x', requiredWorkWaitMs: 0 } }], mode: 'strict' },
  {
    label: 'agent: requiredWorkWaitMs of 25 hours',
    args: (id) => [{ teamId: id, agent: { prompt: 'x', requiredWorkWaitMs: 25 * 3_600_000 } }],
    mode: 'strict',
  },
  { label: 'agent: requiredWorkWaitMs "soon"', args: (id) => [{ teamId: id, agent: { prompt: 'x', requiredWorkWaitMs: 'soon' } }], mode: 'strict' },
  {
    label: 'agent: junk model, cwd, checkout queue',
    args: (id) => [{ teamId: id, agent: { prompt: 'x', model: 42, cwd: ['/'], checkoutTaskQueue: {} } }],
    mode: 'strict',
  },
  {
    label: 'agent: prompt only behind an own __proto__ key',
    args: (id) => [{ teamId: id, agent: JSON.parse('{"__proto__":{"prompt":"x"}}') }],
    mode: 'strict',
  },
  { label: 'agent: prompt of 1.9 MB', args: (id) => [{ teamId: id, agent: { prompt: hugeString() } }], mode: 'strict' },
  { label: 'forkOf: junk', args: (id) => [{ teamId: id, forkOf: { teamId: 5, conversation: 'x' } }], mode: 'strict' },
  {
    label: 'forkOf: conversation of nulls',
    args: (id) => [{ teamId: id, forkOf: { teamId: 'old', conversation: [null, 42, deepObject(1_000)] } }],
    mode: 'strict',
  },
  { label: 'legacyMailbox: "junk" (documented: listed in problems)', args: (id) => [{ teamId: id, legacyMailbox: 'junk' }], mode: 'tolerant' },
  {
    label: 'legacyMailbox: junk records, depth 1000, own __proto__ keys',
    args: (id) => [
      {
        teamId: id,
        legacyMailbox: [
          null,
          42,
          'x',
          deepObject(1_000),
          protoKeyObject(),
          { id: 'constructor', from: 'lead', to: '__proto__', status: 'queued', content: deepArray(1_000), at: 5 },
        ],
      },
    ],
    mode: 'tolerant',
  },
  {
    label: 'legacyMailbox: one record of 1.9 MB',
    args: (id) => [
      { teamId: id, legacyMailbox: [{ id: 'big', from: 'lead', to: 'bob', status: 'queued', content: hugeString(), at: '2025-01-01T00:00:00Z' }] },
    ],
    mode: 'tolerant',
  },
  {
    label: 'own __proto__ key beside a valid teamId',
    args: (id) => [JSON.parse(`{"teamId":${JSON.stringify(id)},"__proto__":{"maxMembers":-1,"carried":{"state":null}}}`) as unknown],
    mode: 'tolerant',
  },
];

const validTeammateInput = (id: string): Record<string, unknown> => ({
  descriptor: { teamId: `${id}-no-such-lead`, name: 'direct', context: 'fresh', initialMessageId: `${id}/initial` },
  model: null,
  seed: [],
  initialMessage: { messageId: `${id}/initial`, from: 'lead', content: 'hi', sentAt: new Date().toISOString() },
});

const teammateInputCases: InputCase[] = [
  { label: 'no input at all', args: () => [], mode: 'strict' },
  { label: 'null input', args: () => [null], mode: 'strict' },
  { label: '{}', args: () => [{}], mode: 'strict' },
  { label: 'descriptor null', args: (id) => [{ ...validTeammateInput(id), descriptor: null }], mode: 'strict' },
  {
    label: 'junk types everywhere',
    args: () => [{ descriptor: { teamId: 5, name: {}, context: 'x', initialMessageId: [] }, model: [], seed: 'x', initialMessage: 42 }],
    mode: 'strict',
  },
  { label: 'maxTurnsPerRun: 0 (would continue as new in a tight loop)', args: (id) => [{ ...validTeammateInput(id), maxTurnsPerRun: 0 }], mode: 'strict' },
  { label: 'seed of nulls and depth 1000', args: (id) => [{ ...validTeammateInput(id), seed: [null, deepObject(1_000)] }], mode: 'strict' },
  { label: 'initialMessage null', args: (id) => [{ ...validTeammateInput(id), initialMessage: null }], mode: 'strict' },
  { label: 'carried junk', args: (id) => [{ ...validTeammateInput(id), carried: { inbox: 'x', conversation: 5 } }], mode: 'strict' },
  { label: 'descriptor with own __proto__ keys only', args: (id) => [{ ...validTeammateInput(id), descriptor: protoKeyObject() }], mode: 'strict' },
];

interface StartObservation {
  outcome: 'refused at start' | 'failed typed' | 'failed untyped' | 'completed' | 'running' | 'wedged' | 'terminated' | 'other';
  detail: string;
  runs: number;
}

/**
 * Starts a workflow with hostile input and watches it: it has closed, or a workflow task failed,
 * or it completed a workflow task and is still running 1.5 s later (it accepted the input).
 */
async function observeStart(client: Client, workflowType: string, workflowId: string, args: unknown[]): Promise<StartObservation> {
  try {
    await client.workflow.start(workflowType, { workflowId, taskQueue: env.worker.taskQueue, args });
  } catch (error) {
    return { outcome: 'refused at start', detail: String(error).slice(0, 200), runs: 0 };
  }
  const handle = client.workflow.getHandle(workflowId);
  const deadline = Date.now() + 20_000;
  let runningSince: number | null = null;
  while (Date.now() < deadline) {
    const chain = await chainReport(client, workflowId);
    const latest = chain.runs[0]!;
    if (chain.failedWorkflowTasks > 0) {
      const first = chain.runs.flatMap((r) => r.workflowTaskFailures)[0]!;
      return { outcome: 'wedged', detail: `${first.cause}: ${first.message}`, runs: chain.runs.length };
    }
    if (chain.runs.length > 3) return { outcome: 'running', detail: `continued as new ${chain.runs.length - 1} times within seconds`, runs: chain.runs.length };
    if (latest.status === 'TERMINATED') return { outcome: 'terminated', detail: latest.terminationReason ?? '', runs: chain.runs.length };
    if (latest.status === 'COMPLETED') return { outcome: 'completed', detail: '', runs: chain.runs.length };
    if (latest.status === 'FAILED') {
      try {
        await handle.result();
        return { outcome: 'other', detail: 'result() resolved for a FAILED run', runs: chain.runs.length };
      } catch (error) {
        const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
        if (cause instanceof ApplicationFailure && cause.type)
          return { outcome: 'failed typed', detail: `${cause.type}: ${cause.message.slice(0, 160)}`, runs: chain.runs.length };
        return { outcome: 'failed untyped', detail: `${cause?.name ?? 'unknown'}: ${cause?.message.slice(0, 160) ?? String(error)}`, runs: chain.runs.length };
      }
    }
    if (latest.status !== 'RUNNING') return { outcome: 'other', detail: latest.status, runs: chain.runs.length };
    if (latest.historyLength > 3) {
      runningSince ??= Date.now();
      if (Date.now() - runningSince > 1_500)
        return { outcome: 'running', detail: `still running after its first workflow tasks (${latest.historyLength} events)`, runs: chain.runs.length };
    }
    await sleep(300);
  }
  return { outcome: 'running', detail: 'no decision within 20 s', runs: 1 };
}

/** Observes one hostile start and reads the health of everything it left behind, then cleans up. */
async function judgeInput(inputCase: InputCase & { workflowType: 'teamLead' | 'teammate' }): Promise<Verdict> {
  const workflowId = uniqueId(`adv-input-${inputCase.workflowType}`);
  const observed = await observeStart(own.client, inputCase.workflowType, workflowId, inputCase.args(workflowId));
  count(`input ${inputCase.workflowType}`, 'payloads');
  count(`input ${inputCase.workflowType}`, observed.outcome);
  const violations: string[] = [];
  let extra = '';
  if (observed.outcome === 'running' && inputCase.workflowType === 'teamLead' && inputCase.label.startsWith('teammateMaxTurnsPerRun: 0')) {
    // Show what accepting it means: a teammate of this Lead continues as new in a loop.
    const spawned = await update(workflowId, 'spawnTeammate', { caller: 'lead', name: 'looper', message: 'hi' }, 10_000);
    await sleep(3_000);
    const runs = await chainReport(own.client, teammateId(workflowId, 'looper'))
      .then((c) => c.runs.length)
      .catch(() => 0);
    extra = ` (spawn: ${describeOutcome(spawned)}; its teammate ran ${runs} runs in 3 s)`;
  }
  const accepted = inputCase.mode === 'strict' ? ['failed typed', 'refused at start'] : ['failed typed', 'refused at start', 'running'];
  if (!accepted.includes(observed.outcome)) violations.push(`${observed.outcome}: ${observed.detail}${extra}`);
  if (observed.outcome === 'running' && inputCase.mode === 'tolerant') {
    const served = await serveCheck(workflowId, inputCase.label);
    if (served) violations.push(served);
  }
  if (observed.outcome === 'refused at start') return { violations, failedWorkflowTasks: 0, terminatedRuns: 0, problems: [] };
  const ids = inputCase.workflowType === 'teamLead' ? await teamWorkflowIds(own.client, workflowId) : [workflowId];
  try {
    const health = await teamHealth(own.client, workflowId, ids);
    return { violations, failedWorkflowTasks: health.failedWorkflowTasks, terminatedRuns: health.terminatedRuns, problems: healthProblems(health) };
  } finally {
    await terminateRunning(own.client, ids, 'adversarial suite cleanup (after histories were read)');
  }
}

describe('hostile workflow inputs end the workflow cleanly (FAILED with a typed ApplicationFailure)', () => {
  const cases = [
    ...leadInputCases.map((c) => ({ ...c, workflowType: 'teamLead' as const })),
    ...teammateInputCases.map((c) => ({ ...c, workflowType: 'teammate' as const })),
  ];
  const verdicts = new Map<string, Verdict | Error>();
  const key = (c: (typeof cases)[number]): string => `${c.workflowType}: ${c.label}`;
  // Each start is independent: observe them four at a time, then assert one test per input.
  beforeAll(async () => {
    await pool(cases, 4, async (c) => {
      verdicts.set(key(c), await judgeInput(c).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))));
    });
  });
  test.each(cases.map((c) => [key(c)] as const))('%s', (label) => {
    const verdict = verdicts.get(label);
    if (verdict instanceof Error) throw verdict;
    expectClean(verdict!);
  });
});

test('the suite reads its accepted failure types from docs/wire-contract.md and counts only non-benign task failures', () => {
  for (const type of ['InvalidTeamCommand', 'PayloadTooLarge', 'BoardFull', 'NotATeamMember', 'TaskNotFound', 'TeamRollingOver', 'UnknownAgent'])
    expect(DOCUMENTED_TYPES.has(type)).toBe(true);
  expect(BENIGN_TASK_FAILURE_CAUSES).toEqual(['WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND', 'WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND']);
  // The arbitraries really produce what the suite claims to send.
  const values = sampleOf(hostileValue, 2_000, SEED);
  expect(values.some((v) => v.value === null)).toBe(true);
  expect(values.some((v) => Array.isArray(v.value))).toBe(true);
  expect(values.some((v) => typeof v.value === 'string' && v.value.length >= 1_000_000)).toBe(true);
  expect(values.some((v) => typeof v.value === 'number' && !Number.isSafeInteger(v.value) && Number.isInteger(v.value))).toBe(true);
  expect(values.some((v) => typeof v.value === 'object' && v.value !== null && Object.prototype.hasOwnProperty.call(v.value, '__proto__'))).toBe(true);
  expect(nestedScopes(3)).toEqual(['d0', 'd0/d1', 'd0/d1/d2']);
  expect(kebabName(40)).toMatch(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/);
  expect(kebabName(40)).toHaveLength(40);
  expect(kebabName(41)).toHaveLength(41);
});
