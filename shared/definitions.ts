/**
 * The wire contract of the Lead workflow: every Update and Query, named exactly like its wire
 * name. Imported by the workflow, the client, the CLI and the tests. The README documents each.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  AssignTaskBody,
  ClaimTaskBody,
  CreateTaskBody,
  DeleteTaskBody,
  EditTaskBody,
  ReleaseTaskBody,
  TaskMutationResult,
  TaskSnapshot,
  TaskView,
  TeamState,
  TeamView,
  TransitionTaskBody,
} from './team';

export const TEAM_LEAD_WORKFLOW_TYPE = 'teamLead';
export const DEFAULT_TASK_QUEUE = 'agent-teams';

/**
 * Attribution: `caller` names the acting member ("lead" or a teammate name). It is filled in by
 * the calling runtime (the CLI/SDK operator acts as "lead"; a teammate's runtime derives its name
 * from its own reserved workflow id), never taken from model-written tool input.
 */
export interface Attributed {
  caller: string;
}

export type CreateTaskRequest = Attributed & Partial<Pick<CreateTaskBody, 'description' | 'dependencies' | 'writeScopes'>> & Pick<CreateTaskBody, 'subject'>;
export type EditTaskRequest = Attributed & EditTaskBody;
export type ClaimTaskRequest = Attributed & ClaimTaskBody;
export type AssignTaskRequest = Attributed & AssignTaskBody;
export type ReleaseTaskRequest = Attributed & ReleaseTaskBody;
export type TransitionTaskRequest = Attributed & TransitionTaskBody;
export type DeleteTaskRequest = Attributed & DeleteTaskBody;
export type ReadTaskRequest = Attributed & { taskId: number };

export const createTaskUpdate = defineUpdate<TaskMutationResult, [CreateTaskRequest]>('createTask');
export const editTaskUpdate = defineUpdate<TaskMutationResult, [EditTaskRequest]>('editTask');
export const claimTaskUpdate = defineUpdate<TaskMutationResult, [ClaimTaskRequest]>('claimTask');
export const assignTaskUpdate = defineUpdate<TaskMutationResult, [AssignTaskRequest]>('assignTask');
export const releaseTaskUpdate = defineUpdate<TaskMutationResult, [ReleaseTaskRequest]>('releaseTask');
export const transitionTaskUpdate = defineUpdate<TaskMutationResult, [TransitionTaskRequest]>('transitionTask');
export const deleteTaskUpdate = defineUpdate<TaskMutationResult, [DeleteTaskRequest]>('deleteTask');
/** Attributed, serialized reads: see the board exactly as of this point in the Lead's history. */
export const readTaskUpdate = defineUpdate<TaskView, [ReadTaskRequest]>('readTask');
export const listTasksUpdate = defineUpdate<TaskView[], [Attributed]>('listTasks');
/** Lead-only. Closes admission and lets the Lead finish with its final view. */
export const disposeTeamUpdate = defineUpdate<TeamView, [Attributed]>('disposeTeam');

/** Unattributed inspection for people and UIs (no history is written). */
export const getTeamViewQuery = defineQuery<TeamView>('getTeamView');
export const getTaskQuery = defineQuery<TaskSnapshot | null, [{ taskId: number }]>('getTask');
/** Run-level facts: accepted Updates in this run, history length, continue-as-new count. */
export const getLeadRunInfoQuery = defineQuery<LeadRunInfo>('getLeadRunInfo');

export interface LeadRunInfo {
  runId: string;
  acceptedUpdatesThisRun: number;
  historyLength: number;
  continuedRuns: number;
  rollingOver: boolean;
}

export interface TeamLeadInput {
  teamId: string;
  maxMembers?: number;
  /** Present only on a continued run: everything the previous run owned. */
  carried?: CarriedLeadState;
}

export interface CarriedLeadState {
  state: TeamState;
  /** Recently applied Update ids and their results, so a retried Update is answered, never re-applied. */
  recentUpdates: RecentUpdate[];
  continuedRuns: number;
}

export interface RecentUpdate {
  updateId: string;
  result: unknown;
}

export interface TeamLeadResult {
  view: TeamView;
}
