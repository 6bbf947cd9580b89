/**
 * The workflow interceptors every bundle of the project's workflows carries, whether or not the worker exports traces
 * (worker/workflowBundle.ts lists this module): gates for the OpenTelemetry interceptors of
 * @temporalio/interceptors-opentelemetry, so that one bundle serves every worker and a workflow can move between a
 * tracing and a non-tracing worker.
 *
 * Whether a run is traced is decided once, at its first activation, and recorded by the TRACING_PATCH marker: a new run
 * is traced when the worker that starts it exports traces (the worker says so in WORKER_TRACES_GLOBAL), and a replayed
 * one follows its history, traced if and only if it recorded the marker. Runs recorded before the marker replay without
 * the interceptors: they wrap activity schedules and outgoing signals in extra promise steps, which moves Update
 * completions in those histories (the replay test shows it). A run that is not traced never loads OpenTelemetry's
 * modules, which cost memory in every cached workflow and time in every activation (docs/benchmarks.md). Spans leave
 * the workflow through the worker's `exporter` sink, which drops them when tracing is off (worker/tracing.ts): a run
 * begun on a tracing worker keeps making spans on one that is not.
 */
import type { interceptors as OpenTelemetryInterceptorsFactory } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';
import { patched, type ActivateInput, type WorkflowInterceptors, type WorkflowInternalsInterceptor } from '@temporalio/workflow';
import { TRACED_METHODS, WORKER_TRACES_GLOBAL } from '../shared/telemetry/tracing';
import { TRACING_PATCH } from '../shared/contract/patches';
import { completionSizeOutbound } from './common/completionSize';
import { renderBeforeMetadataQuery } from './common/currentDetails';
import { observeActivation, rolloverSuggestionInbound } from './common/rolloverSuggestion';

type Intercept = (input: unknown, next: (input: unknown) => unknown) => unknown;

/**
 * An interceptor with the given methods that calls the matching method of `target()` once there is one, and otherwise
 * passes straight to `next`. Each method returns what it calls, so it adds no promise step of its own.
 */
function gated(methods: readonly string[], target: () => object | undefined): Record<string, Intercept> {
  const gate: Record<string, Intercept> = Object.create(null) as Record<string, Intercept>;
  for (const name of methods) {
    gate[name] = (input, next) => {
      const current = target() as Record<string, Intercept> | undefined;
      const method = current?.[name];
      return method ? method.call(current, input, next) : next(input);
    };
  }
  return gate;
}

/** Whether this run is traced; called once, at the run's first activation that is not a query. */
function tracesThisRun({ activation }: ActivateInput): boolean {
  // Replayed: as the history says (patched() records nothing on replay, it reads the marker).
  if (activation.isReplaying) return patched(TRACING_PATCH);
  // New: as this worker says; the marker is recorded only when it traces.
  return (globalThis as Record<string, unknown>)[WORKER_TRACES_GLOBAL] === true && patched(TRACING_PATCH);
}

/** OpenTelemetry's workflow interceptors, loaded on first use so that a run that does not trace never evaluates them. */
function openTelemetryInterceptors(): WorkflowInterceptors {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily on purpose (see above)
  const loaded = require('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors') as { interceptors: typeof OpenTelemetryInterceptorsFactory };
  return loaded.interceptors();
}

export const interceptors = (): WorkflowInterceptors => {
  // Decided once per workflow instance, at its first activation (patch markers are known by then); null: untraced run.
  let traced: WorkflowInterceptors | null | undefined;
  const decide = (input: ActivateInput): void => {
    if (traced !== undefined || input.activation.jobs?.some((job) => job.queryWorkflow)) return;
    traced = tracesThisRun(input) ? openTelemetryInterceptors() : null;
  };
  const inbound = gated(TRACED_METHODS.inbound, () => traced?.inbound?.[0]);
  const outbound = gated(TRACED_METHODS.outbound, () => traced?.outbound?.[0]);
  const internals = gated(TRACED_METHODS.internals, () => traced?.internals?.[0]);
  const activate: WorkflowInternalsInterceptor['activate'] = (input, next) => {
    decide(input);
    observeActivation(input.activation);
    renderBeforeMetadataQuery(input.activation);
    return next(input);
  };
  return {
    // First, so the rollover suggestion is noted as an accepted Update's job begins (workflows/common/rolloverSuggestion.ts); it adds no promise step.
    inbound: [rolloverSuggestionInbound, inbound],
    // The completion size limit passes every command straight on unless a run turned it on (workflows/common/completionSize.ts).
    outbound: [outbound, completionSizeOutbound],
    internals: [{ ...(internals as WorkflowInternalsInterceptor), activate }],
  };
};
