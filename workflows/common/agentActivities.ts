/**
 * Activity proxies of the agent runtime, with the Temporal options that give model and tool calls
 * their retry, timeout and cancellation behaviour. Shared by the Lead and member workflows.
 */
import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { ModelActivities, TeamActivities, WorkToolActivities } from '../../shared/contract';
import type { DispatchResult } from '../../shared/agent/loop';
import type { ToolCall } from '../../shared/contract/model';
import { toolCallSummary } from '../../shared/text/webUi';

/**
 * Model calls: the only retry layer (a provider makes one HTTP request per attempt). Rate limits,
 * 5xx, network failures and timeouts are retried with backoff (a provider's retry-after, capped at
 * 5 minutes by the activity, overrides it); bad requests, auth failures, unusable responses and a
 * longer retry-after are not retryable. 8 attempts ride out about 3 minutes of outage (2+4+8+16+32+60+60 s
 * of backoff); schedule-to-close bounds the whole call, retries included, at 30 minutes. Heartbeats
 * let a lost worker be noticed in 30 s and let an interrupt cancel the call.
 */
export const models = proxyActivities<ModelActivities>({
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 8 },
});

/** A teammate's Team tool call: one attributed Update on the Lead, its update id fixed per call, so retries apply once. */
export const memberTeamTools = proxyActivities<TeamActivities>({
  startToCloseTimeout: '70 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
});

/**
 * A member's signals to its Lead (status reports; under a Team budget, the ask before each model
 * call), as activities: the worker signals the Lead through its client. As signal commands they
 * were transfer tasks of the member's that held the member's lock while they took the Lead's, just
 * as the Lead's sends held the Lead's while they took the member's; the two waited on each other
 * until the server's 500 ms lock timeout let one go (docs/benchmarks.md). An activity holds no
 * workflow's lock while it signals. Not a local activity: a history recorded with local-activity
 * reports failed its own replay on this SDK (1.24.0), the turn's patch right after the report
 * replaying in another workflow task than it ran in. A report is retried for 10 minutes, then
 * dropped (it is advisory). An ask is retried until it is sent, as the server retries a signal
 * command: the member waits for its answer anyway, and an ask given up after an outage would fail
 * the member's turn, or before a turn its run. A Lead that has closed fails it at once (TeamClosed).
 */
export const leadSignals = proxyActivities<TeamActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/** The ask before each model call under a Team budget: `leadSignals` says why, and why it has no overall deadline. */
export const leadAsks = proxyActivities<TeamActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/** The work tool proxy, with `executeWithOptions` for each call's summary. */
export type CheckoutActivities = ActivityInterfaceFor<WorkToolActivities>;

/**
 * Work tools run on the worker that holds the checkout. One attempt only: bash is not idempotent,
 * so a lost worker comes back to the model as an error result instead of a silent second run.
 */
export function workTools(checkoutTaskQueue: string): CheckoutActivities {
  return proxyActivities<WorkToolActivities>({
    taskQueue: checkoutTaskQueue,
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 1 },
  });
}

/** An activity that failed for good becomes a tool result the model can act on; cancellation propagates. */
export async function asToolResult(run: () => Promise<DispatchResult>, call: ToolCall): Promise<DispatchResult> {
  try {
    return await run();
  } catch (error) {
    if (isCancellation(error) || !(error instanceof ActivityFailure)) throw error;
    const cause = error.cause;
    const type = cause instanceof ApplicationFailure && cause.type ? cause.type : 'ToolUnavailable';
    const message = cause?.message ?? error.message;
    return {
      ok: false,
      text: JSON.stringify({ error: type, message: `${call.name} could not run (${message}); check the current state before trying again` }),
    };
  }
}

/** A work tool on the checkout's queue, run in the session's directory; a `cd` in bash moves only this session. */
export function runWorkToolCall(checkout: CheckoutActivities, call: ToolCall, session: { cwd: string }, name: string): Promise<DispatchResult> {
  return asToolResult(async () => {
    const input = { tool: call.name, argumentsJson: call.argumentsJson, cwd: session.cwd };
    const result = await checkout.runWorkTool.executeWithOptions({ summary: toolCallSummary(name, call) }, [input]);
    session.cwd = result.cwd;
    return { ok: result.ok, text: result.text };
  }, call);
}
