/**
 * The agentTeam wire projection's shapes (the seed's "Web projection"): what `getAgentTeamView`
 * answers and the web panel shows. shared/projection/agentTeamView.ts computes it from the Lead's
 * state.
 */
import type { TaskView } from './team';
import type { Admission, AgentStatus, LiveStatus, MemberContext, MemberPhase } from './vocabulary';

/**
 * An operation the Lead refused (a stale claim, a send to an unknown member...), as its caller
 * reported it: shown beside the state it left unchanged. Advisory, like live status.
 */
export interface OperationFailure {
  operation: string;
  caller: string;
  /** The rejection's stable `type` (TaskRevisionConflict, ...). */
  type: string;
  message: string;
  at: string;
}

/** A teammate's row: its durable roster record with its live activity. */
export interface AgentTeamMemberRow {
  name: string;
  role: 'teammate';
  context: MemberContext;
  phase: MemberPhase;
  /** Why provisioning or the member failed; null otherwise. */
  failure: string | null;
  /** Live activity as the member last reported it; absent until its first report. */
  live?: LiveStatus;
  model: string | null;
  workflowId: string;
  /** The roster record's revision and last change. */
  revision: number;
  updatedAt: string;
}

/** The Lead pseudo-row, with the Lead agent's status and answer when it runs one. */
export interface AgentTeamLeadRow {
  name: 'lead';
  role: 'lead';
  phase: 'active';
  /** The Lead agent's status; absent for a Team driven by a client, with no Lead agent. */
  status?: AgentStatus;
  /** The Lead agent's final answer, once it gave one. */
  answer?: string;
}

/** Model selection, its own projection: the Team's member name to the model it runs (null: the worker's default). */
export type ModelSelection = Record<string, string | null>;

/** The agentTeam wire projection (`getAgentTeamView`): what the web panel shows. */
export interface AgentTeamView {
  teamId: string;
  admission: Admission;
  maxMembers: number;
  lead: AgentTeamLeadRow;
  members: AgentTeamMemberRow[];
  tasks: TaskView[];
  models: ModelSelection;
  /** The last rejected operation; the rest of the view is the state it left unchanged. */
  failure: OperationFailure | null;
}
