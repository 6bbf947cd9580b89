/**
 * An ordinary subagent of the default profile: a continuable child session outside any roster.
 * It is not a Team member (no Team tools, no roster record); each turn's final reply goes to the
 * session that started it, which owns it (send_input, wait_agent, close_agent).
 */
import { getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import * as defs from '../../shared/contract';
import type { Implements, SubagentWorkflow, TeammateStateView } from '../../shared/contract';
import type { TeammateRunInput } from '../../shared/session/carried';
import { runSession } from './session';
import { parseSessionInput } from '../common/workflowInputs';

export async function subagent(rawInput: TeammateRunInput): Promise<TeammateStateView> {
  // A subagent's id is <teamId>/subagent/<n> and its name subagent-<n>.
  const input = parseSessionInput('subagent', rawInput, workflowInfo().workflowId, (teamId, name) => `${teamId}/subagent/${name.replace(/^subagent-/, '')}`);
  const parent = getExternalWorkflowHandle(input.descriptor.teamId);
  return runSession(input, {
    role: 'subagent',
    toolset: 'subagent',
    report: () => Promise.resolve(),
    onAnswer: async (turn, answer, usage) => {
      try {
        await parent.signal(defs.subagentAnswerSignal, { agentId: workflowInfo().workflowId, turn, answer, usage });
      } catch {
        // The parent has finished: nobody is waiting for this answer.
      }
    },
  });
}

/** The contract's SubagentWorkflow (shared/contract/workflows.ts). */
type _Implements = Implements<SubagentWorkflow, typeof subagent>;
