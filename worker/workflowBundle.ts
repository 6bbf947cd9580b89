/**
 * Every bundle of the project's workflows is made with the same workflow interceptor modules, whether the worker that
 * loads it traces or not (see workflows/interceptors.ts): the worker bundling at start, the tests' prebuilt bundle, the
 * replay test and the production image's bundle (AGENT_TEAMS_WORKFLOW_BUNDLE) all take them from here.
 */
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { TRACING_PATCH } from '../shared/tracing';

export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [require.resolve('../workflows/interceptors')];

/** Bundles `workflowsPath` (default: the project's workflows) with the project's workflow interceptors. */
export async function bundleTeamWorkflows(options: { workflowsPath?: string; logger?: BundleOptions['logger'] } = {}): Promise<{ code: string }> {
  return bundleWorkflowCode({
    workflowsPath: options.workflowsPath ?? require.resolve('../workflows'),
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

/** Whether a prebuilt bundle carries the tracing interceptors (a bundle made without them yields no workflow spans). */
export function bundleHasTracingInterceptors(code: string): boolean {
  return code.includes(TRACING_PATCH);
}
