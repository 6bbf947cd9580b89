/**
 * The wire contract (shared/contract): its names are public API, so they are pinned here. (Its
 * types are checked where they are implemented: each workflow module declares that it implements
 * its workflow type, and each activity factory returns its contract interface.)
 */
import * as contract from '../../shared/contract';

/** Every value the contract exports that has a wire name (Update, Signal or Query definitions). */
function wireNames(): Record<string, { type: string; name: string }> {
  const found: Record<string, { type: string; name: string }> = {};
  for (const [exported, value] of Object.entries(contract)) {
    if (typeof value === 'object' && value !== null && 'type' in value && 'name' in value) {
      const { type, name } = value as { type: unknown; name: unknown };
      if (typeof type === 'string' && typeof name === 'string') found[exported] = { type, name };
    }
  }
  return found;
}

test('the Update, Signal and Query names are the published ones', () => {
  expect(wireNames()).toEqual({
    createTaskUpdate: { type: 'update', name: 'createTask' },
    editTaskUpdate: { type: 'update', name: 'editTask' },
    claimTaskUpdate: { type: 'update', name: 'claimTask' },
    assignTaskUpdate: { type: 'update', name: 'assignTask' },
    releaseTaskUpdate: { type: 'update', name: 'releaseTask' },
    transitionTaskUpdate: { type: 'update', name: 'transitionTask' },
    deleteTaskUpdate: { type: 'update', name: 'deleteTask' },
    readTaskUpdate: { type: 'update', name: 'readTask' },
    listTasksUpdate: { type: 'update', name: 'listTasks' },
    listTasksPageUpdate: { type: 'update', name: 'listTasksPage' },
    disposeTeamUpdate: { type: 'update', name: 'disposeTeam' },
    spawnTeammateUpdate: { type: 'update', name: 'spawnTeammate' },
    sendMessageUpdate: { type: 'update', name: 'sendMessage' },
    interruptTeammateUpdate: { type: 'update', name: 'interruptTeammate' },
    waitForEdgeUpdate: { type: 'update', name: 'waitForEdge' },
    readLeadInboxUpdate: { type: 'update', name: 'readLeadInbox' },
    promptLeadUpdate: { type: 'update', name: 'promptLead' },
    setBudgetUpdate: { type: 'update', name: 'setBudget' },
    watchEdgesSignal: { type: 'signal', name: 'watchEdges' },
    unwatchEdgesSignal: { type: 'signal', name: 'unwatchEdges' },
    reportMemberStatusSignal: { type: 'signal', name: 'reportMemberStatus' },
    reportRejectionSignal: { type: 'signal', name: 'reportRejection' },
    completionNudgeSignal: { type: 'signal', name: 'completionNudge' },
    subagentAnswerSignal: { type: 'signal', name: 'subagentAnswer' },
    edgeNotificationSignal: { type: 'signal', name: 'edgeNotification' },
    deliverMessageSignal: { type: 'signal', name: 'deliverMessage' },
    interruptTurnSignal: { type: 'signal', name: 'interruptTurn' },
    budgetChangedSignal: { type: 'signal', name: 'budgetChanged' },
    modelCallRequestSignal: { type: 'signal', name: 'modelCallRequest' },
    modelCallAnswerSignal: { type: 'signal', name: 'modelCallAnswer' },
    getAgentStateQuery: { type: 'query', name: 'getAgentState' },
    getAgentTeamViewQuery: { type: 'query', name: 'getAgentTeamView' },
    getTeamViewQuery: { type: 'query', name: 'getTeamView' },
    getTaskQuery: { type: 'query', name: 'getTask' },
    getLegacyMailboxQuery: { type: 'query', name: 'getLegacyMailbox' },
    getLiveStatusQuery: { type: 'query', name: 'getLiveStatus' },
    getTeamUsageQuery: { type: 'query', name: 'getTeamUsage' },
    getLeadRunInfoQuery: { type: 'query', name: 'getLeadRunInfo' },
    getTeammateStateQuery: { type: 'query', name: 'getTeammateState' },
  });
});

test('the workflow type names, the default task queue and the profiles are the published ones', () => {
  expect(contract.TEAM_LEAD_WORKFLOW_TYPE).toBe('teamLead');
  expect(contract.TEAMMATE_WORKFLOW_TYPE).toBe('teammate');
  expect(contract.SUBAGENT_WORKFLOW_TYPE).toBe('subagent');
  expect(contract.DEFAULT_TASK_QUEUE).toBe('agent-teams');
  expect(contract.PROFILE_NAMES).toEqual(['default', 'team']);
});
