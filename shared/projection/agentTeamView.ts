/**
 * The agentTeam wire projection (the seed's "Web projection"): the complete view a web panel
 * shows. Durable roster phases with the Lead pseudo-row, the non-deleted tasks with readiness and
 * overlaps (derived by the board's own code, shared/team/view.ts), each member's live activity,
 * the model selection, and the last rejected operation beside the state it left untouched.
 *
 * Publication depends on reference identity: the Lead's state replaces only the collection an
 * event touches (shared/lead/apply.ts), so a projector that sees the same inputs returns the same
 * view object and a mailbox-only event publishes nothing.
 */
import type { AgentStatus } from '../contract';
import type { LeadState } from '../lead/state';
import type { TeamState } from '../team';
import { boardView } from '../team';
import type { AgentTeamLeadRow, AgentTeamMemberRow, AgentTeamView, ModelSelection, OperationFailure } from '../contract/agentTeamView';
import { LEAD } from '../contract';

export type { AgentTeamLeadRow, AgentTeamMemberRow, AgentTeamView, ModelSelection } from '../contract/agentTeamView';

/** What the projection is computed from: parts of the Lead's state, and the Lead agent's status. */
export interface ProjectionInputs {
  team: TeamState;
  liveStatus: LeadState['liveStatus'];
  lastFailure: OperationFailure | null;
  leadStatus: AgentStatus | null;
  leadAnswer: string | null;
}

export function projectionInputs(state: LeadState, leadStatus: AgentStatus | null, leadAnswer: string | null): ProjectionInputs {
  return { team: state.team, liveStatus: state.liveStatus, lastFailure: state.lastFailure, leadStatus, leadAnswer };
}

/**
 * Keeps the last view and rebuilds only what changed: the board when `team.tasks` is a new object,
 * the roster and models when `team.members` or `liveStatus` is. The same inputs return the same
 * view object, which is what "publish nothing" means for a carrier holding the reference.
 */
export class AgentTeamProjector {
  private last: { inputs: ProjectionInputs; view: AgentTeamView } | null = null;

  view(inputs: ProjectionInputs): AgentTeamView {
    const last = this.last;
    if (last && sameInputs(last.inputs, inputs)) return last.view;
    const tasks = last && last.inputs.team.tasks === inputs.team.tasks ? last.view.tasks : boardView(inputs.team);
    const rosterSame = last && last.inputs.team.members === inputs.team.members && last.inputs.liveStatus === inputs.liveStatus;
    const members = rosterSame ? last.view.members : memberRows(inputs);
    const models = last && last.inputs.team.members === inputs.team.members ? last.view.models : modelSelection(inputs.team);
    const view: AgentTeamView = {
      teamId: inputs.team.teamId,
      admission: inputs.team.admission,
      maxMembers: inputs.team.maxMembers,
      lead: leadRow(inputs),
      members,
      tasks,
      models,
      failure: inputs.lastFailure,
    };
    this.last = { inputs, view };
    return view;
  }
}

function sameInputs(a: ProjectionInputs, b: ProjectionInputs): boolean {
  return (
    a.team === b.team && a.liveStatus === b.liveStatus && a.lastFailure === b.lastFailure && a.leadStatus === b.leadStatus && a.leadAnswer === b.leadAnswer
  );
}

function leadRow({ leadStatus, leadAnswer }: ProjectionInputs): AgentTeamLeadRow {
  return {
    name: LEAD,
    role: 'lead',
    phase: 'active',
    ...(leadStatus !== null ? { status: leadStatus } : {}),
    ...(leadAnswer !== null ? { answer: leadAnswer } : {}),
  };
}

function memberRows({ team, liveStatus }: ProjectionInputs): AgentTeamMemberRow[] {
  return Object.values(team.members).map((member) => {
    const live = Object.prototype.hasOwnProperty.call(liveStatus, member.name) ? liveStatus[member.name] : undefined;
    return {
      name: member.name,
      role: 'teammate',
      context: member.context,
      phase: member.phase,
      failure: member.failure,
      ...(live !== undefined ? { live } : {}),
      model: member.model,
      workflowId: member.workflowId,
      revision: member.revision,
      updatedAt: member.updatedAt,
    };
  });
}

function modelSelection(team: TeamState): ModelSelection {
  return Object.fromEntries(Object.values(team.members).map((member) => [member.name, member.model]));
}
