/**
 * The patch ledger: every patch id the workflows check with `patched()` or `deprecatePatch()`, once.
 * A run that takes a patch's new branch records the id in its history (a `core_patch` marker), and
 * every replay of that history looks for it there, so a patch id is as durable as a wire name:
 * never rename or reuse one; a later change gets a new id (`-v2`, or a new name). Workflow code
 * passes these constants, never a string literal (test/host/patchLedger.test.ts checks both).
 *
 * Each entry says what the patch guards, the commit that introduced it, which workflow types check
 * it, and `oldBranch`: the recorded histories (test/histories/, by file name) whose replay reaches
 * the check without the marker, so takes the old branch. An old branch may go only when its list is
 * empty and no run that could still be replayed took it (docs/development.md#patches). For a check
 * made in `'every run'` of its workflow types (at the run's start), the list is exactly those
 * histories of these types recorded without the marker; for one made in `'some runs'` only (on a
 * condition: a disposal, a cancel, a value that changed), it was measured once by replaying every
 * history through a bundle whose `patched()` reported its result, and each listed history lacks
 * the marker. test/host/patchLedger.test.ts checks both against the histories.
 *
 * In the contract because the ids are durable names shared by the workflows (which check them),
 * the worker (which looks for the tracing patch in a bundle) and the tests (which look for markers
 * in histories); exported through the contract's index, so the preload evaluates it once per worker.
 */
import { REAPER_WORKFLOW_TYPE, SUBAGENT_WORKFLOW_TYPE, TEAMMATE_WORKFLOW_TYPE, TEAM_LEAD_WORKFLOW_TYPE } from './workflows';

/**
 * Every turn runs the agent loop. Histories recorded while the pre-agent-loop turn still existed
 * carry this patch marker, so it is deprecated rather than removed; drop the call once no kept
 * history was recorded before it was deprecated (the entry's `undeprecatedMarkers`).
 */
export const AGENT_LOOP_PATCH = 'agent-loop-v1';
/** Async Update handlers fail only with typed ApplicationFailures (workflows/common/handlerGuards.ts). */
export const TYPED_UPDATE_FAILURES_PATCH = 'typed-update-failures-v1';
/**
 * The disposal order of workflows/lead/disposal.ts. Runs recorded before it replay the old order,
 * kept there as it was, promise steps included: cancel the Lead's turn, stop its subagents, then
 * close admission, await admitted operations and stop the roster's children.
 */
export const DISPOSE_CLOSES_ADMISSION_FIRST_PATCH = 'dispose-closes-admission-first-v1';
/**
 * Steer: a running turn takes pending messages at each step boundary (workflows/common/agentTurn.ts).
 * Histories recorded before it took them only when the next turn began, so they replay without the
 * take (no marker in them).
 */
export const STEER_RUNNING_TURNS_PATCH = 'steer-running-turns-v1';
/** The OpenTelemetry workflow interceptors run in a run that began on a worker that traces (workflows/interceptors.ts). */
export const TRACING_PATCH = 'opentelemetry-tracing-v1';
/** `AgentTeamPhase` / `AgentTeamStatus` kept current (workflows/common/searchAttributes.ts); runs recorded before replay without the upsert. */
export const PHASE_STATUS_SEARCH_ATTRIBUTES_PATCH = 'phase-status-search-attributes-v1';
/**
 * Cancellation as disposal. Runs recorded before it replay as they were: their body and handlers in
 * the root scope, which a cancel request rejects (workflows/lead/cancellation.ts).
 */
export const CANCEL_IS_DISPOSAL_PATCH = 'cancel-is-disposal-v1';
/** Runs recorded before it replay without the completion size limit: spreading items over tasks moves commands and Update completions. */
export const COMPLETION_SIZE_PATCH = 'completion-budget-v1';
/** A cancel request that arrives while a run winds down for continue-as-new disposes at once (workflows/lead/teamLead.ts). */
export const CANCEL_IN_WIND_DOWN_PATCH = 'cancel-in-wind-down-v1';
/** A Lead run that starts with a finished turn's reply not yet acted on acts on it (workflows/lead/agent.ts, LeadAgentRunner.run). */
export const REPLY_ACROSS_ROLLOVER_PATCH = 'reply-across-rollover-v1';
/** Runs recorded before it (under COMPLETION_SIZE_PATCH) replay with their promise steps: see resultsInArrivalOrder. */
export const ARRIVAL_ORDER_PATCH = 'completion-arrival-order-v1';
/** The rollover suggestion as a replay sees it (workflows/common/rolloverSuggestion.ts); runs recorded before read `workflowInfo()`. */
export const TRACED_SUGGESTION_PATCH = 'rollover-suggestion-traced-v1';
/**
 * Status reports go to the Lead through an activity (`leadSignals`, which says why). Runs recorded
 * before it signal the Lead from the workflow, and replay so (workflows/session/teammate.ts).
 */
export const STATUS_REPORT_ACTIVITY_PATCH = 'status-report-activity-v1';
/**
 * Under a Team budget, the ask before each model call goes to the Lead through an activity
 * (`leadAsks`; `leadSignals` says why). Runs recorded before it signal the Lead from the workflow, and
 * replay so.
 */
export const MODEL_CALL_REQUEST_ACTIVITY_PATCH = 'model-call-request-activity-v1';
/**
 * A subagent whose reserved id is taken is stopped and the request started as the next subagent
 * (workflows/lead/subagents.ts). Runs recorded before it failed the tool call and replay so.
 */
export const SUBAGENT_ID_TAKEN_PATCH = 'subagent-id-taken-v1';
/**
 * A new Lead whose Team id is outside the grammar (shared/contract/workflowInputs.ts) fails at once
 * with InvalidTeamId (workflows/common/workflowInputs.ts). Runs recorded before the grammar (and
 * continued runs of their Teams) were parsed without it and replay so.
 */
export const TEAM_ID_GRAMMAR_PATCH = 'team-id-grammar-v1';
/**
 * The Lead upserts the attributes it is found by (`AgentTeamId`, `AgentTeamRole`, `AgentTeamMember`)
 * when missing or wrong (workflows/common/searchAttributes.ts). Runs recorded before it replay
 * without the upsert (consulted only when an attribute differs).
 */
export const IDENTITY_SEARCH_ATTRIBUTES_PATCH = 'identity-search-attributes-v1';

type PatchedWorkflowType = typeof TEAM_LEAD_WORKFLOW_TYPE | typeof TEAMMATE_WORKFLOW_TYPE | typeof SUBAGENT_WORKFLOW_TYPE | typeof REAPER_WORKFLOW_TYPE;

export interface PatchEntry {
  /** The patch id, as every history that took the new branch records it. */
  readonly id: string;
  /** What the new branch does, and where. */
  readonly guards: string;
  /** The commit (and issue) that introduced it. */
  readonly introducedIn: string;
  /** The workflow types whose code checks it. */
  readonly workflows: readonly PatchedWorkflowType[];
  /**
   * `'every run'`: each run of these workflows checks it (each that took `onlyAfter`'s new branch,
   * if set); `'some runs'`: only on a condition, so a history without the marker may never reach it.
   */
  readonly checked: 'every run' | 'some runs';
  /** The check is made only in runs that took this patch's new branch. */
  readonly onlyAfter?: string;
  /** Checked with `deprecatePatch()`: the old branch is gone, only the call is left. */
  readonly deprecated?: true;
  /** For a deprecated patch: the histories whose marker `patched()` wrote, which need the `deprecatePatch()` call. */
  readonly undeprecatedMarkers?: readonly string[];
  /** The recorded histories (file names in test/histories/) whose replay takes the old branch. */
  readonly oldBranch: readonly string[];
}

/** Every patch, in the order they were introduced. */
export const PATCH_LEDGER: readonly PatchEntry[] = [
  {
    id: AGENT_LOOP_PATCH,
    guards: 'Every session turn runs the agent loop (workflows/session/session.ts); the pre-agent-loop turn is gone, so the patch is deprecated.',
    introducedIn: 'ebee9ae (agent loop); deprecated by 474298c (legacy replay path deleted)',
    workflows: [TEAMMATE_WORKFLOW_TYPE, SUBAGENT_WORKFLOW_TYPE],
    checked: 'some runs',
    deprecated: true,
    undeprecatedMarkers: [
      'subagent-v3.json',
      'teammate-agent-parser-dev-v3.json',
      'teammate-agent-test-writer-v3.json',
      'teammate-parser-dev-v3.json',
      'teammate-test-writer-v3.json',
      'teammate-waiter-v4.json',
    ],
    oldBranch: [],
  },
  {
    id: TYPED_UPDATE_FAILURES_PATCH,
    guards: 'An async Update handler fails only with a typed ApplicationFailure (workflows/common/handlerGuards.ts, teamLead.ts).',
    introducedIn: 'd21e88b (nothing from outside breaks a workflow)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE],
    checked: 'every run',
    oldBranch: ['teamLead-agent-v3.json', 'teamLead-demo-v3.json', 'teamLead-solo-v3.json', 'teamLead-wait-v4.json'],
  },
  {
    id: DISPOSE_CLOSES_ADMISSION_FIRST_PATCH,
    guards: "Disposal closes admission first, in the seed's order (workflows/lead/disposal.ts).",
    introducedIn: 'a27de58 (issue 11)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE],
    checked: 'some runs',
    oldBranch: [
      'teamLead-agent-v3.json',
      'teamLead-agent-v5.json',
      'teamLead-demo-v3.json',
      'teamLead-demo-v5.json',
      'teamLead-rollover-v5.json',
      'teamLead-solo-v3.json',
      'teamLead-solo-v5.json',
      'teamLead-wait-v4.json',
      'teamLead-wait-v5.json',
    ],
  },
  {
    id: STEER_RUNNING_TURNS_PATCH,
    guards: 'A running turn takes pending messages at each step boundary (workflows/common/agentTurn.ts).',
    introducedIn: 'b6ae851 (issue 11)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE, TEAMMATE_WORKFLOW_TYPE, SUBAGENT_WORKFLOW_TYPE],
    checked: 'some runs',
    oldBranch: [],
  },
  {
    id: TRACING_PATCH,
    guards: 'A run begun by a worker that traces runs the OpenTelemetry workflow interceptors (workflows/interceptors.ts); before it, no run was traced.',
    introducedIn: '4e522ed (worker observability)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE, TEAMMATE_WORKFLOW_TYPE, SUBAGENT_WORKFLOW_TYPE, REAPER_WORKFLOW_TYPE],
    checked: 'every run',
    oldBranch: [
      'orphanReaper-v15.json',
      'subagent-v3.json',
      'subagent-v5.json',
      'subagent-v6.json',
      'subagent-v7.json',
      'subagent-v8.json',
      'subagent-v15.json',
      'teamLead-agent-v3.json',
      'teamLead-agent-v5.json',
      'teamLead-agent-v6.json',
      'teamLead-agent-v7.json',
      'teamLead-agent-v8.json',
      'teamLead-agent-v15.json',
      'teamLead-budget-v15.json',
      'teamLead-cancel-v15.json',
      'teamLead-completion-budget-v15.json.gz',
      'teamLead-demo-v3.json',
      'teamLead-demo-v5.json',
      'teamLead-demo-v6.json',
      'teamLead-demo-v7.json',
      'teamLead-demo-v8.json',
      'teamLead-demo-v15.json',
      'teamLead-reply-rollover-v15.json',
      'teamLead-rollover-v5.json',
      'teamLead-rollover-v6.json',
      'teamLead-rollover-v7.json',
      'teamLead-rollover-v8.json',
      'teamLead-rollover-v15.json',
      'teamLead-solo-v3.json',
      'teamLead-solo-v5.json',
      'teamLead-solo-v6.json',
      'teamLead-solo-v7.json',
      'teamLead-solo-v8.json',
      'teamLead-solo-v15.json',
      'teamLead-subagent-again-v17.json',
      'teamLead-suggested-rollover-v15.json',
      'teamLead-team-budget-v15.json',
      'teamLead-team-budget-v16.json',
      'teamLead-wait-v4.json',
      'teamLead-wait-v5.json',
      'teamLead-wait-v6.json',
      'teamLead-wait-v7.json',
      'teamLead-wait-v8.json',
      'teamLead-wait-v15.json',
      'teamLead-wait-v17.json',
      'teammate-agent-parser-dev-v3.json',
      'teammate-agent-parser-dev-v5.json',
      'teammate-agent-parser-dev-v6.json',
      'teammate-agent-parser-dev-v7.json',
      'teammate-agent-parser-dev-v8.json',
      'teammate-agent-parser-dev-v15.json',
      'teammate-agent-test-writer-v3.json',
      'teammate-agent-test-writer-v5.json',
      'teammate-agent-test-writer-v6.json',
      'teammate-agent-test-writer-v7.json',
      'teammate-agent-test-writer-v8.json',
      'teammate-agent-test-writer-v15.json',
      'teammate-budget-v15.json',
      'teammate-busy-cancelled-v15.json',
      'teammate-orphan-reaped-v15.json',
      'teammate-parser-dev-v3.json',
      'teammate-parser-dev-v5.json',
      'teammate-parser-dev-v6.json',
      'teammate-parser-dev-v7.json',
      'teammate-parser-dev-v8.json',
      'teammate-parser-dev-v15.json',
      'teammate-quiet-cancelled-v15.json',
      'teammate-team-budget-v15.json',
      'teammate-team-budget-v16.json',
      'teammate-test-writer-v3.json',
      'teammate-test-writer-v5.json',
      'teammate-test-writer-v6.json',
      'teammate-test-writer-v7.json',
      'teammate-test-writer-v8.json',
      'teammate-test-writer-v15.json',
      'teammate-waiter-v4.json',
      'teammate-waiter-v5.json',
      'teammate-waiter-v6.json',
      'teammate-waiter-v7.json',
      'teammate-waiter-v8.json',
      'teammate-waiter-v15.json',
      'teammate-waiter-v17.json',
    ],
  },
  {
    id: PHASE_STATUS_SEARCH_ATTRIBUTES_PATCH,
    guards: 'Each workflow keeps its AgentTeamPhase and AgentTeamStatus search attributes current (workflows/common/searchAttributes.ts).',
    introducedIn: 'a53284a (issue 12)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE, TEAMMATE_WORKFLOW_TYPE, SUBAGENT_WORKFLOW_TYPE],
    checked: 'some runs',
    oldBranch: [
      'subagent-v3.json',
      'subagent-v5.json',
      'subagent-v6.json',
      'subagent-v7.json',
      'subagent-v8-otel.json',
      'teamLead-agent-v3.json',
      'teamLead-agent-v5.json',
      'teamLead-agent-v6.json',
      'teamLead-agent-v7.json',
      'teamLead-agent-v8-otel.json',
      'teamLead-demo-v3.json',
      'teamLead-demo-v5.json',
      'teamLead-demo-v6.json',
      'teamLead-demo-v7.json',
      'teamLead-demo-v8-otel.json',
      'teamLead-rollover-v5.json',
      'teamLead-rollover-v6.json',
      'teamLead-rollover-v7.json',
      'teamLead-rollover-v8-otel.json',
      'teamLead-solo-v3.json',
      'teamLead-solo-v5.json',
      'teamLead-solo-v6.json',
      'teamLead-solo-v7.json',
      'teamLead-solo-v8-otel.json',
      'teamLead-wait-v4.json',
      'teamLead-wait-v5.json',
      'teamLead-wait-v6.json',
      'teamLead-wait-v7.json',
      'teamLead-wait-v8-otel.json',
      'teammate-agent-parser-dev-v3.json',
      'teammate-agent-parser-dev-v5.json',
      'teammate-agent-parser-dev-v6.json',
      'teammate-agent-parser-dev-v7.json',
      'teammate-agent-parser-dev-v8-otel.json',
      'teammate-agent-test-writer-v3.json',
      'teammate-agent-test-writer-v5.json',
      'teammate-agent-test-writer-v6.json',
      'teammate-agent-test-writer-v7.json',
      'teammate-agent-test-writer-v8-otel.json',
      'teammate-parser-dev-v3.json',
      'teammate-parser-dev-v5.json',
      'teammate-parser-dev-v6.json',
      'teammate-parser-dev-v7.json',
      'teammate-parser-dev-v8-otel.json',
      'teammate-test-writer-v3.json',
      'teammate-test-writer-v5.json',
      'teammate-test-writer-v6.json',
      'teammate-test-writer-v7.json',
      'teammate-test-writer-v8-otel.json',
      'teammate-waiter-v4.json',
      'teammate-waiter-v5.json',
      'teammate-waiter-v6.json',
      'teammate-waiter-v7.json',
      'teammate-waiter-v8-otel.json',
    ],
  },
  {
    id: CANCEL_IS_DISPOSAL_PATCH,
    guards: 'A cancel request on the Lead disposes of the Team: body and handlers outside the root scope (workflows/lead/teamLead.ts, cancellation.ts).',
    introducedIn: 'faa6a02 (issue 22)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE],
    checked: 'every run',
    oldBranch: [
      'teamLead-agent-v3.json',
      'teamLead-agent-v5.json',
      'teamLead-agent-v6.json',
      'teamLead-agent-v7.json',
      'teamLead-agent-v8-otel.json',
      'teamLead-agent-v8.json',
      'teamLead-demo-v3.json',
      'teamLead-demo-v5.json',
      'teamLead-demo-v6.json',
      'teamLead-demo-v7.json',
      'teamLead-demo-v8-otel.json',
      'teamLead-demo-v8.json',
      'teamLead-rollover-v5.json',
      'teamLead-rollover-v6.json',
      'teamLead-rollover-v7.json',
      'teamLead-rollover-v8-otel.json',
      'teamLead-rollover-v8.json',
      'teamLead-solo-v3.json',
      'teamLead-solo-v5.json',
      'teamLead-solo-v6.json',
      'teamLead-solo-v7.json',
      'teamLead-solo-v8-otel.json',
      'teamLead-solo-v8.json',
      'teamLead-wait-v4.json',
      'teamLead-wait-v5.json',
      'teamLead-wait-v6.json',
      'teamLead-wait-v7.json',
      'teamLead-wait-v8-otel.json',
      'teamLead-wait-v8.json',
    ],
  },
  {
    id: COMPLETION_SIZE_PATCH,
    guards: "Every Lead workflow task's completion within its size limit (workflows/common/completionSize.ts).",
    introducedIn: '8bc0263 (issue 23)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE],
    checked: 'every run',
    oldBranch: [
      'teamLead-agent-v3.json',
      'teamLead-agent-v5.json',
      'teamLead-agent-v6.json',
      'teamLead-agent-v7.json',
      'teamLead-agent-v8-otel.json',
      'teamLead-agent-v8.json',
      'teamLead-agent-v9.json',
      'teamLead-cancel-v9.json',
      'teamLead-demo-v3.json',
      'teamLead-demo-v5.json',
      'teamLead-demo-v6.json',
      'teamLead-demo-v7.json',
      'teamLead-demo-v8-otel.json',
      'teamLead-demo-v8.json',
      'teamLead-demo-v9.json',
      'teamLead-rollover-v5.json',
      'teamLead-rollover-v6.json',
      'teamLead-rollover-v7.json',
      'teamLead-rollover-v8-otel.json',
      'teamLead-rollover-v8.json',
      'teamLead-rollover-v9.json',
      'teamLead-solo-v3.json',
      'teamLead-solo-v5.json',
      'teamLead-solo-v6.json',
      'teamLead-solo-v7.json',
      'teamLead-solo-v8-otel.json',
      'teamLead-solo-v8.json',
      'teamLead-solo-v9.json',
      'teamLead-wait-v4.json',
      'teamLead-wait-v5.json',
      'teamLead-wait-v6.json',
      'teamLead-wait-v7.json',
      'teamLead-wait-v8-otel.json',
      'teamLead-wait-v8.json',
      'teamLead-wait-v9.json',
    ],
  },
  {
    id: CANCEL_IN_WIND_DOWN_PATCH,
    guards: 'A cancel request that arrives while a run winds down for continue-as-new disposes at once (workflows/lead/teamLead.ts).',
    introducedIn: 'c7b7bd1 (issue 22)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE],
    checked: 'some runs',
    oldBranch: [],
  },
  {
    id: REPLY_ACROSS_ROLLOVER_PATCH,
    guards: "A Lead run that starts with a finished turn's reply not yet acted on acts on it (workflows/lead/agent.ts).",
    introducedIn: 'e4ae75b (issue 23)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE],
    checked: 'some runs',
    oldBranch: [],
  },
  {
    id: ARRIVAL_ORDER_PATCH,
    guards: 'Under the completion size limit, Update results leave in arrival order (workflows/common/completionSize.ts).',
    introducedIn: '074b5c0 (issue 23)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE],
    checked: 'every run',
    onlyAfter: COMPLETION_SIZE_PATCH,
    oldBranch: [
      'teamLead-agent-v10.json',
      'teamLead-cancel-v10.json',
      'teamLead-completion-budget-v10.json.gz',
      'teamLead-demo-v10.json',
      'teamLead-reply-rollover-v10.json',
      'teamLead-rollover-v10.json',
      'teamLead-solo-v10.json',
      'teamLead-wait-v10.json',
    ],
  },
  {
    id: TRACED_SUGGESTION_PATCH,
    guards: 'The Lead and sessions read the rollover suggestion as a replay sees it (workflows/common/rolloverSuggestion.ts).',
    introducedIn: '4942fae (issue 23)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE, TEAMMATE_WORKFLOW_TYPE, SUBAGENT_WORKFLOW_TYPE],
    checked: 'every run',
    oldBranch: [
      'subagent-v3.json',
      'subagent-v5.json',
      'subagent-v6.json',
      'subagent-v7.json',
      'subagent-v8-otel.json',
      'subagent-v8.json',
      'subagent-v9.json',
      'subagent-v10.json',
      'subagent-v11.json',
      'teamLead-agent-v3.json',
      'teamLead-agent-v5.json',
      'teamLead-agent-v6.json',
      'teamLead-agent-v7.json',
      'teamLead-agent-v8-otel.json',
      'teamLead-agent-v8.json',
      'teamLead-agent-v9.json',
      'teamLead-agent-v10.json',
      'teamLead-agent-v11.json',
      'teamLead-cancel-v9.json',
      'teamLead-cancel-v10.json',
      'teamLead-cancel-v11.json',
      'teamLead-completion-budget-v10.json.gz',
      'teamLead-completion-budget-v11.json.gz',
      'teamLead-demo-v3.json',
      'teamLead-demo-v5.json',
      'teamLead-demo-v6.json',
      'teamLead-demo-v7.json',
      'teamLead-demo-v8-otel.json',
      'teamLead-demo-v8.json',
      'teamLead-demo-v9.json',
      'teamLead-demo-v10.json',
      'teamLead-demo-v11.json',
      'teamLead-reply-rollover-v10.json',
      'teamLead-reply-rollover-v11.json',
      'teamLead-rollover-v5.json',
      'teamLead-rollover-v6.json',
      'teamLead-rollover-v7.json',
      'teamLead-rollover-v8-otel.json',
      'teamLead-rollover-v8.json',
      'teamLead-rollover-v9.json',
      'teamLead-rollover-v10.json',
      'teamLead-rollover-v11.json',
      'teamLead-solo-v3.json',
      'teamLead-solo-v5.json',
      'teamLead-solo-v6.json',
      'teamLead-solo-v7.json',
      'teamLead-solo-v8-otel.json',
      'teamLead-solo-v8.json',
      'teamLead-solo-v9.json',
      'teamLead-solo-v10.json',
      'teamLead-solo-v11.json',
      'teamLead-wait-v4.json',
      'teamLead-wait-v5.json',
      'teamLead-wait-v6.json',
      'teamLead-wait-v7.json',
      'teamLead-wait-v8-otel.json',
      'teamLead-wait-v8.json',
      'teamLead-wait-v9.json',
      'teamLead-wait-v10.json',
      'teamLead-wait-v11.json',
      'teammate-agent-parser-dev-v3.json',
      'teammate-agent-parser-dev-v5.json',
      'teammate-agent-parser-dev-v6.json',
      'teammate-agent-parser-dev-v7.json',
      'teammate-agent-parser-dev-v8-otel.json',
      'teammate-agent-parser-dev-v8.json',
      'teammate-agent-parser-dev-v9.json',
      'teammate-agent-parser-dev-v10.json',
      'teammate-agent-parser-dev-v11.json',
      'teammate-agent-test-writer-v3.json',
      'teammate-agent-test-writer-v5.json',
      'teammate-agent-test-writer-v6.json',
      'teammate-agent-test-writer-v7.json',
      'teammate-agent-test-writer-v8-otel.json',
      'teammate-agent-test-writer-v8.json',
      'teammate-agent-test-writer-v9.json',
      'teammate-agent-test-writer-v10.json',
      'teammate-agent-test-writer-v11.json',
      'teammate-busy-cancelled-v9.json',
      'teammate-busy-cancelled-v10.json',
      'teammate-busy-cancelled-v11.json',
      'teammate-orphan-reaped-v9.json',
      'teammate-orphan-reaped-v10.json',
      'teammate-orphan-reaped-v11.json',
      'teammate-parser-dev-v3.json',
      'teammate-parser-dev-v5.json',
      'teammate-parser-dev-v6.json',
      'teammate-parser-dev-v7.json',
      'teammate-parser-dev-v8-otel.json',
      'teammate-parser-dev-v8.json',
      'teammate-parser-dev-v9.json',
      'teammate-parser-dev-v10.json',
      'teammate-parser-dev-v11.json',
      'teammate-quiet-cancelled-v9.json',
      'teammate-quiet-cancelled-v10.json',
      'teammate-quiet-cancelled-v11.json',
      'teammate-test-writer-v3.json',
      'teammate-test-writer-v5.json',
      'teammate-test-writer-v6.json',
      'teammate-test-writer-v7.json',
      'teammate-test-writer-v8-otel.json',
      'teammate-test-writer-v8.json',
      'teammate-test-writer-v9.json',
      'teammate-test-writer-v10.json',
      'teammate-test-writer-v11.json',
      'teammate-waiter-v4.json',
      'teammate-waiter-v5.json',
      'teammate-waiter-v6.json',
      'teammate-waiter-v7.json',
      'teammate-waiter-v8-otel.json',
      'teammate-waiter-v8.json',
      'teammate-waiter-v9.json',
      'teammate-waiter-v10.json',
      'teammate-waiter-v11.json',
    ],
  },
  {
    id: STATUS_REPORT_ACTIVITY_PATCH,
    guards: "A teammate's status reports go to the Lead through an activity, not a signal (workflows/session/teammate.ts).",
    introducedIn: '195b438',
    workflows: [TEAMMATE_WORKFLOW_TYPE],
    checked: 'some runs',
    oldBranch: [
      'teammate-agent-parser-dev-v3.json',
      'teammate-agent-parser-dev-v5.json',
      'teammate-agent-parser-dev-v6.json',
      'teammate-agent-parser-dev-v7.json',
      'teammate-agent-parser-dev-v8-otel.json',
      'teammate-agent-parser-dev-v8.json',
      'teammate-agent-parser-dev-v9.json',
      'teammate-agent-parser-dev-v10.json',
      'teammate-agent-parser-dev-v11.json',
      'teammate-agent-parser-dev-v12.json',
      'teammate-agent-parser-dev-v13.json',
      'teammate-agent-parser-dev-v14.json',
      'teammate-agent-test-writer-v3.json',
      'teammate-agent-test-writer-v5.json',
      'teammate-agent-test-writer-v6.json',
      'teammate-agent-test-writer-v7.json',
      'teammate-agent-test-writer-v8-otel.json',
      'teammate-agent-test-writer-v8.json',
      'teammate-agent-test-writer-v9.json',
      'teammate-agent-test-writer-v10.json',
      'teammate-agent-test-writer-v11.json',
      'teammate-agent-test-writer-v12.json',
      'teammate-agent-test-writer-v13.json',
      'teammate-agent-test-writer-v14.json',
      'teammate-budget-v13.json',
      'teammate-budget-v14.json',
      'teammate-busy-cancelled-v9.json',
      'teammate-busy-cancelled-v10.json',
      'teammate-busy-cancelled-v11.json',
      'teammate-busy-cancelled-v12.json',
      'teammate-busy-cancelled-v13.json',
      'teammate-busy-cancelled-v14.json',
      'teammate-orphan-reaped-v9.json',
      'teammate-orphan-reaped-v10.json',
      'teammate-orphan-reaped-v11.json',
      'teammate-orphan-reaped-v12.json',
      'teammate-orphan-reaped-v13.json',
      'teammate-orphan-reaped-v14.json',
      'teammate-parser-dev-v3.json',
      'teammate-parser-dev-v5.json',
      'teammate-parser-dev-v6.json',
      'teammate-parser-dev-v7.json',
      'teammate-parser-dev-v8-otel.json',
      'teammate-parser-dev-v8.json',
      'teammate-parser-dev-v9.json',
      'teammate-parser-dev-v10.json',
      'teammate-parser-dev-v11.json',
      'teammate-parser-dev-v12.json',
      'teammate-parser-dev-v13.json',
      'teammate-parser-dev-v14.json',
      'teammate-quiet-cancelled-v9.json',
      'teammate-quiet-cancelled-v10.json',
      'teammate-quiet-cancelled-v11.json',
      'teammate-quiet-cancelled-v12.json',
      'teammate-quiet-cancelled-v13.json',
      'teammate-quiet-cancelled-v14.json',
      'teammate-team-budget-v14.json',
      'teammate-test-writer-v3.json',
      'teammate-test-writer-v5.json',
      'teammate-test-writer-v6.json',
      'teammate-test-writer-v7.json',
      'teammate-test-writer-v8-otel.json',
      'teammate-test-writer-v8.json',
      'teammate-test-writer-v9.json',
      'teammate-test-writer-v10.json',
      'teammate-test-writer-v11.json',
      'teammate-test-writer-v12.json',
      'teammate-test-writer-v13.json',
      'teammate-test-writer-v14.json',
      'teammate-waiter-v4.json',
      'teammate-waiter-v5.json',
      'teammate-waiter-v6.json',
      'teammate-waiter-v7.json',
      'teammate-waiter-v8-otel.json',
      'teammate-waiter-v8.json',
      'teammate-waiter-v9.json',
      'teammate-waiter-v10.json',
      'teammate-waiter-v11.json',
      'teammate-waiter-v12.json',
      'teammate-waiter-v13.json',
      'teammate-waiter-v14.json',
    ],
  },
  {
    id: MODEL_CALL_REQUEST_ACTIVITY_PATCH,
    guards: 'Under a Team budget, the ask before each model call goes to the Lead through an activity, not a signal (workflows/session/session.ts).',
    introducedIn: 'd0b8a74',
    workflows: [TEAMMATE_WORKFLOW_TYPE, SUBAGENT_WORKFLOW_TYPE],
    checked: 'some runs',
    oldBranch: ['teammate-team-budget-v14.json', 'teammate-team-budget-v15.json'],
  },
  {
    id: SUBAGENT_ID_TAKEN_PATCH,
    guards: 'A Lead subagent whose reserved id is taken is stopped and the call started as the next subagent (workflows/lead/subagents.ts).',
    introducedIn: '12ea1e3',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE],
    checked: 'some runs',
    oldBranch: [],
  },
  {
    id: TEAM_ID_GRAMMAR_PATCH,
    guards: 'A fresh Lead whose Team id is outside the grammar fails at once with InvalidTeamId (workflows/common/workflowInputs.ts).',
    introducedIn: '818a9cd (issue 53)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE],
    checked: 'some runs',
    oldBranch: [],
  },
  {
    id: IDENTITY_SEARCH_ATTRIBUTES_PATCH,
    guards: 'The Lead upserts AgentTeamId, AgentTeamRole and AgentTeamMember when missing or wrong (workflows/common/searchAttributes.ts).',
    introducedIn: '818a9cd (issue 53)',
    workflows: [TEAM_LEAD_WORKFLOW_TYPE],
    checked: 'some runs',
    oldBranch: [
      'teamLead-agent-v3.json',
      'teamLead-agent-v5.json',
      'teamLead-agent-v6.json',
      'teamLead-demo-v3.json',
      'teamLead-demo-v5.json',
      'teamLead-demo-v6.json',
      'teamLead-rollover-v5.json',
      'teamLead-rollover-v6.json',
      'teamLead-solo-v3.json',
      'teamLead-solo-v5.json',
      'teamLead-solo-v6.json',
      'teamLead-wait-v4.json',
      'teamLead-wait-v5.json',
      'teamLead-wait-v6.json',
    ],
  },
];
