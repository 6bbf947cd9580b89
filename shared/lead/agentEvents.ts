/**
 * The closed union of everything that changes the Lead agent's carried state (CarriedLeadAgent,
 * carried.ts): status, turn bookkeeping, its conversation, the open-task nudge count, the working
 * directory and the ordinary subagents. Plain data; `applyLeadAgent` (agentApply.ts) is the only
 * thing that reads them, and the decide functions (agentDecide.ts) the only things that make them.
 * The agent loop (shared/agent/loop.ts) appends to the conversation through its `append`, which
 * the Lead applies as `conversationAppended`.
 */
import type { AgentStatus, ConversationEntry, SubagentAnswer, UsageTotals } from '../contract';

export type LeadAgentEvent =
  /** The Lead agent's status (the workflow also records it as a `leadStatusChanged` edge of the Lead's state). */
  | { type: 'statusChanged'; status: AgentStatus }
  /** A turn over the Lead's inbox began: the turn count goes up by one (the inbox's messages become its user entries). */
  | { type: 'turnBegan' }
  /** A turn (new or resumed) is running: the last turn's error, if any, is cleared. */
  | { type: 'turnStarted' }
  /** The turn stopped at a step boundary for a rollover: the next run goes on from there. */
  | { type: 'turnYielded'; turn: number; step: number }
  /** The run took the yielded turn to go on with it. */
  | { type: 'turnResumed' }
  /** The turn failed; `error` is what the operator is shown. */
  | { type: 'turnFailed'; error: string }
  /** An open-task nudge that counts against MAX_COMPLETION_NUDGES was sent. */
  | { type: 'nudgeCounted' }
  /** Word from someone other than the Lead itself: the nudge count starts over. */
  | { type: 'nudgesReset' }
  /** The last reply was accepted as the final answer, with the tasks still open then. */
  | { type: 'answered'; finalAnswer: string | null; openTasks: number[] }
  /** Entries appended to the conversation: a turn's opening messages, Steer's take, the agent loop's entries, a note. */
  | { type: 'conversationAppended'; entries: ConversationEntry[] }
  /** A work tool moved the Lead's working directory (bash's `cd`). */
  | { type: 'cwdChanged'; cwd: string }
  /** A subagent was numbered (the next number) and recorded open, before its child starts. */
  | { type: 'subagentOpened'; agentId: string; model?: string | null }
  /** A subagent's answer (already cut to size); only the newest few are kept. */
  | { type: 'subagentAnswered'; answer: SubagentAnswer }
  /** A subagent reported what its model calls used so far (with an answer): its newest figures replace older ones. */
  | { type: 'subagentUsageReported'; agentId: string; usage: UsageTotals }
  /** One of the Lead's own model calls came back: its usage counts once, in this turn. */
  | { type: 'modelCallCompleted'; turn: number; usage: UsageTotals }
  /** A turn (or the part of it this run ran) took `ms` of workflow time: active time, which a budget may cap. */
  | { type: 'activeTimeAdded'; ms: number }
  /** A subagent's child was stopped (close_agent, disposal). */
  | { type: 'subagentClosed'; agentId: string }
  /** The oldest closed subagents were forgotten to make room for a new one. */
  | { type: 'subagentsPruned'; agentIds: string[] };

export type LeadAgentEventType = LeadAgentEvent['type'];
