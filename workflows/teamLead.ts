/**
 * The Lead workflow. Its workflow id is the Team's root SessionId and it owns the Team's durable
 * state. This file only wires handlers and waits; the logic lives in TeamLeadRun and shared/team.
 */
import type { UpdateDefinition } from '@temporalio/common';
import { allHandlersFinished, condition, continueAsNew, currentUpdateInfo, setHandler, workflowInfo } from '@temporalio/workflow';
import * as defs from '../shared/definitions';
import type { TeamLeadInput, TeamLeadResult } from '../shared/definitions';
import type { TaskCommandKind, TaskMutationResult } from '../shared/team';
import { teamView } from '../shared/team';
import { TeamLeadRun } from './teamLeadRun';

export async function teamLead(input: TeamLeadInput): Promise<TeamLeadResult> {
  const lead = new TeamLeadRun(input.teamId, input.maxMembers, input.carried);
  let rollingOver = false;
  // Evaluated in validators too, so an Update arriving in the same activation as the decision to
  // roll over is refused with a retriable TeamRollingOver instead of racing continue-as-new.
  const closing = (): boolean => rollingOver || lead.disposeRequested || lead.mustRollOver(workflowInfo().continueAsNewSuggested);
  const now = (): string => new Date().toISOString();
  const updateId = (): string => currentUpdateInfo()?.id ?? '';

  const wireTaskCommand = (kind: TaskCommandKind, definition: UpdateDefinition<TaskMutationResult, [defs.Attributed]>): void => {
    setHandler(definition, (request): TaskMutationResult => lead.applyTaskCommand(kind, request, updateId(), now()), {
      validator: (request): void => lead.validateTaskCommand(kind, request, updateId(), closing(), now()),
    });
  };
  wireTaskCommand('createTask', defs.createTaskUpdate);
  wireTaskCommand('editTask', defs.editTaskUpdate);
  wireTaskCommand('claimTask', defs.claimTaskUpdate);
  wireTaskCommand('assignTask', defs.assignTaskUpdate);
  wireTaskCommand('releaseTask', defs.releaseTaskUpdate);
  wireTaskCommand('transitionTask', defs.transitionTaskUpdate);
  wireTaskCommand('deleteTask', defs.deleteTaskUpdate);

  setHandler(defs.readTaskUpdate, (request) => lead.readTask(request), {
    validator: (request): void => void lead.validateReadTask(request, closing()),
  });
  setHandler(defs.listTasksUpdate, () => lead.listTasks(), {
    validator: (request): void => lead.validateRead(request, closing()),
  });
  setHandler(
    defs.disposeTeamUpdate,
    () => {
      lead.disposeRequested = true;
      return teamView(lead.state);
    },
    { validator: (request): void => lead.validateDispose(request) },
  );

  setHandler(defs.getTeamViewQuery, () => teamView(lead.state));
  setHandler(defs.getTaskQuery, ({ taskId }) => lead.state.tasks[String(taskId)] ?? null);
  setHandler(defs.getLeadRunInfoQuery, () => ({
    runId: workflowInfo().runId,
    acceptedUpdatesThisRun: lead.acceptedUpdatesThisRun,
    historyLength: workflowInfo().historyLength,
    continuedRuns: lead.continuedRuns,
    rollingOver,
  }));

  await condition(() => lead.disposeRequested || lead.mustRollOver(workflowInfo().continueAsNewSuggested));
  rollingOver = !lead.disposeRequested;
  // Every accepted Update has been applied synchronously, but let handlers settle before leaving.
  await condition(allHandlersFinished);
  if (rollingOver) {
    return await continueAsNew<typeof teamLead>({ teamId: input.teamId, maxMembers: lead.state.maxMembers, carried: lead.carry() });
  }
  return { view: teamView(lead.state) };
}
