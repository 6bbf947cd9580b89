/**
 * Helpers for the adversarial suite (test/integration/adversarial.test.ts): hostile payloads as
 * fast-check arbitraries, raw SDK calls with deadlines and typed-outcome classification, and a
 * health report that walks every run of a workflow's continue-as-new chain.
 *
 * Everything here talks to the server through the raw Temporal SDK (string Update and signal
 * names, any argument list), never through the project's TeamClient: the point is to send what a
 * hostile or careless caller can send.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { WorkflowUpdateFailedError, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type Client, type GrpcRetryOptions } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import fc from 'fast-check';
import { grpcErrorOf, inFlightByteLimit } from '../../client/callErrors';

// ---- sizes -------------------------------------------------------------------------------------

/** Temporal's hard limits (defaults of the dev server): one payload, one gRPC message. */
export const PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;
export const GRPC_MESSAGE_LIMIT_BYTES = 4 * 1024 * 1024;

/** UTF-8 bytes of the JSON encoding (what the default payload converter writes). */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

// ---- failure types -----------------------------------------------------------------------------

/**
 * The stable failure types a caller may see: every `type` in the tables of the "Failure types"
 * section of docs/wire-contract.md, read at run time, so a type is accepted exactly when it is
 * documented there. A missing section throws rather than accepting nothing silently.
 */
export function documentedFailureTypes(docPath = path.resolve(__dirname, '../../docs/wire-contract.md')): Set<string> {
  const types = new Set<string>();
  const doc = fs.readFileSync(docPath, 'utf8');
  const start = doc.indexOf('## Failure types'); // a level-2 or level-3 heading
  if (start < 0) throw new Error(`${docPath} has no "Failure types" section: the adversarial test checks every rejection against it`);
  const rest = doc.slice(start + 1);
  const end = rest.search(/\n## /);
  const section = end < 0 ? rest : rest.slice(0, end);
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const firstCell = line.split('|')[1] ?? '';
    for (const match of firstCell.matchAll(/`([A-Za-z][A-Za-z0-9]*)`/g)) types.add(match[1]!);
  }
  return types;
}

// ---- deadlines and pools -----------------------------------------------------------------------

export class DeadlineExceeded extends Error {
  constructor(label: string, ms: number) {
    super(`${label}: no answer within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * Runs `fn` with every gRPC call inside it aborted after `ms`, and gives up on it at the same time
 * even if the SDK keeps waiting. The abandoned promise is marked handled, so a call stuck on a
 * wedged workflow can never surface later as an unhandled rejection (e.g. when the connection closes).
 */
export async function bounded<T>(client: Client, ms: number, label: string, fn: () => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const call = client.withAbortSignal(controller.signal, fn);
  call.catch(() => undefined);
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new DeadlineExceeded(label, ms));
    }, ms);
  });
  try {
    return await Promise.race([call, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `fn` over `items` with at most `concurrency` calls in flight; results keep the items' order. */
export async function pool<I, O>(items: readonly I[], concurrency: number, fn: (item: I, index: number) => Promise<O>): Promise<O[]> {
  const results: O[] = new Array<O>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---- raw calls ---------------------------------------------------------------------------------

/** How an Update call ended, as a caller sees it. */
export type UpdateOutcome =
  | { kind: 'ok'; result: unknown; resultBytes: number }
  | { kind: 'rejected'; type: string | undefined; message: string }
  /**
   * The server refused to admit the Update: its request alone is at or over the in-flight Update
   * payload limit (history.maxInFlightUpdatePayloads), so it can never be admitted. The Lead never
   * saw it; `requestBytes` is the JSON size of the arguments, `limitBytes` what the server named.
   */
  | { kind: 'refused'; requestBytes: number; limitBytes: number }
  | { kind: 'error'; error: string; deadline: boolean };

/**
 * The SDK's gRPC retries, except for a refusal at the in-flight Update payload limit, which
 * rawUpdate handles itself: the SDK's backoff for RESOURCE_EXHAUSTED (1 s growing to 5 s, 10
 * attempts) outlasts any call deadline here, and for a request that alone is over the limit no
 * retry can help. Pass as `interceptors` to Connection.connect.
 */
export function adversarialRetryInterceptors(): ReturnType<typeof makeGrpcRetryInterceptor>[] {
  const defaults = defaultGrpcRetryOptions();
  const options: GrpcRetryOptions = {
    delayFunction: defaults.delayFunction,
    retryableDecider: (attempt, status) => inFlightByteLimit(status.details) === null && defaults.retryableDecider(attempt, status),
  };
  return [makeGrpcRetryInterceptor(options)];
}

/** A payload as sent: `args` is the Update's (or signal's) argument list; `[]` sends no argument at all. */
export interface PayloadCase {
  label: string;
  args: unknown[];
}

/** Executes an Update by its string name with exactly `args`, bounded, and classifies the outcome. */
export async function rawUpdate(
  client: Client,
  workflowId: string,
  name: string,
  args: unknown[],
  options: { timeoutMs?: number; updateId?: string } = {},
): Promise<UpdateOutcome> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  const requestBytes = jsonBytes(args);
  // One update id for every attempt, as a careful caller retries.
  const updateId = options.updateId ?? `raw-${name}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  try {
    for (;;) {
      try {
        const result: unknown = await bounded(client, Math.max(1, deadline - Date.now()), `${name} on ${workflowId}`, () =>
          // Any argument list, also none at all: the overloads want a tuple, the wire takes a list.
          client.workflow.getHandle(workflowId).executeUpdate<unknown, [unknown]>(name, { args: args as [unknown], updateId }),
        );
        return { kind: 'ok', result, resultBytes: jsonBytes(result) };
      } catch (error) {
        const grpc = grpcErrorOf(error);
        const limitBytes = grpc === null ? null : inFlightByteLimit(grpc.details);
        if (limitBytes === null) throw error;
        if (requestBytes >= limitBytes) return { kind: 'refused', requestBytes, limitBytes };
        // It fits alone: other Updates in flight filled the limit. Wait for them, within the deadline.
        if (Date.now() + 250 >= deadline) throw error;
        await sleep(250);
      }
    }
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      return { kind: 'rejected', type: error.cause.type ?? undefined, message: error.cause.message };
    }
    const cause = error instanceof Error && error.cause instanceof Error ? ` (cause: ${error.cause.name}: ${error.cause.message})` : '';
    return {
      kind: 'error',
      error: `${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}${cause}`,
      deadline: error instanceof DeadlineExceeded,
    };
  }
}

/** Signals by string name with exactly `args` (`[]`: no argument, like `temporal workflow signal` without `--input`). */
export async function rawSignal(client: Client, workflowId: string, name: string, args: unknown[], timeoutMs = 20_000): Promise<string | null> {
  try {
    await bounded(client, timeoutMs, `signal ${name} to ${workflowId}`, () => client.workflow.getHandle(workflowId).signal<unknown[]>(name, ...args));
    return null;
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
}

export async function rawQuery<T>(client: Client, workflowId: string, name: string, args: unknown[] = [], timeoutMs = 20_000): Promise<T> {
  return bounded(client, timeoutMs, `query ${name} on ${workflowId}`, () => client.workflow.getHandle(workflowId).query<T, unknown[]>(name, ...args));
}

// ---- health: every run of a continue-as-new chain ----------------------------------------------

const TASK_FAILED_CAUSE = temporal.api.enums.v1.WorkflowTaskFailedCause;

/**
 * Workflow task failures the server itself records, never the worker, and that are not failures of
 * workflow code: they are reported but not counted.
 *  - UNHANDLED_COMMAND: new events (a signal, an Update) arrived while a worker completed the run
 *    (continue-as-new, completion); the SDK redoes the task with the new events.
 *  - FORCE_CLOSE_COMMAND: signals buffered while a workflow task was in flight went over the
 *    server's buffered-events limit (2 MiB by default): the server fails the in-flight task to flush
 *    them, and the next task takes them. Hostile signals of ~1.9 MB each reach it on a busy machine;
 *    no workflow code is involved and the run goes on (seen once in the watchEdges batch).
 */
export const BENIGN_TASK_FAILURE_CAUSES = ['WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND', 'WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND'];

export interface RunReport {
  workflowId: string;
  runId: string;
  status: string;
  historyLength: number;
  /** Bytes of the run's start input (for a continued run: the carried state). */
  startInputBytes: number;
  workflowTaskFailures: { eventId: string; cause: string; message: string }[];
  benignTaskFailures: number;
  terminationReason: string | null;
  /** How a FAILED run failed. */
  failure: { type: string | null; message: string } | null;
}

export interface ChainReport {
  workflowId: string;
  runs: RunReport[];
  failedWorkflowTasks: number;
  terminatedRuns: number;
}

async function runReport(client: Client, workflowId: string, runId: string): Promise<{ report: RunReport; previousRunId: string | null }> {
  const handle = client.workflow.getHandle(workflowId, runId);
  const [history, description] = await Promise.all([
    bounded(client, 60_000, `history of ${workflowId}`, () => handle.fetchHistory()),
    bounded(client, 20_000, `describe ${workflowId}`, () => handle.describe()),
  ]);
  const events = history.events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const failures: RunReport['workflowTaskFailures'] = [];
  let benign = 0;
  let terminationReason: string | null = null;
  let failure: RunReport['failure'] = null;
  for (const event of events) {
    const failed = event.workflowTaskFailedEventAttributes;
    if (failed) {
      const cause = TASK_FAILED_CAUSE[failed.cause ?? 0] ?? String(failed.cause);
      if (BENIGN_TASK_FAILURE_CAUSES.includes(cause)) benign++;
      else failures.push({ eventId: String(event.eventId), cause, message: (failed.failure?.message ?? '').slice(0, 400) });
    }
    const terminated = event.workflowExecutionTerminatedEventAttributes;
    if (terminated) terminationReason = `${terminated.reason ?? ''} (by ${terminated.identity ?? 'unknown'})`;
    const closedFailed = event.workflowExecutionFailedEventAttributes;
    if (closedFailed)
      failure = { type: closedFailed.failure?.applicationFailureInfo?.type ?? null, message: (closedFailed.failure?.message ?? '').slice(0, 400) };
  }
  const inputBytes = (started?.input?.payloads ?? []).reduce((sum, p) => sum + (p.data?.length ?? 0), 0);
  return {
    report: {
      workflowId,
      runId,
      status: description.status.name,
      historyLength: events.length,
      startInputBytes: inputBytes,
      workflowTaskFailures: failures,
      benignTaskFailures: benign,
      terminationReason: description.status.name === 'TERMINATED' ? (terminationReason ?? 'terminated') : null,
      failure,
    },
    previousRunId: started?.continuedExecutionRunId || null,
  };
}

/**
 * Every run of a workflow id: the chain followed backwards from the latest run through each run's
 * `continuedExecutionRunId`, united with the runs visibility lists for the id. Counts non-benign
 * WorkflowTaskFailed events over all histories and runs closed as TERMINATED.
 */
export async function chainReport(client: Client, workflowId: string): Promise<ChainReport> {
  const runs: RunReport[] = [];
  const seen = new Set<string>();
  const latest = await bounded(client, 20_000, `describe ${workflowId}`, () => client.workflow.getHandle(workflowId).describe());
  let runId: string | null = latest.runId;
  while (runId && !seen.has(runId)) {
    seen.add(runId);
    const { report, previousRunId } = await runReport(client, workflowId, runId);
    runs.push(report);
    runId = previousRunId;
  }
  try {
    for await (const listed of client.workflow.list({ query: `WorkflowId = "${workflowId.replace(/"/g, '\\"')}"` })) {
      if (seen.has(listed.runId)) continue;
      seen.add(listed.runId);
      runs.push((await runReport(client, workflowId, listed.runId)).report);
    }
  } catch {
    // Visibility is an addition to the chain walk, not a requirement.
  }
  return {
    workflowId,
    runs,
    failedWorkflowTasks: runs.reduce((n, r) => n + r.workflowTaskFailures.length, 0),
    terminatedRuns: runs.filter((r) => r.status === 'TERMINATED').length,
  };
}

/** The Lead and every teammate or subagent workflow a Team has (roster, visibility, explicit extras). */
export async function teamWorkflowIds(client: Client, teamId: string, extra: readonly string[] = []): Promise<string[]> {
  const ids = new Set<string>([teamId, ...extra]);
  try {
    const view = await rawQuery<{ members: { workflowId: string }[] }>(client, teamId, 'getTeamView', [], 10_000);
    for (const member of view.members) ids.add(member.workflowId);
  } catch {
    // a wedged or closed Lead may not answer; visibility still lists its children
  }
  try {
    for await (const wf of client.workflow.list({ query: `AgentTeamId = "${teamId}"` })) ids.add(wf.workflowId);
  } catch {
    // ignore
  }
  return [...ids];
}

export interface TeamHealth {
  chains: ChainReport[];
  failedWorkflowTasks: number;
  terminatedRuns: number;
}

export async function teamHealth(client: Client, teamId: string, extra: readonly string[] = []): Promise<TeamHealth> {
  const ids = await teamWorkflowIds(client, teamId, extra);
  const chains: ChainReport[] = [];
  for (const id of ids) {
    try {
      chains.push(await chainReport(client, id));
    } catch (error) {
      if (!/not found/i.test(String(error))) throw error;
    }
  }
  return {
    chains,
    failedWorkflowTasks: chains.reduce((n, c) => n + c.failedWorkflowTasks, 0),
    terminatedRuns: chains.reduce((n, c) => n + c.terminatedRuns, 0),
  };
}

/** One line per problem: each failed workflow task (cause, message) and each terminated run (reason). */
export function healthProblems(health: TeamHealth): string[] {
  const lines: string[] = [];
  for (const chain of health.chains) {
    for (const run of chain.runs) {
      const byMessage = new Map<string, number>();
      for (const f of run.workflowTaskFailures) {
        const key = `${f.cause}: ${f.message}`;
        byMessage.set(key, (byMessage.get(key) ?? 0) + 1);
      }
      for (const [key, count] of byMessage) lines.push(`${chain.workflowId} run ${run.runId.slice(0, 8)} [${run.status}]: ${count}× WorkflowTaskFailed ${key}`);
      if (run.terminationReason !== null) lines.push(`${chain.workflowId} run ${run.runId.slice(0, 8)} TERMINATED: ${run.terminationReason}`);
    }
  }
  return lines;
}

/** Terminates what is still running after a test (only workflows this suite started; never asserted on afterwards). */
export async function terminateRunning(client: Client, workflowIds: readonly string[], reason: string): Promise<void> {
  for (const id of workflowIds) {
    try {
      const handle = client.workflow.getHandle(id);
      if ((await handle.describe()).status.name === 'RUNNING') await handle.terminate(reason);
    } catch {
      // gone already
    }
  }
}

// ---- comparing state ---------------------------------------------------------------------------

/** The first path where two JSON-ish values differ (own keys only), or null when they are equal. */
export function firstDifference(a: unknown, b: unknown, at = '$'): string | null {
  if (isDeepStrictEqual(a, b)) return null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${at}: ${preview(a)} → ${preview(b)}`;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const left: unknown = Object.getOwnPropertyDescriptor(a, key)?.value;
    const right: unknown = Object.getOwnPropertyDescriptor(b, key)?.value;
    const diff = firstDifference(left, right, `${at}.${key}`);
    if (diff) return diff;
  }
  return `${at}: differs`;
}

export function preview(value: unknown, max = 80): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return value.length > max ? `string(${value.length}) ${JSON.stringify(value.slice(0, 24))}…` : JSON.stringify(value);
  let text: string;
  try {
    const json = JSON.stringify(value) as string | undefined;
    text = json ?? typeof value;
  } catch (error) {
    text = `<${String(error)}>`;
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

// ---- hostile values ----------------------------------------------------------------------------

/** A value with a label, so a failure names what was sent without printing megabytes. */
export interface Hostile {
  label: string;
  value: unknown;
}

const H = (label: string, value: unknown): Hostile => ({ label, value });

export function deepObject(depth: number, leaf: unknown = 'bottom'): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = { n: value };
  return value;
}

export function deepArray(depth: number, leaf: unknown = 'bottom'): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** An object whose own (not inherited) keys are `__proto__` and friends: JSON.parse makes them own properties. */
export function protoKeyObject(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const object = JSON.parse(
    '{"__proto__":{"polluted":true,"caller":"lead","phase":"active"},"constructor":{"prototype":{"polluted":true}},' +
      '"toString":"not a function","hasOwnProperty":42,"valueOf":null}',
  ) as Record<string, unknown>;
  for (const [key, value] of Object.entries(extra)) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

/** Sets an own property (also a key like `__proto__`, which an assignment would treat as the prototype). */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A shallow copy that keeps own `__proto__` keys as data. */
export function cloneOwn(source: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) defineOwn(copy, key, Object.getOwnPropertyDescriptor(source, key)?.value);
  return copy;
}

/**
 * The largest string that still fits a single payload with room for its envelope (~1.9 MB). A
 * signal carries it to the workflow; an Update's request of this size is over the server's
 * in-flight Update payload limit (1 MiB here), so the server refuses it before the Lead sees it.
 */
export const HUGE_LENGTH = 1_900_000;
let hugeCache: string | undefined;
export function hugeString(): string {
  hugeCache ??= 'h'.repeat(HUGE_LENGTH);
  return hugeCache;
}

/**
 * The largest string an Update's request can carry and still be admitted (alone): the in-flight
 * Update payload limit less 48 KiB for the other fields and the envelope (~1 MB). This is the
 * largest input the Lead's validators can meet.
 */
export const ADMITTED_LENGTH = 1024 * 1024 - 48 * 1024;
let admittedCache: string | undefined;
export function largestAdmittedString(): string {
  admittedCache ??= 'a'.repeat(ADMITTED_LENGTH);
  return admittedCache;
}
const LONG_ID = 'i'.repeat(10_000);
const LONG_ASTRAL_ID = '😀'.repeat(5_000); // 10,000 UTF-16 units, 20,000 UTF-8 bytes

export const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__', 'isPrototypeOf'] as const;

const hostileNumber: fc.Arbitrary<Hostile> = fc.oneof(
  fc.constantFrom(
    H('0', 0),
    H('-0', -0),
    H('-1', -1),
    H('1.5', 1.5),
    H('-1e9', -1e9),
    H('2**53 (unsafe)', 2 ** 53),
    H('2**53+2 (unsafe)', 2 ** 53 + 2),
    H('-(2**53+2)', -(2 ** 53 + 2)),
    H('1e21', 1e21),
    H('1e308', 1e308),
    H('Number.MIN_VALUE', Number.MIN_VALUE),
    H('NaN (JSON null)', Number.NaN),
    H('Infinity (JSON null)', Number.POSITIVE_INFINITY),
  ),
  fc.integer().map((n) => H(`int ${n}`, n)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => H(`double ${n}`, n)),
);

const hostileString: fc.Arbitrary<Hostile> = fc.oneof(
  fc.constantFrom(
    H('"NaN"', 'NaN'),
    H('"Infinity"', 'Infinity'),
    H('"-1"', '-1'),
    H('"1"', '1'),
    H('"1e309"', '1e309'),
    H('"0x10"', '0x10'),
    H('" 1 "', ' 1 '),
    H('""', ''),
    H('" "', ' '),
    H('"\\u0000"', '\u0000'),
    H('"null"', 'null'),
    H('"undefined"', 'undefined'),
    H('"true"', 'true'),
    H('"lead"', 'lead'),
    H('"mate"', 'mate'),
    H('"../.."', '../..'),
    H('"/etc/passwd"', '/etc/passwd'),
    H('lone surrogate', '\ud800'),
    H('reversed surrogates', 'a\udfff\ud800b'),
    H('RTL override', '\u202egnp.exe'),
    H('zero-width', '\u200b\u200c\u200d\ufeff'),
    H('astral x100', '😀'.repeat(100)),
    H('long id (10k)', LONG_ID),
    H('long astral id (10k units)', LONG_ASTRAL_ID),
  ),
  fc.constantFrom(...PROTO_NAMES).map((s) => H(JSON.stringify(s), s)),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => H(`unicode ${JSON.stringify(s).slice(0, 30)}`, s)),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => H(`graphemes ${JSON.stringify(s).slice(0, 30)}`, s)),
  fc.string({ maxLength: 30 }).map((s) => H(JSON.stringify(s), s)),
);

const hostileStructure: fc.Arbitrary<Hostile> = fc.oneof(
  fc.constantFrom(
    H('{}', {}),
    H('[]', []),
    H('[1,2,3]', [1, 2, 3]),
    H('[null]', [null]),
    H(
      'array of 10,000',
      Array.from({ length: 10_000 }, (_, i) => i),
    ),
    H('depth-65 object', deepObject(65)),
    H('depth-1000 object', deepObject(1_000)),
    H('depth-1000 array', deepArray(1_000)),
    H('own __proto__/constructor/toString/hasOwnProperty keys', protoKeyObject()),
    H('{"__proto__":null}', JSON.parse('{"__proto__":null}')),
    H('{"constructor":"lead"}', { constructor: 'lead' }),
  ),
  fc.anything({ maxDepth: 3, maxKeys: 4, withNullPrototype: false }).map((v) => H(`anything ${preview(v, 40)}`, v)),
);

/** Wrong types, null, undefined, numbers, strings, structures, and rarely a huge string. */
export const hostileValue: fc.Arbitrary<Hostile> = fc.oneof(
  { arbitrary: fc.constantFrom(H('null', null), H('undefined (key dropped)', undefined), H('true', true), H('false', false)), weight: 3 },
  { arbitrary: hostileNumber, weight: 4 },
  { arbitrary: hostileString, weight: 5 },
  { arbitrary: hostileStructure, weight: 3 },
  { arbitrary: fc.constant(null).map(() => H('huge string (1.9 MB)', hugeString())), weight: 1 },
  { arbitrary: fc.constant(null).map(() => H('string of the largest admitted size (1 MB)', largestAdmittedString())), weight: 1 },
);

/** Keys to add to an otherwise valid argument. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...PROTO_NAMES), weight: 4 },
  { arbitrary: fc.constantFrom('extra', 'caller ', 'Caller', '', 'i'.repeat(10_000)), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }), weight: 2 },
);

// ---- payloads built from a valid base ----------------------------------------------------------

/** Marks a field whose value is filled in at send time (e.g. the task's current revision). */
export interface LateValue {
  late: (context: SendContext, argument: Record<string, unknown>) => unknown;
  label: string;
}
export function late(label: string, fn: (context: SendContext, argument: Record<string, unknown>) => unknown): LateValue {
  return { late: fn, label };
}
function isLate(value: unknown): value is LateValue {
  return typeof value === 'object' && value !== null && typeof (value as Partial<LateValue>).late === 'function';
}

/** What a payload can depend on at send time. */
export interface SendContext {
  revisionOf(taskId: unknown): number;
}

/** A payload template: its first argument may hold LateValues at top level. */
export interface PayloadTemplate {
  label: string;
  args: unknown[];
}

/** Resolves LateValues in the first argument's own top-level keys (keeping own `__proto__` keys). */
export function resolvePayload(template: PayloadTemplate, context: SendContext): PayloadCase {
  const [first, ...rest] = template.args;
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return { label: template.label, args: template.args };
  const copy = cloneOwn(first as Record<string, unknown>);
  for (const key of Object.keys(copy)) {
    const value = Object.getOwnPropertyDescriptor(copy, key)?.value;
    if (isLate(value)) defineOwn(copy, key, value.late(context, copy));
  }
  return { label: template.label, args: [copy, ...rest] };
}

export interface FieldSpec {
  /** Interesting values for this field beyond the generic hostile ones. */
  specific?: fc.Arbitrary<Hostile>;
}

export interface PayloadSpec {
  /** A valid argument (the fuzzing starts from it). */
  base: Record<string, unknown>;
  /** Fields to mutate (also optional ones the base leaves out). */
  fields: Record<string, FieldSpec>;
}

function withField(base: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  const copy = cloneOwn(base);
  defineOwn(copy, field, value);
  return copy;
}

function withoutField(base: Record<string, unknown>, field: string): Record<string, unknown> {
  const copy = cloneOwn(base);
  delete copy[field];
  return copy;
}

function fieldValue(spec: FieldSpec): fc.Arbitrary<Hostile> {
  return spec.specific ? fc.oneof({ arbitrary: spec.specific, weight: 2 }, { arbitrary: hostileValue, weight: 3 }) : hostileValue;
}

/** Hostile variations of a valid argument: one or two fields replaced, a field removed, keys added, the whole argument replaced. */
export function payloadArbitrary(spec: PayloadSpec): fc.Arbitrary<PayloadTemplate> {
  const fieldNames = Object.keys(spec.fields);
  const oneField = fc.constantFrom(...fieldNames).chain((field) => fieldValue(spec.fields[field]!).map((v) => ({ field, v })));
  const replaceOne = oneField.map(({ field, v }): PayloadTemplate => ({ label: `${field} ← ${v.label}`, args: [withField(spec.base, field, v.value)] }));
  const replaceTwo = fc.tuple(oneField, oneField).map(([a, b]): PayloadTemplate => ({
    label: `${a.field} ← ${a.v.label}, ${b.field} ← ${b.v.label}`,
    args: [withField(withField(spec.base, a.field, a.v.value), b.field, b.v.value)],
  }));
  const remove = fc
    .constantFrom(...fieldNames, 'caller')
    .map((field): PayloadTemplate => ({ label: `without ${field}`, args: [withoutField(spec.base, field)] }));
  const addKey = fc
    .tuple(hostileKey, hostileValue)
    .map(([key, v]): PayloadTemplate => ({ label: `extra own key ${preview(key, 24)} = ${v.label}`, args: [withField(spec.base, key, v.value)] }));
  const caller = hostileValue.map((v): PayloadTemplate => ({ label: `caller ← ${v.label}`, args: [withField(spec.base, 'caller', v.value)] }));
  const whole = hostileValue.map((v): PayloadTemplate => ({ label: `argument ← ${v.label}`, args: [v.value] }));
  return fc.oneof(
    { arbitrary: replaceOne, weight: 8 },
    { arbitrary: replaceTwo, weight: 2 },
    { arbitrary: remove, weight: 2 },
    { arbitrary: addKey, weight: 3 },
    { arbitrary: caller, weight: 2 },
    { arbitrary: whole, weight: 3 },
  );
}

/** Shapes every Update and signal gets: no argument, undefined, null, wrong arity, wrapped, proto keys, deep, huge. */
export function shapeCases(base: Record<string, unknown>): PayloadTemplate[] {
  return [
    { label: 'valid base', args: [base] },
    { label: 'no argument at all', args: [] },
    { label: 'undefined argument', args: [undefined] },
    { label: 'null argument', args: [null] },
    { label: 'number argument', args: [42] },
    { label: 'string argument', args: ['lead'] },
    { label: 'array-wrapped valid argument', args: [[base]] },
    { label: 'two arguments (valid, junk)', args: [base, { junk: true }] },
    { label: 'own __proto__/constructor keys beside valid fields', args: [Object.assign(protoKeyObject(), cloneOwn(base))] },
    { label: 'depth-1000 object argument', args: [deepObject(1_000)] },
    { label: 'huge string argument (1.9 MB)', args: [hugeString()] },
    { label: 'string argument of the largest admitted size (1 MB)', args: [largestAdmittedString()] },
  ];
}

/** Deterministic samples of an arbitrary (no shrinking: each sample is sent once to a real server). */
export function sampleOf<T>(arbitrary: fc.Arbitrary<T>, count: number, seed: number): T[] {
  return fc.sample(arbitrary, { numRuns: count, seed });
}

// ---- documented maxima -------------------------------------------------------------------------

/** `d0`, `d0/d1`, …: `count` write scopes, each nested in the previous one (every pair overlaps). */
export function nestedScopes(count: number, prefix = 'd'): string[] {
  const scopes: string[] = [];
  let current = '';
  for (let i = 0; i < count; i++) {
    current = current === '' ? `${prefix}${i}` : `${current}/${prefix}${i}`;
    scopes.push(current);
  }
  return scopes;
}

export function kebabName(length: number): string {
  return `n${'-a'.repeat(Math.floor((length - 1) / 2))}${(length - 1) % 2 === 1 ? 'b' : ''}`.slice(0, length);
}
