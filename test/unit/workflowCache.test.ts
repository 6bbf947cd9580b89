/** The worker's workflow cache size from AGENT_TEAMS_WORKFLOW_CACHE: the SDK's default unset, a whole number from 2, else a message naming what to write. */
import { WORKFLOW_CACHE_ENV, workflowCacheFromEnv } from '../../worker/workflowCache';

test('unset or empty: the SDK sizes the cache from the heap', () => {
  expect(workflowCacheFromEnv({})).toEqual({});
  expect(workflowCacheFromEnv({ [WORKFLOW_CACHE_ENV]: '  ' })).toEqual({});
});

test('a size caps the cache, and the concurrent workflow tasks with it below the SDK default of 40', () => {
  expect(workflowCacheFromEnv({ [WORKFLOW_CACHE_ENV]: '3' })).toEqual({ maxCachedWorkflows: 3, maxConcurrentWorkflowTaskExecutions: 3 });
  expect(workflowCacheFromEnv({ [WORKFLOW_CACHE_ENV]: ' 1000 ' })).toEqual({ maxCachedWorkflows: 1000 });
});

test('anything else is refused with what to write', () => {
  for (const bad of ['1', '0', '-5', '2.5', 'lots', '1e9', '9007199254740993']) {
    expect(() => workflowCacheFromEnv({ [WORKFLOW_CACHE_ENV]: bad })).toThrow(
      /AGENT_TEAMS_WORKFLOW_CACHE must be a whole number of workflows from 2 to 1000000, got .*; unset it/,
    );
  }
});
