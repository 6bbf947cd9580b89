/**
 * Every bundle of the project's workflows is made with the same workflow interceptor modules, failure converter and preloaded modules, whether the worker that
 * loads it traces or not (see workflows/interceptors.ts): the worker bundling at start, the tests' prebuilt bundle, the
 * replay test and the production image's bundle (AGENT_TEAMS_WORKFLOW_BUNDLE) all take them from here.
 */
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { WORKER_TRACES_GLOBAL } from '../shared/telemetry/tracing';
import { TRACING_PATCH } from '../shared/contract/patches';
import { WELL_FORMED_FAILURES_MARKER } from './failureConverter';

export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [require.resolve('../workflows/interceptors')];

/** The failure converter of every bundle and of the worker's activities (worker/failureConverter.ts says why). */
export const FAILURE_CONVERTER_PATH: string = require.resolve('./failureConverter');

/**
 * Evaluated once per worker and shared, frozen, by every cached workflow, instead of once per workflow (it names the
 * stateless modules: zod, the contract, the model's tools; workflows/sharedLibraries.ts says why). Not shared, they
 * cost a cached idle teammate about twice the memory (issue 28, docs/benchmarks.md).
 */
export const PRELOADED_MODULES: readonly string[] = [require.resolve('../workflows/sharedLibraries')];

/** Bundles `workflowsPath` (default: the project's workflows) with the project's workflow interceptors. */
export async function bundleTeamWorkflows(options: { workflowsPath?: string; logger?: BundleOptions['logger'] } = {}): Promise<{ code: string }> {
  return bundleWorkflowCode({
    workflowsPath: options.workflowsPath ?? require.resolve('../workflows'),
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    failureConverterPath: FAILURE_CONVERTER_PATH,
    preloadModules: [...PRELOADED_MODULES],
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

/** Whether a prebuilt bundle carries the project's failure converter (a bundle without it lets hostile text shut the worker down). */
export function bundleHasFailureConverter(code: string): boolean {
  return code.includes(WELL_FORMED_FAILURES_MARKER);
}

/** Whether a prebuilt bundle carries the tracing interceptors (a bundle made without them yields no workflow spans). */
export function bundleHasTracingInterceptors(code: string): boolean {
  return code.includes(TRACING_PATCH);
}

/**
 * The bundle's code as one worker runs it: ahead of it, one statement that sets WORKER_TRACES_GLOBAL to whether this
 * worker exports traces. The SDK runs the code once per sandbox before any workflow, so every workflow sees the value;
 * only a run's first new activation reads it, and records what it decided (workflows/interceptors.ts). On the bundle's
 * first line, so every other line, and the source map with it, stays where it was.
 */
export function bundleForWorker(code: string, tracing: boolean): string {
  return `globalThis[${JSON.stringify(WORKER_TRACES_GLOBAL)}] = ${tracing};${code}`;
}
