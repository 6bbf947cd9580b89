/**
 * Reads of an agent's own state that take more than one Query's plain call: the Lead agent's
 * (NoLeadAgent from a Lead without the agent runtime) and a teammate's (its workflow found through
 * the roster). Both run as reads through the call engine (client/teamCalls.ts).
 */
import { QueryNotRegisteredError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import * as defs from '../shared/contract';
import type { CallOptions } from './deadlines';
import { NO_LEAD_AGENT } from './failures';
import type { TeamCalls } from './teamCalls';

/** The Lead agent: status, turns, cwd, final answer and conversation (Query, no history written). */
export function readLeadAgentState(calls: TeamCalls, options?: CallOptions): Promise<defs.LeadAgentView> {
  return calls.query(defs.getAgentStateQuery.name, options, async () => {
    try {
      return await calls.handle().query(defs.getAgentStateQuery);
    } catch (error) {
      if (error instanceof QueryNotRegisteredError) {
        throw ApplicationFailure.create({
          type: NO_LEAD_AGENT,
          message: `Team ${calls.team.teamId}'s Lead runs a version without the agent runtime (no getAgentState query); start a new Team on current workers`,
          nonRetryable: true,
        });
      }
      throw error;
    }
  });
}

/** A teammate's own state, conversation included (Query on its workflow, named by the roster). */
export function readTeammateState(calls: TeamCalls, name: string, options?: CallOptions): Promise<defs.TeammateStateView> {
  return calls.query('teammateState', options, async () => {
    // The roster read is TeamClient.view() with the client's deadline, inside this call's.
    const view = await calls.query(defs.getTeamViewQuery.name, undefined, () => calls.handle().query(defs.getTeamViewQuery));
    const member = view.members.find((m) => m.name === name);
    if (!member) {
      const names = view.members.map((m) => m.name).join(', ') || 'none';
      throw ApplicationFailure.create({
        type: 'UnknownMember',
        message: `Team ${calls.team.teamId} has no teammate "${name}" (teammates: ${names}); read the roster`,
        nonRetryable: true,
      });
    }
    return calls.team.client.workflow.getHandle(member.workflowId).query(defs.getTeammateStateQuery);
  });
}
