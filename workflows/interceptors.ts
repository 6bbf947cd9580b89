/**
 * The workflow interceptors every bundle of the project's workflows carries, whether or not the worker exports traces
 * (worker/workflowBundle.ts lists this module): the OpenTelemetry interceptors of @temporalio/interceptors-opentelemetry,
 * so that one bundle serves every worker and a workflow can move between a tracing and a non-tracing worker.
 *
 * They run only in runs that began with the TRACING_PATCH marker. Runs recorded before it replay without them: the
 * interceptors wrap activity schedules and outgoing signals in extra promise steps, which moves Update completions in
 * those histories (the replay test shows it). Spans leave the workflow through the worker's `exporter` sink, which
 * drops them when tracing is off (worker/tracing.ts).
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { interceptors as openTelemetryInterceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';
import { patched, type ActivateInput, type WorkflowInterceptors, type WorkflowInternalsInterceptor } from '@temporalio/workflow';
import { TRACING_PATCH } from '../shared/telemetry/tracing';
import { completionBudgetOutbound } from './common/completionBudget';
import { observeActivation, rolloverSuggestionInbound } from './common/rolloverSuggestion';

type Intercept = (input: unknown, next: (input: unknown) => unknown) => unknown;

/**
 * An interceptor with the methods of `prototype` that calls the matching method of `target()` once there is one, and
 * otherwise passes straight to `next`. Each method returns what it calls, so it adds no promise step of its own.
 */
function gated(prototype: object, target: () => object | undefined): Record<string, Intercept> {
  const gate: Record<string, Intercept> = Object.create(null) as Record<string, Intercept>;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    if (name === 'constructor') continue;
    gate[name] = (input, next) => {
      const current = target() as Record<string, Intercept> | undefined;
      const method = current?.[name];
      return method ? method.call(current, input, next) : next(input);
    };
  }
  return gate;
}

export const interceptors = (): WorkflowInterceptors => {
  // Decided once per workflow instance, at its first activation (patch markers are known by then); null: untraced run.
  let traced: WorkflowInterceptors | null | undefined;
  const decide = ({ activation }: ActivateInput): void => {
    if (traced !== undefined || activation.jobs?.some((job) => job.queryWorkflow)) return;
    traced = patched(TRACING_PATCH) ? openTelemetryInterceptors() : null;
  };
  const inbound = gated(OpenTelemetryInboundInterceptor.prototype, () => traced?.inbound?.[0]);
  const outbound = gated(OpenTelemetryOutboundInterceptor.prototype, () => traced?.outbound?.[0]);
  const internals = gated(OpenTelemetryInternalsInterceptor.prototype, () => traced?.internals?.[0]);
  const activate: WorkflowInternalsInterceptor['activate'] = (input, next) => {
    decide(input);
    observeActivation(input.activation);
    return next(input);
  };
  return {
    // First, so the rollover suggestion is noted as an accepted Update's job begins (workflows/common/rolloverSuggestion.ts); it adds no promise step.
    inbound: [rolloverSuggestionInbound, inbound],
    // The completion budget passes every command straight on unless a run turned it on (workflows/common/completionBudget.ts).
    outbound: [outbound, completionBudgetOutbound],
    internals: [{ ...(internals as WorkflowInternalsInterceptor), activate }],
  };
};
