/**
 * The Lead's in-run logic, kept out of the workflow function so that file only wires handlers.
 * Validators call `validate*` (synchronous, throw ApplicationFailure, never mutate); handlers call
 * the matching method, which re-decides against the state at that moment: if another Update
 * changed things in between, the handler rejects with the same typed failure instead of applying
 * stale intent. Every state change goes through `record`, which also numbers the wait edges.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { z } from 'zod';
import type {
  CarriedLeadState,
  InterruptTeammateRequest,
  LiveStatus,
  ReadTaskRequest,
  RecentUpdate,
  SendMessageRequest,
  SpawnTeammateRequest,
  WaitForEdgeRequest,
} from '../shared/definitions';
import { invalidInputFailure, rejectionFailure, rollingOverFailure } from '../shared/failures';
import type { InboxMessage, InboxState } from '../shared/inbox';
import { emptyInbox, receive, takePending } from '../shared/inbox';
import { jsonProblem, type JsonValue } from '../shared/json';
import { hasOwn, own } from '../shared/own';
import { LEAD_INBOX_BUDGET_BYTES, MAX_ID_LENGTH, MAX_MESSAGE_BYTES, MEMBER_INBOX_BUDGET_BYTES, REMEMBERED_RESULT_MAX_BYTES, jsonBytes } from '../shared/limits';
import { noIgnoredSignals, type IgnoredSignals } from '../shared/signalPayloads';
import type { SignalOutcome } from './handlerGuards';
import type { EdgeKind, EdgeLog, TeamEdge } from '../shared/teamEdges';
import { EDGE_KINDS, emptyEdgeLog, firstEdgeAfter, recordEdge } from '../shared/teamEdges';
import type { Decision, LegacyMailbox, MemberRecord, ProvisioningOutcome, TaskCommand, TaskCommandKind, TaskMutationResult, TaskView, TeamEvent, TeamState } from '../shared/team';
import {
  LEAD,
  TASK_COMMAND_BODIES,
  admitLegacyMailbox,
  applyAll,
  decideCloseAdmission,
  decideProvisioningOutcome,
  decideSend,
  decideSpawn,
  decideStopped,
  emptyTeamState,
  executeTask,
  isActingMember,
  isLivePhase,
  notFoundMessage,
  reject,
  taskKey,
  taskView,
  teamView,
} from '../shared/team';

/** Updates accepted per run before rolling over; well under the server's 2,000 per run. */
export const MAX_ACCEPTED_UPDATES_PER_RUN = 1_000;
/** Signals handled per run before rolling over; the server allows 10,000. */
export const MAX_SIGNALS_PER_RUN = 9_000;
/** How many recent update ids are remembered (and carried across continue-as-new) for de-duplication. */
export const RECENT_UPDATE_WINDOW = 256;
/** Synchronous task Updates stay open while a run winds down, up to this many accepted in the run. */
export const HARD_UPDATES_PER_RUN = 1_800;
export const MAX_WAIT_MS = 3_600_000;

const caller = z.string().min(1).max(100);
const callerSchema = z.strictObject({ caller });
const readTaskSchema = z.strictObject({ caller, taskId: z.number().int().positive() });
const spawnSchema = z.strictObject({
  caller,
  name: z.string().min(1).max(100),
  context: z.enum(['fresh', 'fork']).default('fresh'),
  message: z.unknown(),
  model: z.string().min(1).max(200).nullable().default(null),
});
const sendEnvelopeSchema = z.strictObject({ caller, to: z.string().min(1).max(100), content: z.unknown(), messageId: z.string().min(1).max(MAX_ID_LENGTH).optional() });
const promptSchema = z.strictObject({ caller, content: z.string().trim().min(1).max(100_000), messageId: z.string().min(1).max(MAX_ID_LENGTH).optional() });
const interruptSchema = z.strictObject({ caller, name: z.string().min(1).max(100) });
const waitSchema = z.strictObject({ caller, timeoutMs: z.number().int().min(1).max(MAX_WAIT_MS), kinds: z.array(z.enum(EDGE_KINDS)).min(1).optional() });

export class TeamLeadRun {
  state: TeamState;
  leadInbox: InboxState;
  edges: EdgeLog;
  liveStatus: Record<string, LiveStatus>;
  readonly legacyMailbox: LegacyMailbox;
  private recent: RecentUpdate[];
  readonly continuedRuns: number;
  acceptedUpdatesThisRun = 0;
  signalsThisRun = 0;
  /** Admitted spawns and sends still running; disposal waits for them. */
  operationsInFlight = 0;
  /** Names whose creator (a spawnTeammate handler) is running in this run. */
  readonly creating: Record<string, true> = {};
  disposeRequested = false;
  /** Per teammate: messages delivered into its inbox (initial message included) and taken into its turns. */
  delivered: Record<string, number>;
  consumed: Record<string, number>;
  /** Teammates waiting for an edge (wait_agent), by name; `since` is the edge seq at registration. */
  watchers: Record<string, { waitId: string; kinds: EdgeKind[]; since: number }>;
  /** Per teammate: relayed messages it reported settled, and the sizes of the ones it has not (oldest first). */
  settled: Record<string, number>;
  unsettledBytes: Record<string, number[]>;
  /** Signals this run ignored, by reason (getLeadRunInfo). */
  readonly ignored: IgnoredSignals = noIgnoredSignals();

  constructor(teamId: string, maxMembers: number | undefined, carried: CarriedLeadState | undefined, legacyMailbox?: unknown[]) {
    this.state = carried?.state ?? emptyTeamState(teamId, maxMembers);
    this.leadInbox = carried?.leadInbox ?? emptyInbox();
    this.edges = carried?.edges ?? emptyEdgeLog();
    this.liveStatus = carried?.liveStatus ?? {};
    this.legacyMailbox = carried?.legacyMailbox ?? admitLegacyMailbox(legacyMailbox);
    this.recent = carried?.recentUpdates ?? [];
    this.continuedRuns = carried?.continuedRuns ?? 0;
    this.delivered = carried?.delivered ?? {};
    this.consumed = carried?.consumed ?? {};
    this.watchers = carried?.watchers ?? {};
    this.settled = carried?.settled ?? {};
    this.unsettledBytes = carried?.unsettledBytes ?? {};
  }

  /** Past this many accepted Updates even synchronous ones wait for the next run (the server caps a run at 2,000). */
  pastHardUpdateCap(): boolean {
    return this.acceptedUpdatesThisRun >= HARD_UPDATES_PER_RUN;
  }

  /** True once this run should stop accepting Updates and continue as new. */
  mustRollOver(continueAsNewSuggested: boolean): boolean {
    return continueAsNewSuggested || this.acceptedUpdatesThisRun >= MAX_ACCEPTED_UPDATES_PER_RUN || this.signalsThisRun >= MAX_SIGNALS_PER_RUN;
  }

  carry(): CarriedLeadState {
    return {
      state: this.state,
      leadInbox: this.leadInbox,
      edges: this.edges,
      liveStatus: this.liveStatus,
      legacyMailbox: this.legacyMailbox,
      recentUpdates: this.recent,
      continuedRuns: this.continuedRuns + 1,
      delivered: this.delivered,
      consumed: this.consumed,
      watchers: this.watchers,
      settled: this.settled,
      unsettledBytes: this.unsettledBytes,
    };
  }

  /** The only way state changes: apply the events and number one edge per event. */
  private record(events: readonly TeamEvent[], now: string): void {
    if (events.length === 0) return;
    this.state = applyAll(this.state, events);
    for (const event of events) this.edges = recordEdge(this.edges, event.type.startsWith('task') ? 'task' : 'roster', event.type, now);
  }

  private commit(decision: Decision, now: string): void {
    if (!decision.ok) throw rejectionFailure(decision.rejection);
    this.record(decision.events, now);
  }

  // ---- task commands -------------------------------------------------------------------------

  validateTaskCommand(kind: TaskCommandKind, input: unknown, updateId: string, closing: boolean, now: string): void {
    if (closing) throw rollingOverFailure();
    if (this.recentResult(updateId) !== undefined) return; // a retry of an applied Update: answered from memory
    const { caller, command } = parseTaskCommand(kind, input);
    const outcome = executeTask(this.state, command, { caller, now });
    if (!outcome.ok) throw rejectionFailure(outcome.rejection);
  }

  applyTaskCommand(kind: TaskCommandKind, input: unknown, updateId: string, now: string): TaskMutationResult {
    const remembered = this.recentResult(updateId);
    if (remembered !== undefined) return remembered as TaskMutationResult;
    const { caller, command } = parseTaskCommand(kind, input);
    const outcome = executeTask(this.state, command, { caller, now });
    if (!outcome.ok) throw rejectionFailure(outcome.rejection);
    this.record(outcome.events, now);
    this.remember(updateId, outcome.result);
    return outcome.result;
  }

  // ---- reads ---------------------------------------------------------------------------------

  validateRead(input: unknown, closing: boolean): void {
    if (closing) throw rollingOverFailure();
    this.requireMember(parseWith('listTasks', callerSchema, input).caller);
  }

  validateReadTask(input: unknown, closing: boolean): ReadTaskRequest {
    if (closing) throw rollingOverFailure();
    const request = parseWith('readTask', readTaskSchema, input);
    this.requireMember(request.caller);
    if (!own(this.state.tasks, taskKey(request.taskId))) throw rejectionFailure(reject('TaskNotFound', notFoundMessage(this.state, request.taskId)));
    return request;
  }

  readTask(input: unknown): TaskView {
    const request = parseWith('readTask', readTaskSchema, input);
    const task = own(this.state.tasks, taskKey(request.taskId));
    if (!task) throw rejectionFailure(reject('TaskNotFound', notFoundMessage(this.state, request.taskId)));
    this.countAccepted();
    return taskView(this.state, task);
  }

  listTasks(): TaskView[] {
    this.countAccepted();
    return teamView(this.state).tasks;
  }

  // ---- roster --------------------------------------------------------------------------------

  validateSpawn(input: unknown, updateId: string, closing: boolean, now: string): SpawnTeammateRequest & { context: 'fresh' | 'fork'; model: string | null } {
    if (closing) throw rollingOverFailure();
    const request = parseSpawn(input);
    if (this.recentResult(updateId) !== undefined) return request;
    const decision = decideSpawn(this.state, { name: request.name, context: request.context, model: request.model }, { caller: request.caller, now });
    if (!decision.ok) throw rejectionFailure(decision.rejection);
    return request;
  }

  /** Step 1 of a spawn: the provisioning record, before anything else happens. */
  beginSpawn(input: unknown, now: string): { request: ReturnType<TeamLeadRun['validateSpawn']>; member: MemberRecord } {
    const request = parseSpawn(input);
    this.commit(decideSpawn(this.state, { name: request.name, context: request.context, model: request.model }, { caller: request.caller, now }), now);
    this.creating[request.name] = true;
    return { request, member: this.member(request.name) };
  }

  /**
   * Settles a provisioning record (creator or recovery). Returns 'conflict' when the record was
   * already settled the other way: the caller must then drain the child and report it.
   */
  settleProvisioning(name: string, outcome: ProvisioningOutcome, now: string, initialMessageBytes?: number): 'settled' | 'conflict' {
    const decision = decideProvisioningOutcome(this.state, name, outcome, now);
    if (!decision.ok) {
      if (decision.rejection.type === 'ProvisioningConflict') return 'conflict';
      throw rejectionFailure(decision.rejection);
    }
    this.record(decision.events, now);
    if (outcome.phase === 'active' && own(this.liveStatus, name) === undefined) this.liveStatus = { ...this.liveStatus, [name]: 'starting' };
    if (outcome.phase === 'active' && own(this.delivered, name) === undefined) {
      // The initial message (relaySeq 1) is the first relayed message: unsettled until the member takes it.
      this.delivered = { ...this.delivered, [name]: 1 };
      this.unsettledBytes = { ...this.unsettledBytes, [name]: [initialMessageBytes ?? 0] };
    }
    return 'settled';
  }

  /** Provisioning records this run cannot settle from its own history (no creator running here). */
  unsettledProvisioning(): MemberRecord[] {
    return Object.values(this.state.members).filter((m) => m.phase === 'provisioning' && !hasOwn(this.creating, m.name));
  }

  markStopped(name: string, now: string): void {
    this.commit(decideStopped(this.state, name, now), now);
    this.liveStatus = { ...this.liveStatus, [name]: 'exited' };
  }

  member(name: string): MemberRecord {
    const member = own(this.state.members, name);
    if (!member) throw rejectionFailure(reject('UnknownMember', `there is no teammate "${name}"`));
    return member;
  }

  // ---- mailbox -------------------------------------------------------------------------------

  validateSend(input: unknown, updateId: string, closing: boolean): SendMessageRequest {
    if (closing) throw rollingOverFailure();
    const request = parseSend(input);
    if (this.recentResult(updateId) !== undefined) return request;
    const decision = decideSend(this.state, request.caller, request.to);
    if (!decision.ok) throw rejectionFailure(decision.rejection);
    if (request.messageId === undefined && updateId.length > MAX_ID_LENGTH) {
      throw invalidCommand(`sendMessage: the update id (${updateId.length} characters) is too long to serve as the message id; pass a messageId of at most ${MAX_ID_LENGTH} characters`);
    }
    this.requireInboxRoom(request.to, messageBytes(request.content));
    return request;
  }

  /** InboxFull when a message would take the target's unread mail past its budget (PayloadTooLarge is checked at parse). */
  requireInboxRoom(to: string, bytes: number): void {
    const [waiting, budget] = to === LEAD ? [jsonBytes(this.leadInbox.pending), LEAD_INBOX_BUDGET_BYTES] : [sum(own(this.unsettledBytes, to) ?? []), MEMBER_INBOX_BUDGET_BYTES];
    if (waiting + bytes > budget) {
      throw rejectionFailure(
        reject('InboxFull', `${to} has ${waiting} bytes of messages it has not taken yet (budget ${budget}); this one is ${bytes} bytes: wait until ${to} reads its inbox (wait_agent on mailbox/status edges), or send less, then retry`),
      );
    }
  }

  /** Records a send addressed to the Lead itself; sends to teammates are signalled by the workflow. */
  receiveForLead(message: InboxMessage, now: string): void {
    this.leadInbox = receive(this.leadInbox, message).inbox;
    this.edges = recordEdge(this.edges, 'mailbox', message.messageId, now);
  }

  /** Reserves the next relay to a teammate before its signal is sent: the message is unsettled from now on. Returns its relaySeq. */
  beginRelay(to: string, bytes: number): number {
    const seq = (own(this.delivered, to) ?? 0) + 1;
    this.delivered = { ...this.delivered, [to]: seq };
    this.unsettledBytes = { ...this.unsettledBytes, [to]: [...(own(this.unsettledBytes, to) ?? []), bytes] };
    return seq;
  }

  /** The relay's signal failed: the target never got it. */
  abandonRelay(to: string, bytes: number): void {
    this.delivered = { ...this.delivered, [to]: Math.max(0, (own(this.delivered, to) ?? 0) - 1) };
    const sizes = [...(own(this.unsettledBytes, to) ?? [])];
    const at = sizes.lastIndexOf(bytes);
    if (at >= 0) sizes.splice(at, 1);
    this.unsettledBytes = { ...this.unsettledBytes, [to]: sizes };
  }

  recordSent(messageId: string, now: string): void {
    this.edges = recordEdge(this.edges, 'mailbox', messageId, now);
  }

  takeLeadInbox(): InboxMessage[] {
    const { inbox, messages } = takePending(this.leadInbox);
    this.leadInbox = inbox;
    this.countAccepted();
    return messages;
  }

  // ---- live status, interrupt, wait ----------------------------------------------------------

  /** A member's live status report (a parsed signal: see shared/signalPayloads.ts). */
  reportStatus(report: { name: string; status: LiveStatus; consumed?: number | undefined; settled?: number | undefined }, now: string): SignalOutcome {
    const { name, status, consumed, settled } = report;
    if (!own(this.state.members, name)) return 'nonMember';
    if (consumed !== undefined && consumed > (own(this.consumed, name) ?? 0)) this.consumed = { ...this.consumed, [name]: consumed };
    const before = own(this.settled, name) ?? 0;
    if (settled !== undefined && (settled > before || own(this.settled, name) === undefined)) {
      this.settled = { ...this.settled, [name]: settled };
      this.unsettledBytes = { ...this.unsettledBytes, [name]: (own(this.unsettledBytes, name) ?? []).slice(Math.max(0, settled - before)) };
    }
    if (own(this.liveStatus, name) === status) return 'applied';
    this.liveStatus = { ...this.liveStatus, [name]: status };
    this.edges = recordEdge(this.edges, 'status', `${name}:${status}`, now);
    return 'applied';
  }

  /** A teammate's wait_agent: remembered until an edge of its kinds is recorded after now. */
  watch(request: { name: string; waitId: string; kinds?: EdgeKind[] | undefined }): SignalOutcome {
    const member = own(this.state.members, request.name);
    if (!member || !isLivePhase(member.phase)) return 'nonMember';
    const kinds = request.kinds ?? [...EDGE_KINDS];
    this.watchers = { ...this.watchers, [request.name]: { waitId: request.waitId, kinds, since: this.edges.lastSeq } };
    return 'applied';
  }

  unwatch(name: string, waitId: string): SignalOutcome {
    return this.clearWatch(name, waitId) ? 'applied' : 'unknownKey';
  }

  clearWatch(name: string, waitId: string): boolean {
    if (own(this.watchers, name)?.waitId !== waitId) return false;
    const rest: typeof this.watchers = {};
    for (const [key, watch] of Object.entries(this.watchers)) if (key !== name) rest[key] = watch;
    this.watchers = rest;
    return true;
  }

  /** Watches whose edge has been recorded, with where to send the notification. */
  dueNotifications(): { name: string; workflowId: string; waitId: string; edge: TeamEdge }[] {
    return Object.entries(this.watchers).flatMap(([name, w]) => {
      const edge = firstEdgeAfter(this.edges, w.since, w.kinds);
      const member = own(this.state.members, name);
      return edge && member ? [{ name, workflowId: member.workflowId, waitId: w.waitId, edge }] : [];
    });
  }

  validateInterrupt(input: unknown, closing: boolean): InterruptTeammateRequest {
    if (closing) throw rollingOverFailure();
    const request = parseWith('interruptTeammate', interruptSchema, input);
    if (request.caller !== LEAD) throw rejectionFailure(reject('LeadOnly', 'only the Lead interrupts teammates'));
    const member = own(this.state.members, request.name);
    if (!member) throw rejectionFailure(reject('UnknownMember', `there is no teammate "${request.name}"`));
    if (!isLivePhase(member.phase)) throw rejectionFailure(reject('UnknownMember', `teammate "${request.name}" is ${member.phase}`));
    return request;
  }

  validateWait(input: unknown, closing: boolean): WaitForEdgeRequest & { kinds: EdgeKind[] } {
    if (closing) throw rollingOverFailure();
    const request = parseWith('waitForEdge', waitSchema, input);
    this.requireMember(request.caller);
    return { ...request, kinds: request.kinds ?? [...EDGE_KINDS] };
  }

  /** promptLead: Lead-only (the operator), and only for a Team whose Lead runs an agent. */
  validatePrompt(input: unknown, closing: boolean, agentEnabled: boolean): z.infer<typeof promptSchema> {
    if (closing) throw rollingOverFailure();
    const request = parseWith('promptLead', promptSchema, input);
    requireMessageSize('promptLead', request.content);
    if (request.caller !== LEAD) throw rejectionFailure(reject('LeadOnly', 'only the Lead (its operator) prompts the Lead agent'));
    if (!agentEnabled) {
      throw ApplicationFailure.create({ type: 'AgentNotEnabled', message: `Team ${this.state.teamId} was started without a prompt, so its Lead runs no agent; start a Team with a prompt to talk to its Lead`, nonRetryable: true });
    }
    return request;
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  validateLeadOnly(updateName: string, input: unknown): void {
    const { caller } = parseWith(updateName, callerSchema, input);
    if (caller !== LEAD) throw rejectionFailure(reject('LeadOnly', `only the Lead may call ${updateName}`));
  }

  closeAdmission(now: string): void {
    this.commit(decideCloseAdmission(this.state, now), now);
  }

  /** Every child the roster recorded that may still be running, failed ones included (cleanup-owned). */
  childrenToStop(): MemberRecord[] {
    return Object.values(this.state.members).filter((m) => m.phase !== 'stopped');
  }

  requireMember(caller: string): void {
    if (!isActingMember(this.state, caller)) {
      throw rejectionFailure(reject('NotATeamMember', `"${caller}" is not an active member of Team ${this.state.teamId}`));
    }
  }

  /**
   * The answer to a retried Update. Small results are remembered whole; a task mutation's is
   * remembered as its task id and rebuilt from the board (the task as it is now, at the remembered
   * revision or later), so the window stays small whatever the tasks hold.
   */
  recentResult(updateId: string): unknown {
    const entry = this.recent.find((r) => r.updateId === updateId);
    if (!entry) return undefined;
    if (entry.taskId === undefined) return entry.result;
    const task = own(this.state.tasks, taskKey(entry.taskId));
    if (!task) throw rejectionFailure(reject('TaskNotFound', `${notFoundMessage(this.state, entry.taskId)} (this Update was applied earlier)`));
    return { task: taskView(this.state, task) };
  }

  remember(updateId: string, result: unknown): void {
    this.countAccepted();
    if (updateId.length > MAX_ID_LENGTH) return; // too long to remember: a retry of it is not recognised (clients use UUIDs)
    const task = (result as { task?: { id?: unknown; revision?: unknown } } | null)?.task;
    const compact = jsonBytes(result) > REMEMBERED_RESULT_MAX_BYTES && typeof task?.id === 'number' && typeof task.revision === 'number';
    this.recent.push(compact ? { updateId, taskId: task.id as number, revision: task.revision as number } : { updateId, result });
    if (this.recent.length > RECENT_UPDATE_WINDOW) this.recent = this.recent.slice(-RECENT_UPDATE_WINDOW);
  }

  countAccepted(): void {
    this.acceptedUpdatesThisRun += 1;
  }
}

function parseWith<T>(updateName: string, schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidInputFailure(updateName, parsed.error);
  return parsed.data;
}

/**
 * Message content must stay exactly the decoded JSON it arrived as (an own `__proto__` key
 * included), so it is taken from the original input by descriptor and only inspected.
 */
function originalJson(updateName: string, input: unknown, field: string): JsonValue {
  const value: unknown = typeof input === 'object' && input !== null ? Object.getOwnPropertyDescriptor(input, field)?.value : undefined;
  const problem = value === undefined ? `${field} is required` : jsonProblem(value);
  if (problem) throw ApplicationFailure.create({ type: 'InvalidTeamCommand', message: `${updateName} input is invalid: ${field}: ${problem}`, nonRetryable: true });
  return value as JsonValue;
}

function parseSpawn(input: unknown): z.infer<typeof spawnSchema> & { message: JsonValue } {
  const request = parseWith('spawnTeammate', spawnSchema, input);
  const message = originalJson('spawnTeammate', input, 'message');
  requireMessageSize('spawnTeammate', message);
  return { ...request, message };
}

function parseSend(input: unknown): SendMessageRequest {
  const request = parseWith('sendMessage', sendEnvelopeSchema, input);
  const content = originalJson('sendMessage', input, 'content');
  requireMessageSize('sendMessage', content);
  return { ...request, content };
}

/** What a message adds to an inbox, as counted against its budget: the content's JSON plus a bound on the envelope (ids, sender, time). */
export function messageBytes(content: JsonValue): number {
  return jsonBytes(content) + 2 * MAX_ID_LENGTH;
}

function requireMessageSize(updateName: string, content: JsonValue): void {
  const bytes = jsonBytes(content);
  if (bytes > MAX_MESSAGE_BYTES) {
    throw rejectionFailure(reject('PayloadTooLarge', `${updateName}: the message is ${bytes} bytes of JSON, over the ${MAX_MESSAGE_BYTES}-byte limit; send a shorter message (e.g. write the long part to a file in the checkout and send its path)`));
  }
}

function invalidCommand(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'InvalidTeamCommand', message, nonRetryable: true });
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function parseTaskCommand(kind: TaskCommandKind, input: unknown): { caller: string; command: TaskCommand } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw ApplicationFailure.create({ type: 'InvalidTeamCommand', message: `${kind} takes one object argument; see the wire contract in README.md`, nonRetryable: true });
  }
  const { caller, ...body } = input as Record<string, unknown>;
  const { caller: parsedCaller } = parseWith(kind, callerSchema, { caller });
  const parsedBody = parseWith(kind, TASK_COMMAND_BODIES[kind] as z.ZodType<object>, body);
  return { caller: parsedCaller, command: { kind, ...parsedBody } as TaskCommand };
}


/**
 * Teammates with required work: a turn running, or messages delivered that their turns have not
 * taken yet (counted, because a send can land while the member still reports idle).
 */
export function busyMembers(lead: TeamLeadRun): string[] {
  return Object.values(lead.state.members)
    .filter((m) => m.phase === 'active')
    .map((m) => m.name)
    .filter((name) => {
      const status = own(lead.liveStatus, name);
      if (status === 'exited') return false;
      // Members that report what they settled are taken at their word; older ones by what they consumed.
      const taken = own(lead.settled, name) ?? own(lead.consumed, name) ?? 0;
      return status === 'running' || status === 'starting' || (own(lead.delivered, name) ?? 0) > taken;
    });
}
