/**
 * The orphan reaper's activity (issue 22): one pass over a task queue. Teammates and subagents are
 * abandoned on their Lead's close (so they outlive its continue-as-new); when the Lead chain closes
 * for good (terminated, failed, timed out) or is reset to before a spawn, nothing else stops them.
 *
 * A pass lists the queue's running members through visibility, describes each of their Teams' Lead
 * once, and queries a Lead's roster only when that Lead was reset after one of its teammates started
 * (shared/reaper/orphans.ts decides). A member with a live owner is never described, queried or signalled,
 * so an idle teammate runs no workflow task because of the reaper. An orphan is asked to cancel
 * (its session ends cleanly and cancels its in-flight model call); one whose cancel was requested
 * by an earlier pass and that still runs is terminated.
 */
import { Context } from '@temporalio/activity';
import { type Client, isGrpcServiceError } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { getAgentStateQuery, getTeamViewQuery, TEAM_LEAD_WORKFLOW_TYPE } from '../shared/contract';
import { errorMessage } from '../shared/util/errors';
import {
  judgeMember,
  MAX_REPORTED_IDS,
  needsRoster,
  orphanAction,
  reapOrphansInputSchema,
  runningMembersQuery,
  type LeadFacts,
  type MemberFacts,
  type ReapOrphansInput,
  type ReaperActivities,
  type ReapReport,
  type RosterEntry,
} from '../shared/reaper/orphans';
import { ownershipOf } from './ownership';
import { keywordAttribute } from './searchAttributeValue';

/** temporal.api.enums.v1.WorkflowExecutionStatus (the proto package is not a dependency here). */
const STATUS_NAMES: Record<number, string> = {
  1: 'RUNNING',
  2: 'COMPLETED',
  3: 'FAILED',
  4: 'CANCELED',
  5: 'TERMINATED',
  6: 'CONTINUED_AS_NEW',
  7: 'TIMED_OUT',
  8: 'PAUSED',
};
/** The statuses in which a Lead run will never own a child again. RUNNING and PAUSED can; a latest run reported CONTINUED_AS_NEW is a race, judged live. */
const CLOSED_STATUSES = new Set(['COMPLETED', 'FAILED', 'CANCELED', 'TERMINATED', 'TIMED_OUT']);
const RUNNING = 1;
/** gRPC NOT_FOUND: no workflow with that id (or run). */
const GRPC_NOT_FOUND = 5;
/** How long a roster query may take before the pass keeps that Team's members and moves on. */
const ROSTER_QUERY_TIMEOUT_MS = 15_000;
/** Teams examined at once. */
const TEAM_CONCURRENCY = 8;
const LIST_PAGE_SIZE = 500;
const REAPER_IDENTITY = 'agent-teams orphan reaper';

export interface ReaperDependencies {
  client: Client;
}

function isNotFound(error: unknown): boolean {
  return isGrpcServiceError(error) && Number(error.code) === GRPC_NOT_FOUND;
}

/** A cancel or terminate that found the workflow already closed (visibility lagged behind it). */
function isAlreadyClosed(error: unknown): boolean {
  return isNotFound(error) || /already completed|not found/i.test(errorMessage(error));
}

export function createReaperActivities({ client }: ReaperDependencies): ReaperActivities {
  const namespace = client.options.namespace;

  /** The running members on the queue, grouped by their AgentTeamId. Members without one are not a Team's and are left alone. */
  async function runningMembersByTeam(taskQueue: string): Promise<Map<string, MemberFacts[]>> {
    const teams = new Map<string, MemberFacts[]>();
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await client.workflowService.listWorkflowExecutions({
        namespace,
        query: runningMembersQuery(taskQueue),
        pageSize: LIST_PAGE_SIZE,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      Context.current().heartbeat();
      for (const execution of page.executions ?? []) {
        const fields = execution.searchAttributes?.indexedFields;
        const teamId = keywordAttribute(fields, 'AgentTeamId');
        const role = keywordAttribute(fields, 'AgentTeamRole');
        const workflowId = execution.execution?.workflowId;
        const runId = execution.execution?.runId;
        // The query may list more than this queue's members for a name it cannot match exactly (runningMembersQuery).
        if (execution.taskQueue !== taskQueue) continue;
        if (!teamId || !workflowId || !runId || (role !== 'teammate' && role !== 'subagent')) continue;
        const member: MemberFacts = { workflowId, runId, role, startTime: tsToMs(execution.startTime) };
        teams.set(teamId, [...(teams.get(teamId) ?? []), member]);
      }
      nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
    } while (nextPageToken);
    return teams;
  }

  /** The Lead's latest run, as facts for the decision. */
  async function describeLead(teamId: string): Promise<LeadFacts> {
    let raw;
    try {
      raw = await client.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId: teamId } });
    } catch (error) {
      if (isNotFound(error)) return { kind: 'absent' };
      throw error;
    }
    const info = raw.workflowExecutionInfo;
    // A workflow of another type under the team id (started after the Lead closed) owns no teammate.
    if (info?.type?.name !== TEAM_LEAD_WORKFLOW_TYPE) return { kind: 'closed', status: `replaced by a ${info?.type?.name ?? 'unknown'} workflow` };
    const status = STATUS_NAMES[Number(info.status)] ?? `status ${String(info.status)}`;
    if (CLOSED_STATUSES.has(status)) return { kind: 'closed', status };
    const reset = raw.workflowExtendedInfo?.lastResetTime;
    return { kind: 'running', lastResetTime: reset ? tsToMs(reset) : null };
  }

  /**
   * What the reset Lead owns: its roster, and (only when a subagent is judged) the Lead agent's
   * subagents, an open one as active and a closed one as stopped. Null when it does not answer (the
   * members are kept until a pass reads it).
   */
  async function roster(teamId: string, withSubagents: boolean): Promise<RosterEntry[] | null> {
    try {
      const lead = client.workflow.getHandle(teamId);
      const view = await client.withDeadline(Date.now() + ROSTER_QUERY_TIMEOUT_MS, () => lead.query(getTeamViewQuery));
      const members = view.members.map((member): RosterEntry => ({ workflowId: member.workflowId, phase: member.phase }));
      if (!withSubagents) return members;
      const agent = await client.withDeadline(Date.now() + ROSTER_QUERY_TIMEOUT_MS, () => lead.query(getAgentStateQuery));
      return [...members, ...(agent.subagents ?? []).map((s): RosterEntry => ({ workflowId: s.workflowId, phase: s.closed ? 'stopped' : 'active' }))];
    } catch (error) {
      Context.current().log.warn(`orphan reaper: the roster of the reset Lead ${teamId} could not be read (${errorMessage(error)}); its members are kept`);
      return null;
    }
  }

  /**
   * Stops one orphan: a cancel first; a terminate when an earlier pass's cancel did not stop it.
   * Only a provable child of the Team's Lead (type, parent and AgentTeamId: the Lead's own check,
   * activities/ownership.ts) is touched; anything else that names the Team in its search
   * attributes is kept, and logged.
   */
  async function stop(member: MemberFacts, teamId: string, reason: string): Promise<'cancelled' | 'terminated' | 'closed' | 'notOwned'> {
    const execution = { workflowId: member.workflowId, runId: member.runId };
    try {
      const ownership = await ownershipOf(client, member.workflowId, teamId, member.runId);
      if (ownership.kind === 'absent') return 'closed';
      if (ownership.kind === 'foreign') {
        Context.current().log.warn(`orphan reaper: ${member.workflowId} names Team ${teamId} but is not its Lead's child (${ownership.problem}); left alone`);
        return 'notOwned';
      }
      const raw = ownership.raw;
      const action = orphanAction({
        running: Number(raw.workflowExecutionInfo?.status) === RUNNING,
        cancelRequested: raw.workflowExtendedInfo?.cancelRequested === true,
      });
      if (action === 'none') return 'closed';
      if (action === 'terminate') {
        await client.workflowService.terminateWorkflowExecution({
          namespace,
          workflowExecution: execution,
          identity: REAPER_IDENTITY,
          reason: `orphan reaper: ${reason} (Lead ${teamId}); it was asked to cancel in an earlier pass and is still running`,
        });
        return 'terminated';
      }
      await client.workflowService.requestCancelWorkflowExecution({
        namespace,
        workflowExecution: execution,
        identity: REAPER_IDENTITY,
        requestId: `reaper/${member.runId}`,
        reason: `orphan reaper: ${reason} (Lead ${teamId})`,
      });
      return 'cancelled';
    } catch (error) {
      if (isAlreadyClosed(error)) return 'closed';
      throw error;
    }
  }

  return {
    async reapOrphans(rawInput: ReapOrphansInput): Promise<ReapReport> {
      const { taskQueue } = reapOrphansInputSchema.parse(rawInput);
      const ctx = Context.current();
      const teams = await runningMembersByTeam(taskQueue);
      const report: ReapReport = {
        taskQueue,
        teamsExamined: 0,
        membersKept: 0,
        leadQueries: 0,
        cancelled: [],
        terminated: [],
        alreadyClosed: 0,
        idsOmitted: 0,
        teamsFailed: 0,
      };
      const record = (list: string[], id: string): void => {
        if (list.length < MAX_REPORTED_IDS) list.push(id);
        else report.idsOmitted += 1;
      };

      const examine = async (teamId: string, members: MemberFacts[]): Promise<void> => {
        const lead = await describeLead(teamId);
        report.teamsExamined += 1;
        let rosterEntries: RosterEntry[] | null = null;
        if (needsRoster(lead, members)) {
          report.leadQueries += 1;
          rosterEntries = await roster(
            teamId,
            members.some((member) => member.role === 'subagent'),
          );
        }
        for (const member of members) {
          const verdict = judgeMember(lead, member, rosterEntries);
          if (!verdict.orphan) {
            report.membersKept += 1;
            continue;
          }
          const outcome = await stop(member, teamId, verdict.reason);
          if (outcome === 'cancelled') record(report.cancelled, member.workflowId);
          else if (outcome === 'terminated') record(report.terminated, member.workflowId);
          else if (outcome === 'notOwned') report.membersKept += 1;
          else report.alreadyClosed += 1;
          ctx.heartbeat();
        }
        ctx.heartbeat();
      };

      const queue = [...teams.entries()];
      await Promise.all(
        Array.from({ length: Math.min(TEAM_CONCURRENCY, queue.length) }, async () => {
          for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
            const [teamId, members] = next;
            try {
              await examine(teamId, members);
            } catch (error) {
              // One Team's failure does not hold up the others; the next pass examines it again.
              report.teamsFailed += 1;
              ctx.log.warn(`orphan reaper on ${taskQueue}: Team ${teamId} not examined: ${errorMessage(error)}`);
            }
          }
        }),
      );

      const stopped = report.cancelled.length + report.terminated.length + report.idsOmitted;
      if (stopped > 0 || report.teamsFailed > 0) {
        ctx.log.info(
          `orphan reaper on ${taskQueue}: ${report.teamsExamined} Teams examined, ${report.membersKept} members kept, ` +
            `${report.cancelled.length} cancelled, ${report.terminated.length} terminated` +
            (report.idsOmitted > 0 ? ` (${report.idsOmitted} more not listed)` : '') +
            (report.teamsFailed > 0 ? `, ${report.teamsFailed} Teams not examined` : ''),
          { cancelled: report.cancelled, terminated: report.terminated },
        );
      }
      return report;
    },
  };
}
