/**
 * The global that tells workflow code whether the worker running it exports traces: the worker writes it ahead of the
 * bundle's code (worker/workflowBundle.ts `bundleForWorker`), so it is set once per sandbox before any workflow runs.
 * Only a run's first, non-replayed activation reads it (workflows/interceptors.ts); what it decided is in the history.
 */
export const WORKER_TRACES_GLOBAL = '__agentTeamsWorkerTraces';

/**
 * The methods of the OpenTelemetry workflow interceptors (@temporalio/interceptors-opentelemetry/lib/workflow), named
 * here so that workflows/interceptors.ts can stand in for them without loading them in a run that does not trace.
 * test/unit/tracingGates.test.ts keeps them equal to the classes' own.
 */
export const TRACED_METHODS = {
  inbound: ['execute', 'handleSignal', 'handleUpdate', 'validateUpdate', 'handleQuery'],
  outbound: [
    'scheduleActivity',
    'scheduleLocalActivity',
    'startNexusOperation',
    'startChildWorkflowExecution',
    'continueAsNew',
    'signalWorkflow',
    'getLogAttributes',
    'getMetricTags',
  ],
  internals: ['dispose'],
} as const;
