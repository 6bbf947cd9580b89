/**
 * Optional OpenTelemetry tracing of the worker, on when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
 * is set: spans go over OTLP/HTTP (JSON) to that collector, named by OTEL_SERVICE_NAME (default agent-teams-worker).
 * Workflow spans are made inside the workflow sandbox (workflows/interceptors.ts) and leave it through the `exporter`
 * sink, which every Team worker registers: with tracing off it drops them, so the same bundle runs either way.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource, envDetectorSync } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
  type OpenTelemetryWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';

export const DEFAULT_SERVICE_NAME = 'agent-teams-worker';

export interface WorkerTracing {
  readonly spanProcessor: SpanProcessor;
  readonly resource: Resource;
  /** Exports the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

export function tracingEnabled(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Registers the process-wide tracer provider (context manager and W3C propagator too); null when tracing is off. */
export function installTracing(env: NodeJS.ProcessEnv = process.env): WorkerTracing | null {
  if (!tracingEnabled(env)) return null;
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read by the env detector, win over the default name. merge() is typed
  // IResource but builds a Resource from synchronous attributes, which makeWorkflowExporter takes.
  const resource = new Resource({ 'service.name': DEFAULT_SERVICE_NAME }).merge(envDetectorSync.detect()) as Resource;
  // The exporter reads the endpoint, headers and timeout from the OTEL_EXPORTER_OTLP_* variables itself.
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  return { spanProcessor, resource, shutdown: () => provider.shutdown() };
}

/** The workflow spans' way out of the sandbox; without tracing it drops them. */
export function workflowSpanSinks(tracing: WorkerTracing | null | undefined): InjectedSinks<{ exporter: OpenTelemetryWorkflowExporter }> {
  return { exporter: tracing ? makeWorkflowExporter(tracing.spanProcessor, tracing.resource) : { export: { fn: () => undefined } } };
}

/** Activity spans, children of the workflow span that scheduled them. */
export function activityTracingInterceptors(): ActivityInterceptorsFactory[] {
  return [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })];
}

/** Client calls made by activities (signals to the Team) carry the trace context on. */
export function clientTracingInterceptors(): { workflow: OpenTelemetryWorkflowClientInterceptor[] } {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}
