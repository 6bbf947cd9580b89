/**
 * The agents of the contract: the durable conversation every agent (Lead, teammate, subagent)
 * keeps, the tool profiles, and the Lead agent's options and view.
 */
import type { JsonValue } from './json';
import type { ToolCall } from './model';
import type { InboxAcceptance } from './team';
import type { AgentStatus } from './vocabulary';
import type { MemberUsage } from './usage';

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
  toolCalls?: ToolCall[];
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
  /**
   * How long the Lead's reply is held while teammates are busy before the Lead gets a turn to
   * decide (it is told who is still busy, and the hold starts again after its next reply).
   * Default 30 minutes (REQUIRED_WORK_WAIT_MS); 1 s to 24 h.
   */
  requiredWorkWaitMs?: number;
}

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
  /** What the Lead's own model calls used, in all and in its current or last turn (the Team's: getTeamUsage). */
  usage: MemberUsage;
  /** The ordinary subagents the Lead started (workflow id = agent id), and whether it closed each: what the orphan reaper checks after a reset. */
  subagents: { workflowId: string; closed: boolean }[];
  conversation: ConversationEntry[];
}
