/**
 * The wire contract of the Lead workflow: every Update and Query, named exactly like its wire
 * name. Imported by the workflow, the client, the CLI and the tests. The README documents each.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { InboxMessage } from './inbox';
import type { JsonValue } from './json';
import type { IgnoredSignals } from './signalPayloads';
import type { EdgeKind, TeamEdge } from './teamEdges';
import type {
  AssignTaskBody,
  ClaimTaskBody,
  CreateTaskBody,
  DeleteTaskBody,
  EditTaskBody,
  ReleaseTaskBody,
  LegacyMailbox,
  MemberContext,
  MemberPhase,
  MemberRecord,
  TaskMutationResult,
  TaskSnapshot,
  TaskView,
  TeamState,
  TeamView,
  TransitionTaskBody,
} from './team';

export const TEAM_LEAD_WORKFLOW_TYPE = 'teamLead';
export const TEAMMATE_WORKFLOW_TYPE = 'teammate';
export const DEFAULT_TASK_QUEUE = 'agent-teams';

/**
 * Attribution: `caller` names the acting member ("lead" or a teammate name). It is filled in by
 * the calling runtime (the CLI/SDK operator acts as "lead"; a teammate's runtime derives its name
 * from its own reserved workflow id), never taken from model-written tool input.
 */
export interface Attributed {
  caller: string;
}

export type CreateTaskRequest = Attributed & Partial<Pick<CreateTaskBody, 'description' | 'dependencies' | 'writeScopes'>> & Pick<CreateTaskBody, 'subject'>;
export type EditTaskRequest = Attributed & EditTaskBody;
export type ClaimTaskRequest = Attributed & ClaimTaskBody;
export type AssignTaskRequest = Attributed & AssignTaskBody;
export type ReleaseTaskRequest = Attributed & ReleaseTaskBody;
export type TransitionTaskRequest = Attributed & TransitionTaskBody;
export type DeleteTaskRequest = Attributed & DeleteTaskBody;
export type ReadTaskRequest = Attributed & { taskId: number };

export const createTaskUpdate = defineUpdate<TaskMutationResult, [CreateTaskRequest]>('createTask');
export const editTaskUpdate = defineUpdate<TaskMutationResult, [EditTaskRequest]>('editTask');
export const claimTaskUpdate = defineUpdate<TaskMutationResult, [ClaimTaskRequest]>('claimTask');
export const assignTaskUpdate = defineUpdate<TaskMutationResult, [AssignTaskRequest]>('assignTask');
export const releaseTaskUpdate = defineUpdate<TaskMutationResult, [ReleaseTaskRequest]>('releaseTask');
export const transitionTaskUpdate = defineUpdate<TaskMutationResult, [TransitionTaskRequest]>('transitionTask');
export const deleteTaskUpdate = defineUpdate<TaskMutationResult, [DeleteTaskRequest]>('deleteTask');
/** Attributed, serialized reads: see the board exactly as of this point in the Lead's history. */
export const readTaskUpdate = defineUpdate<TaskView, [ReadTaskRequest]>('readTask');
export const listTasksUpdate = defineUpdate<TaskView[], [Attributed]>('listTasks');
/**
 * Lead-only. Closes admission, awaits admitted spawns and sends, stops every live or failed child
 * recorded by the roster (waiting until each has exited), then completes the Lead with its final view.
 */
export const disposeTeamUpdate = defineUpdate<TeamView, [Attributed]>('disposeTeam');

// ---- roster, mailbox, wait, interrupt (Lead) ----------------------------------------------------

export interface SpawnTeammateRequest extends Attributed {
  name: string;
  context?: MemberContext;
  /** The initial message: the first item of the teammate's inbox. Any JSON. */
  message: JsonValue;
  model?: string | null;
}
export interface SpawnTeammateResult {
  member: MemberRecord;
  initialMessageId: string;
}
/** Lead-only. Records provisioning, starts the child with the initial message, records active or failed. */
export const spawnTeammateUpdate = defineUpdate<SpawnTeammateResult, [SpawnTeammateRequest]>('spawnTeammate');

export interface SendMessageRequest extends Attributed {
  to: string;
  content: JsonValue;
  /** Stable id for de-duplication; a retried send with the same id is delivered once. Defaults to the update id. */
  messageId?: string;
}
export type LiveStatus = 'starting' | 'running' | 'idle' | 'exited';
/** Inbox acceptance: the target's inbox has recorded (or had already recorded) the message. */
export interface InboxAcceptance {
  messageId: string;
  to: string;
  targetPhase: MemberPhase | 'lead';
  targetStatus: LiveStatus;
}
export const sendMessageUpdate = defineUpdate<InboxAcceptance, [SendMessageRequest]>('sendMessage');

export interface InterruptTeammateRequest extends Attributed {
  name: string;
}
export interface InterruptResult {
  name: string;
  /** The live status the Lead knew when it relayed the interrupt. */
  statusAtInterrupt: LiveStatus;
}
/** Lead-only. Cancels the teammate's current turn; its inbox, mailbox records and task ownership are untouched. */
export const interruptTeammateUpdate = defineUpdate<InterruptResult, [InterruptTeammateRequest]>('interruptTeammate');

export interface WaitForEdgeRequest extends Attributed {
  /** Give up after this long (durable timer). 1 ms to 1 hour. */
  timeoutMs: number;
  kinds?: EdgeKind[];
}
export type WaitResult = { woke: 'edge'; edge: TeamEdge } | { woke: 'timeout' } | { woke: 'rollover' };
/** Blocks until the next roster, mailbox, task or status edge after the call began, or the timeout. */
export const waitForEdgeUpdate = defineUpdate<WaitResult, [WaitForEdgeRequest]>('waitForEdge');

/** Lead-only: takes the messages waiting in the Lead's own inbox (teammates' sends to "lead"). */
export const readLeadInboxUpdate = defineUpdate<InboxMessage[], [Attributed]>('readLeadInbox');

export interface MemberStatusReport {
  name: string;
  status: LiveStatus;
  turn: number;
  /** Inbox messages the member has taken into turns so far (lets the Lead tell "idle" from "has mail waiting"). */
  consumed?: number;
  /**
   * Messages the Lead relayed (stamped with a relaySeq) that this member has settled: taken into a
   * turn, or dropped as a duplicate or malformed. The Lead counts a member busy while it has relayed
   * more than the member has settled, so delivery accounting rests on the target's word.
   */
  settled?: number;
}
export interface EdgeWatch {
  /** The watching teammate (signals carry no authenticated sender; the Lead ignores non-members). */
  name: string;
  /** The teammate's wait: its notification carries this id back. */
  waitId: string;
  kinds?: EdgeKind[];
}
/**
 * Teammate → Lead: notify me (edgeNotification) of the next edge of these kinds recorded after this
 * signal arrives. A teammate's wait_agent waits in its own workflow on that notification, so a
 * waiting member holds none of the Lead's in-flight Update slots. One watch per member at a time.
 */
export const watchEdgesSignal = defineSignal<[EdgeWatch]>('watchEdges');
/** Teammate → Lead: drop the watch (its wait timed out or was interrupted). */
export const unwatchEdgesSignal = defineSignal<[{ name: string; waitId: string }]>('unwatchEdges');
/** Lead → teammate: the edge a watch was waiting for. */
export const edgeNotificationSignal = defineSignal<[{ waitId: string; edge: TeamEdge }]>('edgeNotification');

/** Teammate → Lead: live status (running a turn, idle, exited). Not durable roster state. */
export const reportMemberStatusSignal = defineSignal<[MemberStatusReport]>('reportMemberStatus');

// ---- teammate ------------------------------------------------------------------------------------

/** Into a teammate's inbox. Recorded once per message id. */
export const deliverMessageSignal = defineSignal<[InboxMessage]>('deliverMessage');
/** Lead → teammate: cancel the current turn (if any). */
export const interruptTurnSignal = defineSignal<[{ requestedBy: string }]>('interruptTurn');
export const getTeammateStateQuery = defineQuery<TeammateStateView>('getTeammateState');

/** Stored in the child's memo so recovery can recognise a genuine teammate of this Team. */
export interface TeammateDescriptor {
  teamId: string;
  name: string;
  context: MemberContext;
  initialMessageId: string;
}

/** What a relayed send returned, as the sender's conversation records it. */
export type SendOutcome = { ok: true; acceptance: InboxAcceptance } | { ok: false; type: string; message: string };

/**
 * One durable entry of an agent's conversation (Lead or teammate). The model sees it through the
 * pure prompt assembly in shared/agent/prompt.ts.
 *  - user: an inbox message (messageId, runtime-attributed `from`, content as delivered)
 *  - assistant: a model reply; `content` is its text (or null), `toolCalls` the tools it called;
 *    the turn's last assistant entry carries `receipts` of every send the turn made
 *  - tool: the compact JSON result of one tool call (`toolCallId`, `toolName`, `ok`)
 *  - system: a runtime note (turn interrupted, turn failed, work still running, ...)
 */
export interface ConversationEntry {
  role: 'user' | 'assistant' | 'system' | 'tool';
  receipts?: SendOutcome[];
  messageId?: string;
  from?: string;
  content: JsonValue;
  toolCalls?: import('./model').ToolCall[];
  toolCallId?: string;
  toolName?: string;
  ok?: boolean;
  /**
   * Set on entries that are Team records (Team tool calls and results, messages from members).
   * A fork of a root keeps its ancestor's conversation but drops records of the ancestor's Team.
   */
  teamId?: string;
  turn: number;
}

/** Tool profiles: `default` (no Team tools; subagents) and the opt-in `team` profile. */
export const PROFILE_NAMES = ['default', 'team'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** Makes the Lead an agent: without it the Lead is driven only through Updates (an operator's Team). */
export interface LeadAgentOptions {
  /** The opening user message of the Lead's first turn. */
  prompt: string;
  /** Default `default`. Teammates always run the `team` profile. */
  profile?: ProfileName;
  /** Model name for the Lead (and default for teammates); null = the worker's configured model. */
  model?: string | null;
  /** Working directory the Lead starts in; every member starts here too. Default `.` (the checkout root). */
  cwd?: string;
  /** Task queue of the worker holding the checkout; work tools run there. Default: the Team's task queue. */
  checkoutTaskQueue?: string;
}

/** `failed`: the last turn failed for good (e.g. the model rejected the request); a new prompt starts another turn. */
export type AgentStatus = 'running' | 'waiting' | 'idle' | 'answered' | 'failed';

/** The Lead agent as the operator sees it (query `getAgentState`). */
export interface LeadAgentView {
  enabled: boolean;
  profile: ProfileName;
  status: AgentStatus;
  turns: number;
  cwd: string;
  /** The Lead's final answer once it gave one with no required work left; null before. */
  finalAnswer: string | null;
  /** Tasks still open when the final answer was accepted (the Lead was told about them). */
  openTasksAtAnswer: number[];
  /** Why the last turn failed (status `failed`), with what to do next; null otherwise. */
  lastError: string | null;
  conversation: ConversationEntry[];
}
export const getAgentStateQuery = defineQuery<LeadAgentView>('getAgentState');

export interface PromptLeadRequest extends Attributed {
  /** A follow-up user message for the Lead agent; starts its next turn. */
  content: string;
  messageId?: string;
}
/** Lead-only (the operator). A follow-up prompt to the Lead agent; answered with inbox acceptance. */
export const promptLeadUpdate = defineUpdate<InboxAcceptance, [PromptLeadRequest]>('promptLead');

export interface TeammateInput {
  descriptor: TeammateDescriptor;
  model: string | null;
  /** Fork children: the Lead's completed-turn prefix, captured once at spawn. Fresh: empty. */
  seed: ConversationEntry[];
  initialMessage: InboxMessage;
  /** The member's starting directory: the Lead's current directory at spawn. Default `.`. */
  cwd?: string;
  /** Where work tools run (the checkout's task queue). Default: this workflow's task queue. */
  checkoutTaskQueue?: string;
  /** Turns per run before continuing as new (bounds history growth); default 500. */
  maxTurnsPerRun?: number;
  /** Present only on a continued run. */
  carried?: CarriedTeammateState;
}

export interface CarriedTeammateState {
  inbox: import('./inbox').InboxState;
  conversation: ConversationEntry[];
  turns: number;
  interruptedTurns: number;
  continuedRuns: number;
  /** The member's own working directory (a `cd` in bash stays with this member). */
  cwd?: string;
  /** Relayed messages settled so far (see MemberStatusReport.settled). */
  settled?: number;
}

export interface TeammateStateView {
  descriptor: TeammateDescriptor;
  status: LiveStatus;
  turns: number;
  interruptedTurns: number;
  pending: InboxMessage[];
  received: number;
  consumed: number;
  seenMessageIds: string[];
  conversation: ConversationEntry[];
  continuedRuns: number;
  cwd: string;
  /** Relayed messages settled (taken into a turn or dropped), as reported to the Lead. */
  settled: number;
  /** Signals this run ignored, by reason. */
  ignoredSignals: IgnoredSignals;
  /** Events in the current run's history, and whether the server suggests continuing as new. */
  historyLength?: number;
  continueAsNewSuggested?: boolean;
}

/** Unattributed inspection for people and UIs (no history is written). */
export const getTeamViewQuery = defineQuery<TeamView>('getTeamView');
export const getTaskQuery = defineQuery<TaskSnapshot | null, [{ taskId: number }]>('getTask');
/** Historical mailbox records (validated, never delivered) and the ones that failed validation. */
export const getLegacyMailboxQuery = defineQuery<LegacyMailbox>('getLegacyMailbox');
/** Live status of each teammate as last reported (advisory, not durable roster state). */
export const getLiveStatusQuery = defineQuery<Record<string, LiveStatus>>('getLiveStatus');
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
   * Start this root as a fork of another root's conversation. The fork is a new root (a new Team):
   * it keeps the ancestor's completed turns but excludes records of the ancestor's Team.
   */
  forkOf?: { teamId: string; conversation: ConversationEntry[] };
  /** Present only on a continued run: everything the previous run owned. */
  carried?: CarriedLeadState;
}

export interface CarriedLeadState {
  state: TeamState;
  leadInbox: import('./inbox').InboxState;
  edges: import('./teamEdges').EdgeLog;
  liveStatus: Record<string, LiveStatus>;
  legacyMailbox: LegacyMailbox;
  /** Recently applied Update ids and their results, so a retried Update is answered, never re-applied. */
  recentUpdates: RecentUpdate[];
  continuedRuns: number;
  agent?: CarriedLeadAgent;
  /** Messages delivered to / consumed by each teammate, for the Lead's "required work" check. */
  delivered?: Record<string, number>;
  consumed?: Record<string, number>;
  /** Per teammate: relayed messages it has settled (its own word), and the sizes of those not yet settled. */
  settled?: Record<string, number>;
  unsettledBytes?: Record<string, number[]>;
  /** Teammates' pending edge watches (wait_agent), by member name. */
  watchers?: Record<string, { waitId: string; kinds: EdgeKind[]; since: number }>;
}

export interface SubagentAnswer {
  agentId: string;
  turn: number;
  answer: string | null;
}
/** Ordinary subagent → the Lead that started it: the final reply of one of its turns. */
export const subagentAnswerSignal = defineSignal<[SubagentAnswer]>('subagentAnswer');
export const SUBAGENT_WORKFLOW_TYPE = 'subagent';

export interface SubagentRecord {
  workflowId: string;
  answers: SubagentAnswer[];
  closed: boolean;
}

export interface CarriedLeadAgent {
  subagents: Record<string, SubagentRecord>;
  nextSubagent: number;
  conversation: ConversationEntry[];
  turns: number;
  cwd: string;
  status: AgentStatus;
  finalAnswer: string | null;
  openTasksAtAnswer: number[];
  nudges: number;
  lastError?: string | null;
  /** A Lead turn that stopped at a step boundary for the rollover: the next run goes on from there. */
  resumeTurn?: { turn: number; step: number };
}

/** A remembered Update: its whole result when small, else (task mutations) the task id and revision it produced. */
export interface RecentUpdate {
  updateId: string;
  result?: unknown;
  taskId?: number;
  revision?: number;
}

export interface TeamLeadResult {
  view: TeamView;
}
