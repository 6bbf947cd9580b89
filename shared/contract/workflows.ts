/**
 * The workflows of the contract: their type names (what a client starts and a worker registers) and
 * their function types, so a client or a parent starts them by type without importing workflow code.
 * workflows/ implements these (a drift in input or result is a compile error there).
 */
import type { TeamLeadInput, TeamLeadResult } from './lead';
import type { TeammateInput, TeammateStateView } from './session';
import type { ReapOrphansInput, ReapReport } from './reaper';

export const TEAM_LEAD_WORKFLOW_TYPE = 'teamLead';
export const TEAMMATE_WORKFLOW_TYPE = 'teammate';
export const SUBAGENT_WORKFLOW_TYPE = 'subagent';
/** The orphan reaper: one pass over a task queue, started by the Schedule `agent-teams-reaper/<taskQueue>` (worker/reaper.ts). */
export const REAPER_WORKFLOW_TYPE = 'orphanReaper';
export const DEFAULT_TASK_QUEUE = 'agent-teams';

/** The Lead of a Team (workflow id = team id). Completes with its final view once disposed. */
export type TeamLeadWorkflow = (input: TeamLeadInput) => Promise<TeamLeadResult>;
/** A teammate: a child of the Lead under its reserved id, running agent turns on its inbox. */
export type TeammateWorkflow = (input: TeammateInput) => Promise<TeammateStateView>;
/** An ordinary subagent: a child of the Lead agent that reports each turn's answer to it. */
export type SubagentWorkflow = (input: TeammateInput) => Promise<TeammateStateView>;
/** One pass of the orphan reaper over a task queue (shared/reaper/orphans.ts). */
export type ReaperWorkflow = (input: ReapOrphansInput) => Promise<ReapReport>;

/**
 * `T`, checked to implement `Contract`: a workflow module declares
 * `type _Implements = Implements<TeammateWorkflow, typeof teammate>`, so a drift is a compile error.
 */
export type Implements<Contract, T extends Contract> = T;
