/**
 * The activities of the contract, as plain interfaces: workflows proxy them by these types
 * (`proxyActivities<TeamActivities>(...)`) and never import activity code; the factories in
 * activities/ are typed to return them, so a drift on either side is a compile error.
 */
import type { ChatMessage, ModelResponse, ToolCall } from './model';
import type { SendOutcome } from './agent';
import type { TeammateDescriptor } from './session';
import type { MemberStatusReport } from './lead';
import type { ModelCallRequest } from './signals';
import type { ReservedIdHolder } from './reservedIds';

// ---- Team activities (the worker that runs the Lead and its members) --------------------------------

export interface RunTeamToolInput {
  teamId: string;
  /** The calling member, from its own workflow identity (never from model input). */
  caller: string;
  call: ToolCall;
  /** The deterministic operation id: the id of the one Lead Update the tool call becomes. */
  opId: string;
}

export interface ReconcileTeammateInput {
  workflowId: string;
  descriptor: TeammateDescriptor;
}

export interface ReportMemberStatusInput {
  /** The Lead's workflow id (the Team's id), from the member's own descriptor, never from model input. */
  teamId: string;
  report: MemberStatusReport;
}

export interface RequestModelCallInput {
  /** The Lead's workflow id (the Team's id), from the member's own descriptor, never from model input. */
  teamId: string;
  request: ModelCallRequest;
}

/** `holder`: the reserved id is held by a workflow that is not the Lead's own child (ReservedIdTaken), left untouched. */
export type ReconcileOutcome = { phase: 'active' } | { phase: 'failed'; reason: string; drained: boolean; holder?: ReservedIdHolder };

/** What one tool call gave the model (runTeamTool's result, and every tool of a turn). */
export interface DispatchResult {
  ok: boolean;
  /** Compact JSON for the model. */
  text: string;
  /** Set when the result is a record of this Team (Team tools), so forks of the root can drop it. */
  teamRecord?: boolean;
  /** A send_message's inbox acceptance (or rejection), collected as the turn's receipts. */
  receipt?: SendOutcome;
}

export interface TeamActivities {
  /**
   * A teammate's Team tool call: the tool runs against a client attributed to the calling member,
   * as exactly one Lead Update whose id is the workflow's deterministic operation id, so a retried
   * activity applies once. Heartbeats while a wait_agent blocks; gives up when the turn is cancelled.
   */
  runTeamTool(input: RunTeamToolInput): Promise<DispatchResult>;
  /**
   * Recovery of an unterminated provisioning record from the child's independently persisted
   * state: direct parent, workflow type and descriptor must match and the initial message must be
   * recorded, or the child is drained and the record fails.
   */
  reconcileTeammate(input: ReconcileTeammateInput): Promise<ReconcileOutcome>;
  /** Disposal and conflict cleanup: cancel the child and wait until it has exited. */
  stopTeammate(input: { workflowId: string }): Promise<void>;
  /** Whether a member that reported its own exit has closed on the server (waits up to MEMBER_CLOSE_WAIT_MS); never cancels it. */
  memberClosed(input: { workflowId: string }): Promise<boolean>;
  /**
   * A member's live status, signalled to its Lead (`reportMemberStatus`) by the worker: an activity
   * of the member (workflows/common/agentActivities.ts `leadSignals`). A closed Lead is no error:
   * there is nothing left to report to.
   */
  reportMemberStatus(input: ReportMemberStatusInput): Promise<void>;
  /**
   * Under a Team budget, a member's ask before a model call, signalled to its Lead
   * (`modelCallRequest`) by the worker: an activity of the member, for the same reason as
   * reportMemberStatus. A closed Lead fails it (`TeamClosed`, not retried): the member waits for the
   * answer, and nobody is left to give it.
   */
  requestModelCall(input: RequestModelCallInput): Promise<void>;
}

// ---- model calls ----------------------------------------------------------------------------------

export interface CallModelInput {
  /** null: the provider's default model. */
  model: string | null;
  /** Names the tools offered to the model (resolved by the worker's toolsFor). */
  toolset: string;
  messages: ChatMessage[];
}

export interface ModelActivities {
  /** One model call. Cancellable; heartbeats every second while it runs. */
  callModel(input: CallModelInput): Promise<ModelResponse>;
}

// ---- work tools (the worker that holds the checkout) ----------------------------------------------

/** Input and output of the runWorkTool activity. `cwd` is the member's directory relative to the checkout root. */
export interface RunWorkToolInput {
  tool: string;
  argumentsJson: string;
  cwd: string;
}
export interface RunWorkToolOutput {
  ok: boolean;
  text: string;
  cwd: string;
}

export interface WorkToolActivities {
  /** One work tool call (read_file, write_file, edit_file, bash) in the member's directory `cwd`. */
  runWorkTool(input: RunWorkToolInput): Promise<RunWorkToolOutput>;
}
