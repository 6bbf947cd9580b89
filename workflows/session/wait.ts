/**
 * A teammate's wait_agent waits in its own workflow: it asks the Lead for a notification of the
 * next matching edge since the call began (watchEdges, answered by edgeNotification: signals both
 * ways) and waits on a durable condition and timer, holding none of the Lead's in-flight Update
 * slots. An interrupt cancels the wait and drops the watch (unwatchEdges).
 */
import type { UpdateDefinition } from '@temporalio/common';
import { CancellationScope, condition, getExternalWorkflowHandle } from '@temporalio/workflow';
import type { TeamToolContext } from '../../shared/agent/teamTools';
import * as defs from '../../shared/contract';
import type { SessionRun } from './sessionRun';
import { decideWaitBegan, decideWaitEnded } from '../../shared/session';

export function waitInMemberWorkflow(mate: SessionRun, teamId: string, name: string, waitId: string): TeamToolContext {
  return {
    caller: name,
    update: async <Ret, Req extends defs.Attributed>(definition: UpdateDefinition<Ret, [Req]>, body: Omit<Req, 'caller'>): Promise<Ret> => {
      if (definition.name !== defs.waitForEdgeUpdate.name) throw new TypeError(`only wait_agent waits in the teammate, not ${definition.name}`);
      const { timeoutMs, kinds } = body as unknown as Omit<defs.WaitForEdgeRequest, 'caller'>;
      const lead = getExternalWorkflowHandle(teamId);
      // Workflow time, so replay sends the same: the Lead counts edges from here, not from when the signal lands.
      const callStartedAt = new Date().toISOString();
      mate.apply(decideWaitBegan(mate.state, waitId));
      try {
        await lead.signal(defs.watchEdgesSignal, { name, waitId, ...(kinds ? { kinds } : {}), callStartedAt });
        await condition(() => mate.state.notifiedEdge !== null, timeoutMs);
        const edge = mate.state.notifiedEdge;
        return (edge ? { woke: 'edge', edge } : { woke: 'timeout' }) as Ret;
      } finally {
        if (mate.state.notifiedEdge === null)
          await CancellationScope.nonCancellable(() => lead.signal(defs.unwatchEdgesSignal, { name, waitId }).catch(() => undefined));
        mate.apply(decideWaitEnded(mate.state));
      }
    },
    roster: () => Promise.reject(new TypeError('read_roster runs through the Lead')),
  };
}
