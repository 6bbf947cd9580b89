/**
 * Waiting without polling: durable `waitForEdge` registrations that the Lead has admitted before
 * they return (`watchNextEdge`), and waiting for the Lead agent's final answer on top of them
 * (`waitForAnswer`). Every wait runs through the call engine (client/teamCalls.ts) and holds one
 * of the Team's Update slots (client/updateSlots.ts) until it settles.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import * as defs from '../shared/contract';
import { TEAM_CLOSED, TEAM_ROLLING_OVER } from '../shared/contract/failures';
import { checkDeadlineMs, deadlineFrom, diagnosisReserveMs, isDeadlineError } from './deadlines';
import { LEAD_ANSWER_TIMEOUT, LEAD_TURN_FAILED, NO_LEAD_AGENT } from './failures';
import { type TeamCalls, sleep } from './teamCalls';
import { acquireUpdateSlot } from './updateSlots';
import type { EdgeKind, TeamEdge } from '../shared/contract';

export interface WaitForAnswerOptions {
  /**
   * Give up (LeadAnswerTimeout) after this long. The call ends within this plus the client's
   * `waitMarginMs`; a Lead that stops answering ends it sooner, with TeamCallTimedOut from a read.
   */
  timeoutMs: number;
  /** Called after the first read and after every wake: the Lead agent as it is now, and the edge that woke the wait (null: first read, timeout, rollover). */
  onProgress?: (view: defs.LeadAgentView, edge: TeamEdge | null) => void;
  /**
   * Only an answer given after the Lead took this prompt counts (the message id of `promptLead`'s
   * acceptance): the conversation must hold that user message. Without it, any answer counts.
   */
  afterMessageId?: string;
  /** Longest single durable wait before the state is re-read anyway; default 30 s. */
  waitSliceMs?: number;
}

const DEFAULT_WAIT_SLICE_MS = 30_000;

/** A `waitForEdge` the Lead has admitted; `result` settles when it wakes, or fails shortly before `end`. */
interface AdmittedWait {
  result: Promise<defs.WaitResult>;
  updateId: string;
  /** The wait's deadline: its timeout plus the margin (ms, from when it was started). */
  deadlineMs: number;
  /** Epoch ms by which the wait ends, diagnosis of a Lead that did not answer it included. */
  end: number;
}

/**
 * Registers a durable `waitForEdge` of `kinds` and returns once the Lead has admitted it, so a
 * read made after this returns misses nothing: any change after it wakes the wait. `next()`
 * resolves with the edge that woke it, or null when it timed out, the Lead rolled over or the
 * response was lost; register again either way. TeamClosed once the Team has finished.
 */
export async function watchNextEdge(calls: TeamCalls, timeoutMs: number, kinds?: readonly EdgeKind[]): Promise<{ next(): Promise<TeamEdge | null> }> {
  const wait = await startWaitForEdge(calls, timeoutMs, kinds);
  return { next: () => settleWait(calls, wait) };
}

/**
 * Waits for the Lead agent's final answer without polling: it reads `getAgentState` (through
 * `readAgentState`); then each round registers a durable `waitForEdge` (the Lead has admitted it
 * when that returns) and reads again, so any change after that second read wakes the wait.
 * Resolves with the view once the status is `answered` with a final answer (after
 * `afterMessageId`, when given); rejects with LeadAnswerTimeout after `timeoutMs`, NoLeadAgent if
 * the Lead is not an agent, TeamClosed if the Team finished unanswered, TeamCallTimedOut if the
 * Lead stops answering the reads or waits (each has its own deadline; the whole call ends within
 * `timeoutMs` + `waitMarginMs`).
 */
export async function waitForAnswer(
  calls: TeamCalls,
  readAgentState: () => Promise<defs.LeadAgentView>,
  options: WaitForAnswerOptions,
): Promise<defs.LeadAgentView> {
  checkDeadlineMs(options.timeoutMs, 'waitForAnswer timeoutMs');
  return calls.call('waitForAnswer', options.timeoutMs + calls.team.deadlines.waitMarginMs, () => waitForAnswerWithin(calls, readAgentState, options));
}

async function waitForAnswerWithin(
  calls: TeamCalls,
  readAgentState: () => Promise<defs.LeadAgentView>,
  options: WaitForAnswerOptions,
): Promise<defs.LeadAgentView> {
  const teamId = calls.team.teamId;
  const answerOrNull = (edge: TeamEdge | null, report = true) => readAnswer(teamId, readAgentState, options, edge, report);
  const deadline = Date.now() + options.timeoutMs;
  const slice = options.waitSliceMs ?? DEFAULT_WAIT_SLICE_MS;
  let edge: TeamEdge | null = null;
  let view = await answerOrNull(edge);
  for (;;) {
    if (view.done) return view.view;
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    // Read first, then register, then read again: the answer itself is a status edge, so a wait
    // registered before it always wakes on it and no wait is left open on the Lead (it would hold
    // one of its in-flight Update slots). Only an answer landing between the two reads leaves one
    // open, until its slice ends.
    let wait: AdmittedWait;
    try {
      wait = await startWaitForEdge(calls, Math.max(1, Math.min(slice, remaining)));
    } catch (error) {
      if (!(error instanceof ApplicationFailure && error.type === TEAM_CLOSED)) throw error;
      // A finished Lead still answers the query: it may have answered before it closed.
      view = await answerOrNull(edge);
      if (view.done) return view.view;
      throw error;
    }
    view = await answerOrNull(edge, false);
    if (view.done) return view.view;
    edge = await settleWait(calls, wait);
    view = await answerOrNull(edge);
  }
  throw ApplicationFailure.create({
    type: LEAD_ANSWER_TIMEOUT,
    message:
      `Team ${teamId}'s Lead agent has not answered within ${Math.round(options.timeoutMs / 1000)}s ` +
      `(status ${view.view.status}, turn ${view.view.turns}); ` +
      `it keeps working: wait again, or read its conversation`,
    details: [view.view],
    nonRetryable: true,
  });
}

/** One read for waitForAnswer: reports progress, and throws when the Lead cannot answer. */
async function readAnswer(
  teamId: string,
  readAgentState: () => Promise<defs.LeadAgentView>,
  options: WaitForAnswerOptions,
  edge: TeamEdge | null,
  report: boolean,
): Promise<{ done: boolean; view: defs.LeadAgentView }> {
  const view = await readAgentState();
  if (!view.enabled) {
    throw ApplicationFailure.create({
      type: NO_LEAD_AGENT,
      message:
        `Team ${teamId}'s Lead is not an agent (started without a prompt), so it gives no answer; ` +
        `drive it with spawn/send/task, or start a Team with a prompt`,
      nonRetryable: true,
    });
  }
  if (report || isAnswered(view, options.afterMessageId)) options.onProgress?.(view, edge);
  if (view.status === 'failed' && (options.afterMessageId === undefined || view.conversation.some((e) => e.messageId === options.afterMessageId))) {
    throw ApplicationFailure.create({
      type: LEAD_TURN_FAILED,
      message: `Team ${teamId}'s Lead turn failed: ${view.lastError ?? 'unknown error'}`,
      details: [view],
      nonRetryable: true,
    });
  }
  return { done: isAnswered(view, options.afterMessageId), view };
}

/** Answered, and (when a prompt is named) answered after the Lead took that prompt into its conversation. */
function isAnswered(view: defs.LeadAgentView, afterMessageId?: string): boolean {
  if (view.status !== 'answered' || view.finalAnswer === null) return false;
  if (afterMessageId === undefined) return true;
  return view.conversation.some((entry) => entry.role === 'user' && entry.messageId === afterMessageId);
}

/**
 * Starts a `waitForEdge` and returns once the Lead has admitted it (its waiter is registered) or
 * rejected it (seen in `result`), retrying lost responses like `update` with the same update id.
 * The in-flight slot is held until the wait settles; its result is awaited until `timeoutMs`
 * plus the margin (capped by the enclosing deadline).
 */
async function startWaitForEdge(calls: TeamCalls, timeoutMs: number, kinds?: readonly EdgeKind[]): Promise<AdmittedWait> {
  const { client, teamId, caller, deadlines } = calls.team;
  const updateId = randomUUID();
  const started = Date.now();
  const end = deadlineFrom(timeoutMs + deadlines.waitMarginMs, started);
  const resultNotAfter = end - diagnosisReserveMs(end - started);
  return calls.call(
    defs.waitForEdgeUpdate.name,
    deadlines.updateMs,
    async (notAfter) => {
      const release = await acquireUpdateSlot(teamId, notAfter);
      try {
        const handle = await calls.retrying(notAfter, { operation: defs.waitForEdgeUpdate.name, kind: 'update', updateId }, () =>
          calls.handle().startUpdate(defs.waitForEdgeUpdate, {
            args: [{ timeoutMs, caller, ...(kinds ? { kinds: [...kinds] } : {}) }],
            updateId,
            waitForStage: 'ACCEPTED',
          }),
        );
        const result = client.connection.withDeadline(resultNotAfter, () => handle.result());
        result.then(release, release); // also marks a result nobody awaits (the answer was already there) as handled
        return { result, updateId, deadlineMs: end - started, end };
      } catch (error) {
        release();
        throw error;
      }
    },
    updateId,
  );
}

/**
 * The edge that woke the wait, or null: timeout, rollover, the response was lost while the Team
 * still runs, or the Lead rejected the wait because it is rolling over (startUpdate reports a
 * validator rejection only through the result; the caller then registers a new wait). A wait
 * the Lead does not answer by its deadline ends with TeamCallTimedOut.
 */
async function settleWait(calls: TeamCalls, wait: AdmittedWait): Promise<TeamEdge | null> {
  try {
    const result = await wait.result;
    return result.woke === 'edge' ? result.edge : null;
  } catch (error) {
    const failure = error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure ? error.cause : null;
    if (failure && failure.type !== TEAM_ROLLING_OVER) throw failure;
    if (!failure && isDeadlineError(error)) {
      throw await calls.timedOut(defs.waitForEdgeUpdate.name, wait.deadlineMs, wait.end, undefined, wait.updateId);
    }
    // A Team that finished meanwhile is found by the next registration, after one more read of the answer.
    await sleep(250);
    return null;
  }
}
