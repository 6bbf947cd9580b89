/**
 * Model calls whose answer was lost: the provider had the request (and bills it), and the attempt
 * ended without an outcome, because its worker died or the attempt timed out. The workflow never
 * records such an answer, so usage cannot count it; this counts the attempts instead.
 *
 * How it knows: while the provider has the request, callModel's heartbeats carry AWAITING_ANSWER;
 * an attempt that fails (an error, or a cancel) records ATTEMPT_FAILED as its last heartbeat, which
 * the SDK flushes with the failure. Temporal hands a retry the last heartbeat details the server
 * holds, and its activity info has no "last failure", so a retry that finds AWAITING_ANSWER knows
 * that the attempt before it ended with no word at all: its answer, if any, was lost.
 */
import type { MetricMeter } from '@temporalio/common';
import { parseModelName } from '../shared/contract/modelNames';

export const LOST_ANSWERS_METRIC = 'agent_teams_model_answers_lost';

/** The heartbeat details of a model call's attempt, by what it knows of its own outcome. */
export const AWAITING_ANSWER = { modelCall: 'awaiting-answer' } as const;
export const ATTEMPT_FAILED = { modelCall: 'failed' } as const;

/** Whether a retry's inherited heartbeat details say the attempt before it was lost (not failed, not first). */
export function previousAttemptLost(attempt: number, heartbeatDetails: unknown): boolean {
  if (attempt <= 1 || typeof heartbeatDetails !== 'object' || heartbeatDetails === null) return false;
  return (
    Object.prototype.hasOwnProperty.call(heartbeatDetails, 'modelCall') && (heartbeatDetails as { modelCall: unknown }).modelCall === AWAITING_ANSWER.modelCall
  );
}

/** The role a workflow type's model calls are counted under, as in the usage counters. */
const ROLES: Readonly<Record<string, string>> = { teamLead: 'lead', teammate: 'teammate', subagent: 'subagent' };

export interface LostAnswerTags {
  role: string;
  provider: string;
  model: string;
}

/** The labels of a lost answer: role, provider and model, as the usage counters label a recorded one; never a Team id. */
export function lostAnswerTags(workflowType: string | undefined, model: string | null): LostAnswerTags {
  const name = model === null ? null : parseModelName(model);
  const role = workflowType !== undefined && Object.prototype.hasOwnProperty.call(ROLES, workflowType) ? ROLES[workflowType]! : 'other';
  return { role, provider: name?.provider ?? 'default', model: name?.model ?? model ?? 'default' };
}

/** Counts one lost answer on the activity's metric meter (Prometheus with AGENT_TEAMS_METRICS_BIND). */
export function countLostAnswer(meter: MetricMeter, tags: LostAnswerTags): void {
  meter
    .createCounter(LOST_ANSWERS_METRIC, 'attempts', 'Model call attempts that ended with no outcome (worker lost, timed out): billed, never recorded')
    .add(1, { ...tags });
}
