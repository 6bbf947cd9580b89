/**
 * The Team's reads, the Queries of the wire contract in its order, then the server's describe: the
 * part of TeamClient (teamClient.ts) that writes no history. Each is one call of the client's
 * engine (client/teamCalls.ts) by its read deadline.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import * as defs from '../shared/contract';
import type { AgentTeamView } from '../shared/projection/agentTeamView';
import { readLeadAgentState, readTeammateState } from './agentStates';
import type { CallOptions, TeamHealth } from './deadlines';
import { readTeamHealth } from './health';
import type { TeamCalls } from './teamCalls';
import type { LegacyMailbox, TaskSnapshot, TeamView } from '../shared/contract';

export abstract class TeamReads {
  abstract readonly client: Client;
  abstract readonly teamId: string;
  /** Runs the client's calls (client/teamCalls.ts). */
  protected abstract readonly calls: TeamCalls;

  /** Always the latest run: continue-as-new is invisible to callers. */
  handle(): WorkflowHandle<defs.TeamLeadWorkflow> {
    return this.calls.handle();
  }

  view(options?: CallOptions): Promise<TeamView> {
    return this.calls.query(defs.getTeamViewQuery.name, options, () => this.handle().query(defs.getTeamViewQuery));
  }
  /** The agentTeam wire projection (what the web panel shows). */
  agentTeamView(options?: CallOptions): Promise<AgentTeamView> {
    return this.calls.query(defs.getAgentTeamViewQuery.name, options, () => this.handle().query(defs.getAgentTeamViewQuery));
  }
  task(taskId: number, options?: CallOptions): Promise<TaskSnapshot | null> {
    return this.calls.query(defs.getTaskQuery.name, options, () => this.handle().query(defs.getTaskQuery, { taskId }));
  }
  runInfo(options?: CallOptions): Promise<defs.LeadRunInfo> {
    return this.calls.query(defs.getLeadRunInfoQuery.name, options, () => this.handle().query(defs.getLeadRunInfoQuery));
  }
  legacyMailbox(options?: CallOptions): Promise<LegacyMailbox> {
    return this.calls.query(defs.getLegacyMailboxQuery.name, options, () => this.handle().query(defs.getLegacyMailboxQuery));
  }
  liveStatus(options?: CallOptions): Promise<Record<string, defs.LiveStatus>> {
    return this.calls.query(defs.getLiveStatusQuery.name, options, () => this.handle().query(defs.getLiveStatusQuery));
  }
  /** What the Team's model calls used, per member and in all, with cost where the Team's price table prices the model. */
  usage(options?: CallOptions): Promise<defs.TeamUsageView> {
    return this.calls.query(defs.getTeamUsageQuery.name, options, () => this.handle().query(defs.getTeamUsageQuery));
  }
  /** The Lead agent: status, turns, cwd, final answer and conversation. NoLeadAgent from a Lead without the agent runtime. */
  agentState(options?: CallOptions): Promise<defs.LeadAgentView> {
    return readLeadAgentState(this.calls, options);
  }
  /** A teammate's own state, conversation included (Query on its workflow, named by the roster). */
  teammateState(name: string, options?: CallOptions): Promise<defs.TeammateStateView> {
    return readTeammateState(this.calls, name, options);
  }
  /**
   * What the server says about the Lead without a worker: run status, task queue, workers polling
   * it, failing workflow tasks (see `healthAdvice`). Throws WorkflowNotFoundError for an unknown Team.
   */
  health(options?: CallOptions): Promise<TeamHealth> {
    return this.calls.query('describe', options, () => readTeamHealth(this.client, this.teamId));
  }
}
