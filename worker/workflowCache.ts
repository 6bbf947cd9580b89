/**
 * The worker's workflow cache (the SDK's sticky cache): how many workflows it keeps in memory
 * between their workflow tasks. A cached workflow answers its next task at once; an evicted one is
 * replayed from its history on its next task, so the cache trades memory for replay time.
 * AGENT_TEAMS_WORKFLOW_CACHE sets its size; unset, the SDK sizes it from the heap
 * (docs/deployment.md, "Sizing a worker").
 */
export const WORKFLOW_CACHE_ENV = 'AGENT_TEAMS_WORKFLOW_CACHE';
/** The SDK needs room for two workflow tasks at once whenever it caches at all. */
const MIN_CACHE = 2;
const MAX_CACHE = 1_000_000;

/** `maxCachedWorkflows` from the environment, or undefined (the SDK's default); throws a message naming what to write. */
export function workflowCacheFromEnv(env: NodeJS.ProcessEnv): { maxCachedWorkflows?: number; maxConcurrentWorkflowTaskExecutions?: number } {
  const text = env[WORKFLOW_CACHE_ENV]?.trim();
  if (text === undefined || text === '') return {};
  const size = Number(text);
  if (!Number.isSafeInteger(size) || size < MIN_CACHE || size > MAX_CACHE) {
    throw new Error(
      `${WORKFLOW_CACHE_ENV} must be a whole number of workflows from ${MIN_CACHE} to ${MAX_CACHE}, got ${JSON.stringify(text.slice(0, 40))}; ` +
        'unset it to let the SDK size the cache from the heap',
    );
  }
  // The SDK refuses more concurrent workflow tasks than cached workflows (40 by default).
  return { maxCachedWorkflows: size, ...(size < 40 ? { maxConcurrentWorkflowTaskExecutions: size } : {}) };
}
