/**
 * The Lead workflow's wire contract: every Update, Query and Signal it handles, named exactly like
 * its wire name, with their payloads, and the Lead's input and result. Imported by the workflow,
 * the client, the CLI and the tests. The README documents each.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AgentTeamView } from './agentTeamView';
import type { JsonValue } from './json';
import type {
  IgnoredSignals,
  ModelCallRequest,
  edgeUnwatchSchema,
  edgeWatchSchema,
  memberStatusReportSchema,
  rejectionReportSchema,
  subagentAnswerSchema,
} from './signals';
import type { z } from 'zod';
import type { assignTaskBody, claimTaskBody, createTaskBody, deleteTaskBody, editTaskBody, releaseTaskBody, transitionTaskBody } from './taskCommands';
import type {
  InboxAcceptance,
  InboxMessage,
  LegacyMailbox,
  MemberRecord,
  TaskMutationResult,
  TaskPage,
  TaskSnapshot,
  TaskView,
  TeamEdge,
  TeamView,
} from './team';
import type {
  ListTasksPageRequest,
  callerOnlySchema,
  interruptRequestSchema,
  promptRequestSchema,
  readTaskRequestSchema,
  sendEnvelopeSchema,
  setBudgetRequestSchema,
  spawnRequestSchema,
  waitRequestSchema,
} from './requests';
import type { ConversationEntry, LeadAgentOptions, LeadAgentView } from './agent';
import type { TeamModels } from './modelNames';
import type { TeamUsageView } from './teamUsage';
import type { BudgetLimits, TeamBudgets } from './budgets';
import type { LiveStatus } from './vocabulary';

/**
 * Attribution: `caller` names who acts (callers.ts): the operator ("@operator", a person: the CLI,
 * the panel, a TeamClient created as the operator), the Lead ("lead": the Lead agent's own tools,
 * or a caller acting as the Lead) or a teammate's name. It is filled in by the calling runtime (a
 * teammate's runtime derives its name from its own reserved workflow id), never taken from
 * model-written tool input. The wire carries no proof of it: see docs/security.md.
 */
export type Attributed = z.input<typeof callerOnlySchema>;

// Every request type is its schema's input (taskCommands.ts, requests.ts): what a caller may send
// is what the Lead parses, and the compiler ties the two. Where a schema only types a message's
// content (`unknown`, checked as JSON from the original input), the request narrows it to JsonValue.
export type CreateTaskRequest = Attributed & z.input<typeof createTaskBody>;
export type EditTaskRequest = Attributed & z.input<typeof editTaskBody>;
export type ClaimTaskRequest = Attributed & z.input<typeof claimTaskBody>;
export type AssignTaskRequest = Attributed & z.input<typeof assignTaskBody>;
export type ReleaseTaskRequest = Attributed & z.input<typeof releaseTaskBody>;
export type TransitionTaskRequest = Attributed & z.input<typeof transitionTaskBody>;
export type DeleteTaskRequest = Attributed & z.input<typeof deleteTaskBody>;
export type ReadTaskRequest = z.input<typeof readTaskRequestSchema>;

export const createTaskUpdate = defineUpdate<TaskMutationResult, [CreateTaskRequest], 'createTask'>('createTask');
export const editTaskUpdate = defineUpdate<TaskMutationResult, [EditTaskRequest], 'editTask'>('editTask');
export const claimTaskUpdate = defineUpdate<TaskMutationResult, [ClaimTaskRequest], 'claimTask'>('claimTask');
export const assignTaskUpdate = defineUpdate<TaskMutationResult, [AssignTaskRequest], 'assignTask'>('assignTask');
export const releaseTaskUpdate = defineUpdate<TaskMutationResult, [ReleaseTaskRequest], 'releaseTask'>('releaseTask');
export const transitionTaskUpdate = defineUpdate<TaskMutationResult, [TransitionTaskRequest], 'transitionTask'>('transitionTask');
export const deleteTaskUpdate = defineUpdate<TaskMutationResult, [DeleteTaskRequest], 'deleteTask'>('deleteTask');
/** Attributed, serialized reads: see the board exactly as of this point in the Lead's history. */
export const readTaskUpdate = defineUpdate<TaskView, [ReadTaskRequest], 'readTask'>('readTask');
export const listTasksUpdate = defineUpdate<TaskView[], [Attributed], 'listTasks'>('listTasks');
/** The board a page at a time (shared/team/boardPage.ts): `{ tasks, nextAfter }`; pass `nextAfter` as `after` until it is null. */
export const listTasksPageUpdate = defineUpdate<TaskPage, [ListTasksPageRequest], 'listTasksPage'>('listTasksPage');
/**
 * Lead-only. Closes admission in the activation that accepts it (spawns and sends get
 * TeamAdmissionClosed from then on), wakes waits in progress with `rollover` and awaits the spawns
 * and sends already admitted, stops the Lead's subagents and every live or failed child recorded by
 * the roster (waiting until each has exited), then completes the Lead with its final view. A child
 * that cannot be stopped fails it with DisposalFailed; admission stays closed and a retry completes it.
 */
export const disposeTeamUpdate = defineUpdate<TeamView, [Attributed], 'disposeTeam'>('disposeTeam');

// ---- roster, mailbox, wait, interrupt (Lead) ----------------------------------------------------

/** `message`: the initial message, the first item of the teammate's inbox. Any JSON. */
export type SpawnTeammateRequest = Omit<z.input<typeof spawnRequestSchema>, 'message'> & { message: JsonValue };
export interface SpawnTeammateResult {
  member: MemberRecord;
  initialMessageId: string;
}
/** Lead-only. Records provisioning, starts the child with the initial message, records active or failed. */
export const spawnTeammateUpdate = defineUpdate<SpawnTeammateResult, [SpawnTeammateRequest], 'spawnTeammate'>('spawnTeammate');

/** `messageId`: a stable id for de-duplication; a retried send with the same id is delivered once. Defaults to the update id. */
export type SendMessageRequest = Omit<z.input<typeof sendEnvelopeSchema>, 'content'> & { content: JsonValue };
export const sendMessageUpdate = defineUpdate<InboxAcceptance, [SendMessageRequest], 'sendMessage'>('sendMessage');

export type InterruptTeammateRequest = z.input<typeof interruptRequestSchema>;
export interface InterruptResult {
  name: string;
  /** The live status the Lead knew when it relayed the interrupt. */
  statusAtInterrupt: LiveStatus;
}
/** Lead-only. Cancels the teammate's current turn; its inbox, mailbox records and task ownership are untouched. */
export const interruptTeammateUpdate = defineUpdate<InterruptResult, [InterruptTeammateRequest], 'interruptTeammate'>('interruptTeammate');

/**
 * `timeoutMs`: give up after this long (a durable timer), 1 ms to 1 hour; `kinds`: the edges to wake
 * on; `afterSeq`: the last edge the caller has seen, so the first edge after it wakes the wait even
 * if it was recorded before this call (one the Lead still keeps: its last 64); a number past the
 * Lead's last edge counts as its last. Without it, the first edge after the call began.
 */
export type WaitForEdgeRequest = z.input<typeof waitRequestSchema>;
/** `rollover`: the Lead run stopped serving waits (it continues as new, or a disposal began); re-read the roster. */
export type WaitResult = { woke: 'edge'; edge: TeamEdge } | { woke: 'timeout' } | { woke: 'rollover' };
/** Blocks until the next roster, mailbox, task or status edge after the call began (or after `afterSeq`), or the timeout. */
export const waitForEdgeUpdate = defineUpdate<WaitResult, [WaitForEdgeRequest], 'waitForEdge'>('waitForEdge');

export type SetBudgetRequest = z.input<typeof setBudgetRequestSchema>;
export interface SetBudgetResult {
  name: string;
  /** The limits now in force. */
  budget: BudgetLimits;
  /** The limits before (the Team's default until a setBudget replaced them); null: none. */
  previous: BudgetLimits | null;
}
/**
 * Replaces a teammate's budget, or the Lead agent's own ("lead"). The operator may set any budget;
 * the Lead may only lower one (no cap higher, none removed), its own included; teammates may not.
 * A member its budget stopped goes on with its waiting mail once the new budget allows.
 */
export const setBudgetUpdate = defineUpdate<SetBudgetResult, [SetBudgetRequest], 'setBudget'>('setBudget');

/** Lead-only: takes the messages waiting in the Lead's own inbox (teammates' sends to "lead"). */
export const readLeadInboxUpdate = defineUpdate<InboxMessage[], [Attributed], 'readLeadInbox'>('readLeadInbox');

/** Teammate → Lead: its live status; the Lead parses it with memberStatusReportSchema (signals.ts), which says each field. */
export type MemberStatusReport = z.output<typeof memberStatusReportSchema>;
/** Teammate → Lead: a watch for its wait_agent call; parsed with edgeWatchSchema (signals.ts), which says each field. */
export type EdgeWatch = z.output<typeof edgeWatchSchema>;
/**
 * Teammate → Lead: notify me (edgeNotification) of the next edge of these kinds recorded since my
 * call began (`callStartedAt`). A teammate's wait_agent waits in its own workflow on that
 * notification, so a waiting member holds none of the Lead's in-flight Update slots. One watch per
 * member at a time.
 */
export const watchEdgesSignal = defineSignal<[EdgeWatch], 'watchEdges'>('watchEdges');
/** Teammate → Lead: drop the watch (its wait timed out or was interrupted); parsed with edgeUnwatchSchema (signals.ts). */
export type EdgeUnwatch = z.output<typeof edgeUnwatchSchema>;
/** Teammate → Lead: drop the watch (its wait timed out or was interrupted). */
export const unwatchEdgesSignal = defineSignal<[EdgeUnwatch], 'unwatchEdges'>('unwatchEdges');
/** Teammate → Lead: live status (running a turn, idle, exited). Not durable roster state. */
export const reportMemberStatusSignal = defineSignal<[MemberStatusReport], 'reportMemberStatus'>('reportMemberStatus');

/** Caller → Lead: an operation the Lead refused; parsed with rejectionReportSchema (signals.ts), which says each field. */
export type RejectionReport = z.output<typeof rejectionReportSchema>;
/**
 * Caller → Lead: the Lead refused my operation. A validator's rejection is never written to the
 * Lead's history, so the TeamClient reports it; the agentTeam view shows the last one beside the
 * state it left unchanged (a `failure` edge). Advisory: the Lead ignores non-members and reports
 * whose operation or type it does not know.
 */
export const reportRejectionSignal = defineSignal<[RejectionReport], 'reportRejection'>('reportRejection');
/**
 * The Lead signals itself with this, without a payload, when results or commands wait for a later
 * workflow task (workflows/common/completionSize.ts): the server refuses a signal to the sender
 * at once, and that refusal is the next task. Harmless from anyone else: the Lead ignores it (any
 * payload too), and it costs one workflow task.
 */
export const completionNudgeSignal = defineSignal<[]>('completionNudge');

// ---- the Lead agent ----------------------------------------------------------------------------

export const getAgentStateQuery = defineQuery<LeadAgentView>('getAgentState');

/** `content`: a follow-up user message for the Lead agent; a running turn takes it at its next step boundary, else it starts the next turn. */
export type PromptLeadRequest = z.input<typeof promptRequestSchema>;
/** Lead-only (the operator). A follow-up prompt to the Lead agent; answered with inbox acceptance. */
export const promptLeadUpdate = defineUpdate<InboxAcceptance, [PromptLeadRequest], 'promptLead'>('promptLead');

/** Subagent → Lead: the final reply of one of its turns; parsed with subagentAnswerSchema (signals.ts). */
export type SubagentAnswer = z.output<typeof subagentAnswerSchema>;
/** Ordinary subagent → the Lead that started it: the final reply of one of its turns. */
export const subagentAnswerSignal = defineSignal<[SubagentAnswer], 'subagentAnswer'>('subagentAnswer');
/**
 * Teammate or subagent → the Lead, under a Team budget, before each model call: its recorded usage,
 * and a request to make the next call. Answered by modelCallAnswer (shared/contract/session.ts).
 */
export const modelCallRequestSignal = defineSignal<[ModelCallRequest], 'modelCallRequest'>('modelCallRequest');

// ---- inspection, input and result -----------------------------------------------------------------

/** Unattributed inspection for people and UIs (no history is written). */
export const getTeamViewQuery = defineQuery<TeamView>('getTeamView');
/**
 * The agentTeam wire projection a web panel shows: roster phases with the Lead pseudo-row, live
 * activity, models, the board with readiness and overlaps, and the last refused operation.
 */
export const getAgentTeamViewQuery = defineQuery<AgentTeamView>('getAgentTeamView');
export const getTaskQuery = defineQuery<TaskSnapshot | null, [{ taskId: number }]>('getTask');
/** Historical mailbox records (validated, never delivered) and the ones that failed validation. */
export const getLegacyMailboxQuery = defineQuery<LegacyMailbox>('getLegacyMailbox');
/** Live status of each teammate as last reported (advisory, not durable roster state). */
export const getLiveStatusQuery = defineQuery<Record<string, LiveStatus>>('getLiveStatus');
/**
 * What the Team's model calls used, per member and in all, with their cost from the Team's price
 * table: the Lead's own calls as they come back, teammates' and subagents' as they last reported
 * (after each turn). docs/agent-runtime.md says what is and is not counted.
 */
export const getTeamUsageQuery = defineQuery<TeamUsageView>('getTeamUsage');
/** Run-level facts: accepted Updates in this run, history length, continue-as-new count. */
export const getLeadRunInfoQuery = defineQuery<LeadRunInfo>('getLeadRunInfo');

export interface LeadRunInfo {
  runId: string;
  acceptedUpdatesThisRun: number;
  historyLength: number;
  continuedRuns: number;
  rollingOver: boolean;
  /** Signals this run ignored, by reason (malformed payload, non-member, unknown key or signal name). */
  ignoredSignals: IgnoredSignals;
}

/**
 * What a starter passes to a new Lead: public fields only. A continued run also receives the state
 * the previous run carried (LeadRunInput in shared/lead/carried.ts, which extends this); that part
 * is the workflow's own, not the contract's, so it can change without a change of the wire contract.
 */
export interface TeamLeadInput {
  teamId: string;
  maxMembers?: number;
  /** Passed to every teammate: turns per run before it continues as new (default 500). */
  teammateMaxTurnsPerRun?: number;
  /**
   * Historical Lead-log mailbox records imported when migrating an older Team log. Validated and
   * readable (getLegacyMailbox), never delivered. Read on the first run only; carried afterwards.
   */
  legacyMailbox?: unknown[];
  /** Makes the Lead an agent that runs turns on a model; absent = an operator-driven Team. */
  agent?: LeadAgentOptions;
  /**
   * The models this Team may use and its default (the deployment's list, AGENT_TEAMS_MODELS, as the
   * client read it at start). A start, spawn or subagent naming another model is refused with
   * ModelNotAllowed. Absent: any model, and a member naming none gets the worker's default (Teams
   * started before the list existed keep that meaning).
   */
  models?: TeamModels;
  /**
   * Spend budgets (docs/agent-runtime.md, "Budgets"): the Lead agent's own, and the one each
   * teammate and subagent runs under. A member that uses one up stops with BudgetExhausted and the
   * Lead is told. A cost budget needs the model priced in `models.prices` (else BudgetUnpriced).
   */
  budgets?: TeamBudgets;
  /**
   * Start this root as a fork of another root's conversation. The fork is a new root (a new Team):
   * it keeps the ancestor's completed turns but excludes records of the ancestor's Team.
   */
  forkOf?: { teamId: string; conversation: ConversationEntry[] };
}

export interface TeamLeadResult {
  view: TeamView;
}
