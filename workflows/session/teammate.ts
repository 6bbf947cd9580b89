/**
 * A teammate: a child workflow of the Lead with the reserved id `<teamId>/teammate/<name>`. It
 * owns its inbox (deliveries are signals, recorded once per message id) and runs one agent turn
 * at a time over whatever is pending, with the Team profile's tools. It reports its live status to
 * the Lead. the session loop lives in session.ts.
 */
import { getExternalWorkflowHandle, patched, workflowInfo } from '@temporalio/workflow';
import { teammateWorkflowId } from '../../shared/team';
import { parseSessionInput } from '../common/workflowInputs';
import * as defs from '../../shared/contract';
import type { Implements, TeammateStateView, TeammateWorkflow } from '../../shared/contract';
import type { TeammateRunInput } from '../../shared/session/carried';
import { runSession } from './session';
import { leadSignals } from '../common/agentActivities';
import { statusReportSummary } from '../../shared/text/webUi';
import { STATUS_REPORT_ACTIVITY_PATCH } from '../../shared/contract/patches';

export async function teammate(rawInput: TeammateRunInput): Promise<TeammateStateView> {
  const input = parseSessionInput('teammate', rawInput, workflowInfo().workflowId, teammateWorkflowId);
  const lead = getExternalWorkflowHandle(input.descriptor.teamId);
  return runSession(input, {
    role: 'teammate',
    toolset: 'team',
    // Live status is advisory for the Lead (wait edges, send receipts); losing one to a closed Lead is harmless.
    report: async (status, turn, consumed, settled, usage, exhausted) => {
      const report: defs.MemberStatusReport = { name: input.descriptor.name, status, turn, consumed, settled, usage, ...(exhausted ? { exhausted } : {}) };
      try {
        if (patched(STATUS_REPORT_ACTIVITY_PATCH)) {
          const summary = statusReportSummary(input.descriptor.name, status, turn);
          await leadSignals.reportMemberStatus.executeWithOptions({ summary }, [{ teamId: input.descriptor.teamId, report }]);
        } else await lead.signal(defs.reportMemberStatusSignal, report);
      } catch {
        // The Lead has finished: nothing to report to.
      }
    },
  });
}

/** The contract's TeammateWorkflow (shared/contract/workflows.ts). */
type _Implements = Implements<TeammateWorkflow, typeof teammate>;
