/**
 * Helpers for the documented-maxima tests (test/integration/maxima.test.ts): payload sizes measured
 * from real histories (every run of a continue-as-new chain), a simple model of the task board that
 * predicts ids, revisions, statuses and the BoardFull decisions, maximum-size task contents, and a
 * scripted model that fills write_file calls up to the payload limit.
 *
 * Sizes are what the server stored: the bytes of each payload's `data` (the default payload
 * converter writes UTF-8 JSON), summed over the payloads of an event.
 */
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { createScriptedModel } from '../../activities/providers/scriptedModel';
import { BOARD_MAX_BYTES, MAX_BOARD_TASKS, MAX_TOMBSTONES, PAYLOAD_MAX_BYTES, jsonBytes } from '../../shared/contract/limits';
import type { ModelProvider, ModelResponse } from '../../shared/contract/model';
import { chainReport, type ChainReport } from './adversarial';
import { address } from './temporal';
import type { TaskSnapshot, TaskView } from '../../shared/contract/team';
import type { TaskStatus } from '../../shared/contract/vocabulary';

// ---- payloads measured from histories ------------------------------------------------------------

export type PayloadKind =
  | 'startInput'
  | 'continueAsNewInput'
  | 'updateInput'
  | 'updateResult'
  | 'activityInput'
  | 'activityResult'
  | 'childStartInput'
  | 'signalReceived'
  | 'signalSent'
  | 'result';

export interface PayloadMeasure {
  workflowId: string;
  runId: string;
  eventId: string;
  kind: PayloadKind;
  /** Update, activity, signal or child workflow name. */
  name: string;
  bytes: number;
  /** The decoded first payload (JSON), when `decode` asked for this kind and name. */
  value?: unknown;
}

type IPayloads = temporal.api.common.v1.IPayloads | null | undefined;

function payloadBytes(payloads: IPayloads): number {
  return (payloads?.payloads ?? []).reduce((sum, p) => sum + (p.data?.length ?? 0), 0);
}

function firstJson(payloads: IPayloads): unknown {
  const first = payloads?.payloads?.[0];
  if (!first?.data) return undefined;
  const encoding = first.metadata?.encoding ? Buffer.from(first.metadata.encoding).toString('utf8') : '';
  if (encoding !== 'json/plain') return undefined;
  return JSON.parse(Buffer.from(first.data).toString('utf8')) as unknown;
}

/**
 * A client for reading histories: one page of a Lead's history with maximum-size payloads can be
 * larger than gRPC's default 4 MB receive limit (the server pages by event count, not bytes).
 */
export async function connectHistoryClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: address(), channelArgs: { 'grpc.max_receive_message_length': 512 * 1024 * 1024 } });
  return { client: new Client({ connection }), close: () => connection.close() };
}

function millis(time: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined): number {
  if (!time) return 0;
  const seconds = typeof time.seconds === 'number' ? time.seconds : (time.seconds?.toNumber() ?? 0);
  return seconds * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}

export interface ChainPayloads {
  chain: ChainReport;
  measures: PayloadMeasure[];
  /** WorkflowTaskTimedOut events over all runs (not failures of workflow code, but a sign of slow activations). */
  workflowTaskTimeouts: number;
  /** The longest workflow task (started → completed), in ms, over all runs. */
  longestWorkflowTaskMs: number;
}

/**
 * Every payload of every run of `workflowId` (the chain chainReport walks): start inputs (for a
 * continued run, the carried state), continue-as-new inputs, Update inputs and results, activity
 * inputs and results, child start inputs, signals received and sent, the completion result.
 * `decode(kind, name)` says which payloads to keep decoded in `value`.
 */
export async function chainPayloads(
  client: Client,
  workflowId: string,
  decode: (kind: PayloadKind, name: string) => boolean = () => false,
): Promise<ChainPayloads> {
  const chain = await chainReport(client, workflowId);
  const measures: PayloadMeasure[] = [];
  let workflowTaskTimeouts = 0;
  let longestWorkflowTaskMs = 0;
  for (const run of chain.runs) {
    const history = await client.workflow.getHandle(workflowId, run.runId).fetchHistory();
    const activityNames = new Map<string, string>();
    const add = (event: temporal.api.history.v1.IHistoryEvent, kind: PayloadKind, name: string, payloads: IPayloads): void => {
      const measure: PayloadMeasure = { workflowId, runId: run.runId, eventId: String(event.eventId), kind, name, bytes: payloadBytes(payloads) };
      if (decode(kind, name)) measure.value = firstJson(payloads);
      measures.push(measure);
    };
    const startedAt = new Map<string, number>();
    for (const event of history.events ?? []) {
      const at = millis(event.eventTime);
      if (event.workflowTaskStartedEventAttributes) startedAt.set(String(event.eventId), at);
      const taskCompleted = event.workflowTaskCompletedEventAttributes;
      if (taskCompleted) longestWorkflowTaskMs = Math.max(longestWorkflowTaskMs, at - (startedAt.get(String(taskCompleted.startedEventId)) ?? at));
      if (event.workflowTaskTimedOutEventAttributes) workflowTaskTimeouts += 1;
      const started = event.workflowExecutionStartedEventAttributes;
      if (started) add(event, 'startInput', started.workflowType?.name ?? '', started.input);
      const continued = event.workflowExecutionContinuedAsNewEventAttributes;
      if (continued) add(event, 'continueAsNewInput', continued.workflowType?.name ?? '', continued.input);
      const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
      if (accepted) add(event, 'updateInput', accepted.acceptedRequest?.input?.name ?? '', accepted.acceptedRequest?.input?.args);
      const completedUpdate = event.workflowExecutionUpdateCompletedEventAttributes;
      if (completedUpdate?.outcome?.success) add(event, 'updateResult', completedUpdate.meta?.updateId ?? '', completedUpdate.outcome.success);
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled) {
        const name = scheduled.activityType?.name ?? '';
        activityNames.set(String(event.eventId), name);
        add(event, 'activityInput', name, scheduled.input);
      }
      const completedActivity = event.activityTaskCompletedEventAttributes;
      if (completedActivity) add(event, 'activityResult', activityNames.get(String(completedActivity.scheduledEventId)) ?? '', completedActivity.result);
      const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
      if (child) add(event, 'childStartInput', child.workflowId ?? '', child.input);
      const signaled = event.workflowExecutionSignaledEventAttributes;
      if (signaled) add(event, 'signalReceived', signaled.signalName ?? '', signaled.input);
      const sent = event.signalExternalWorkflowExecutionInitiatedEventAttributes;
      if (sent) add(event, 'signalSent', sent.signalName ?? '', sent.input);
      const completed = event.workflowExecutionCompletedEventAttributes;
      if (completed) add(event, 'result', '', completed.result);
    }
  }
  return { chain, measures, workflowTaskTimeouts, longestWorkflowTaskMs };
}

/** The largest payload of each kind (and its name), for reports. */
export function largestByKind(measures: readonly PayloadMeasure[]): Record<string, { bytes: number; name: string; count: number }> {
  const out: Record<string, { bytes: number; name: string; count: number }> = {};
  for (const m of measures) {
    const current = out[m.kind];
    if (!current) out[m.kind] = { bytes: m.bytes, name: m.name, count: 1 };
    else {
      current.count += 1;
      if (m.bytes > current.bytes) Object.assign(current, { bytes: m.bytes, name: m.name });
    }
  }
  return out;
}

/** Payloads over `maxBytes`, described for an assertion message (empty when none). */
export function overPayloadLimit(measures: readonly PayloadMeasure[], maxBytes: number = PAYLOAD_MAX_BYTES): string[] {
  return measures
    .filter((m) => m.bytes > maxBytes)
    .map((m) => `${m.workflowId} run ${m.runId.slice(0, 8)} event ${m.eventId}: ${m.kind} ${m.name} is ${m.bytes} bytes (limit ${maxBytes})`);
}

/** Records sizes of results a test receives (Update and query results, as JSON bytes). */
export class ReceivedSizes {
  readonly largest: Record<string, number> = {};
  readonly over: string[] = [];
  count = 0;

  constructor(private readonly maxBytes: number = PAYLOAD_MAX_BYTES) {}

  record<T>(label: string, value: T): T {
    const bytes = jsonBytes(value);
    this.count += 1;
    this.largest[label] = Math.max(this.largest[label] ?? 0, bytes);
    if (bytes > this.maxBytes) this.over.push(`${label}: ${bytes} bytes`);
    return value;
  }

  async measure<T>(label: string, promise: Promise<T>): Promise<T> {
    return this.record(label, await promise);
  }
}

// ---- maximum-size task contents ------------------------------------------------------------------

/** A deterministic pseudo-random generator (LCG), so every run builds the same contents. */
export function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

export type DescriptionKind = 'ascii' | 'latin' | 'mixed';
const ASCII_UNITS = 'abcdefghijklmnopqrstuvwxyz0123456789 '.split('');
const LATIN_UNITS = ['à', 'é', 'î', 'õ', 'ü', 'ç', 'ñ', 'ø']; // 2 UTF-8 bytes each
const MIXED_UNITS = ['a', 'z', '€', '漢', 'ß', '😀', '🚀']; // 1, 1, 3, 3, 2 bytes; the emoji are 2 UTF-16 units and 4 bytes

/**
 * The code points of a description of exactly `length` UTF-16 units (zod's `max` counts those).
 * Rotating the units keeps both the length and the UTF-8 size: a same-size edit.
 */
export function descriptionUnits(kind: DescriptionKind, seed: number, length: number): string[] {
  const random = lcg(seed);
  const pool = kind === 'ascii' ? ASCII_UNITS : kind === 'latin' ? LATIN_UNITS : MIXED_UNITS;
  const units: string[] = [];
  let size = 0;
  while (size < length) {
    let unit = pool[Math.floor(random() * pool.length)]!;
    if (size + unit.length > length) unit = 'x';
    units.push(unit);
    size += unit.length;
  }
  return units;
}

export function rotated(units: readonly string[], by: number): string {
  const k = ((by % units.length) + units.length) % units.length;
  return units.slice(k).join('') + units.slice(0, k).join('');
}

/**
 * 50 nested write scopes, shallow first: `d00xxxxxx`, `d00xxxxxx/d01xxxxxx`, …; each segment is
 * padded so the deepest normalized path is exactly `deepest` characters (500: the scope limit).
 */
export function nestedLongScopes(count: number, deepest: number): string[] {
  const segment = Math.floor((deepest - (count - 1)) / count);
  const extra = deepest - (count - 1) - segment * count; // added to the last segment
  const segments = Array.from({ length: count }, (_, i) => {
    const name = `d${String(i).padStart(2, '0')}`;
    const width = segment + (i === count - 1 ? extra : 0);
    return name.padEnd(width, 'x');
  });
  return segments.map((_, i) => segments.slice(0, i + 1).join('/'));
}

// ---- a model of the board ------------------------------------------------------------------------

/** A timestamp of the width `new Date().toISOString()` always has: only sizes matter to the model. */
const SOME_TIME = '2000-01-01T00:00:00.000Z';

export interface ModelTask {
  id: number;
  revision: number;
  subject: string;
  description: string;
  status: TaskStatus;
  owner: string | null;
  writeScopes: string[];
  deleted: boolean;
}

/**
 * What the board should be after a sequence of accepted Lead mutations (no dependencies): the
 * rules of shared/team (revisions, claims, tombstones and their cap) restated simply, plus the
 * BoardFull rule of the size limits in docs/semantics.md (task snapshots, tombstones included, after a create or
 * edit, within BOARD_MAX_BYTES; at most MAX_BOARD_TASKS non-deleted tasks). `predict*` never
 * change the model; `put` records a task as it now is.
 */
export class BoardModel {
  readonly tasks = new Map<number, ModelTask>();
  nextTaskId = 1;

  static snapshot(task: ModelTask): TaskSnapshot {
    return { ...task, dependencies: [], createdBy: 'lead', createdAt: SOME_TIME, updatedAt: SOME_TIME };
  }

  /** Bytes of the board's task snapshots (as `jsonBytes(state.tasks)`) if `tasks` were the board. */
  static bytes(tasks: Iterable<ModelTask>): number {
    const record: Record<string, TaskSnapshot> = {};
    for (const task of tasks) record[String(task.id)] = BoardModel.snapshot(task);
    return jsonBytes(record);
  }

  bytes(): number {
    return BoardModel.bytes(this.tasks.values());
  }

  /** Non-deleted tasks in id order. */
  live(): ModelTask[] {
    return [...this.tasks.values()].filter((t) => !t.deleted).sort((a, b) => a.id - b.id);
  }

  /** Pending or in progress: the tasks whose write scopes produce overlaps. */
  active(): ModelTask[] {
    return this.live().filter((t) => t.status === 'pending' || t.status === 'in_progress');
  }

  tombstones(): ModelTask[] {
    return [...this.tasks.values()].filter((t) => t.deleted).sort((a, b) => a.id - b.id);
  }

  /** The task a create would make, or null when the model predicts BoardFull. */
  predictCreate(subject: string, description: string, writeScopes: string[]): ModelTask | null {
    const task: ModelTask = { id: this.nextTaskId, revision: 1, subject, description, status: 'pending', owner: null, writeScopes, deleted: false };
    const next = [...this.tasks.values(), task];
    if (next.filter((t) => !t.deleted).length > MAX_BOARD_TASKS || BoardModel.bytes(next) > BOARD_MAX_BYTES) return null;
    return task;
  }

  /** The task an edit would make, or null when the model predicts BoardFull. */
  predictEdit(id: number, changes: Pick<Partial<ModelTask>, 'description' | 'writeScopes' | 'subject'>): ModelTask | null {
    const edited: ModelTask = { ...this.get(id), ...changes, revision: this.get(id).revision + 1 };
    const next = [...this.tasks.values()].map((t) => (t.id === id ? edited : t));
    return BoardModel.bytes(next) > BOARD_MAX_BYTES ? null : edited;
  }

  predictClaim(id: number, owner: string): ModelTask {
    return this.changed(id, { owner, status: 'in_progress' });
  }

  predictTransition(id: number, status: TaskStatus): ModelTask {
    return this.changed(id, { status });
  }

  predictDelete(id: number): ModelTask {
    return this.changed(id, { description: '', writeScopes: [], deleted: true });
  }

  /** Records `task` as it now is (a create moves nextTaskId on; a deletion forgets the oldest tombstones past MAX_TOMBSTONES). */
  put(task: ModelTask): void {
    this.tasks.set(task.id, { ...task });
    if (task.id >= this.nextTaskId) this.nextTaskId = task.id + 1;
    const tombstones = this.tombstones();
    for (const old of tombstones.slice(0, Math.max(0, tombstones.length - MAX_TOMBSTONES))) this.tasks.delete(old.id);
  }

  get(id: number): ModelTask {
    const task = this.tasks.get(id);
    if (!task) throw new Error(`model: no task ${id}`);
    return task;
  }

  private changed(id: number, changes: Partial<ModelTask>): ModelTask {
    const current = this.get(id);
    return { ...current, ...changes, revision: current.revision + 1 };
  }
}

/** The fields the model predicts, from a real task (snapshot or view). */
export function modelFields(task: TaskSnapshot | TaskView | ModelTask): ModelTask {
  return {
    id: task.id,
    revision: task.revision,
    subject: task.subject,
    description: task.description,
    status: task.status,
    owner: task.owner,
    writeScopes: task.writeScopes,
    deleted: task.deleted,
  };
}

// ---- a scripted model that fills write_file calls ------------------------------------------------

/** The `content` of a scripted write_file call that the filling model replaces. */
export const FILL_MARKER = '<<fill to the payload limit>>';

/** ASCII text with no character JSON escapes: each character is one byte at every level of encoding. */
export function fillContent(path: string, length: number): string {
  const line = `${path} | the quick brown fox jumps over the lazy dog 0123456789 | `;
  return line.repeat(Math.ceil(length / line.length)).slice(0, length);
}

/** How the filling model sizes the contents: a whole response of exactly `responseBytes`, or each content of `contentBytes`. */
export type FillSize = { responseBytes: number } | { contentBytes: number };

/**
 * The scripted model (activities/providers/scriptedModel.ts), except that the contents of the
 * write_file calls whose content is FILL_MARKER are generated: either so that the whole response,
 * the callModel activity's result, is exactly `responseBytes` bytes of JSON (split evenly over the
 * calls of the response), or `contentBytes` each. `written` records each generated file's path and length.
 */
export function fillingScriptedModel(size: FillSize): ModelProvider & { written: Map<string, number> } {
  const scripted = createScriptedModel();
  const written = new Map<string, number>();
  return {
    written,
    async complete(request, options): Promise<ModelResponse> {
      const response = await scripted.complete(request, options);
      const calls = response.message.toolCalls.map((call) => ({ call, args: JSON.parse(call.argumentsJson) as Record<string, unknown> }));
      const fills = calls.filter(({ call, args }) => call.name === 'write_file' && args.content === FILL_MARKER);
      if (fills.length === 0) return response;
      const withContents = (contents: Map<string, string>): ModelResponse => ({
        ...response,
        message: {
          ...response.message,
          toolCalls: calls.map(({ call, args }) =>
            contents.has(call.id) ? { ...call, argumentsJson: JSON.stringify({ ...args, content: contents.get(call.id) }) } : call,
          ),
        },
      });
      const base = jsonBytes(withContents(new Map(fills.map(({ call }) => [call.id, '']))));
      const room = 'responseBytes' in size ? size.responseBytes - base : size.contentBytes * fills.length;
      const contents = new Map<string, string>();
      fills.forEach(({ call, args }, i) => {
        const length = Math.floor(room / fills.length) + (i < room % fills.length ? 1 : 0);
        contents.set(call.id, fillContent(String(args.path), length));
        written.set(String(args.path), length);
      });
      const filled = withContents(contents);
      const bytes = jsonBytes(filled);
      if (bytes !== base + room) throw new Error(`filling model: built a ${bytes}-byte response, meant ${base + room}`);
      return filled;
    },
  };
}

// ---- polling -------------------------------------------------------------------------------------

/** Polls `probe` every `intervalMs` until `accept`; for expensive reads (large conversations). */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs: number,
  intervalMs = 1_000,
  describe: (value: T) => string = (v) => JSON.stringify(v).slice(0, 500),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms; last: ${describe(last)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    last = await probe();
  }
  return last;
}
