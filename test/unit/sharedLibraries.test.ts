/**
 * The workflow bundle preloads workflows/sharedLibraries.ts: the SDK's reusable VM evaluates it once per worker and
 * deep-freezes what it reached (its module exports and the globals it set) before any workflow runs. These tests freeze
 * zod the same way and then do what every workflow does first: build the project's schemas and parse with them.
 */
import { bundleTeamWorkflows } from '../../worker/workflowBundle';

type Zod = typeof import('zod');

/** As the SDK's reusable VM freezes preloaded modules: every own property is read (getters run), then frozen, depth first. */
function deepFreeze(value: unknown, seen = new WeakSet<object>()): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return;
  seen.add(value);
  if (typeof value === 'object') {
    for (const key of Reflect.ownKeys(value)) {
      try {
        deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
      } catch {
        // As the SDK does: some objects (typed arrays) cannot be frozen.
      }
    }
  }
  Object.freeze(value);
}

/**
 * In a fresh module registry and zod global state: `preload`, then freeze zod as the SDK freezes a preloaded module, then
 * `run`, which sees the same (frozen) zod, as a workflow's own modules do.
 */
function preloadFreezeAndRun<T>(preload: () => void, run: () => T): T {
  const globals = globalThis as Record<string, unknown>;
  delete globals.__zod_globalConfig;
  delete globals.__zod_globalRegistry;
  let result!: T;
  jest.isolateModules(() => {
    preload();
    deepFreeze(jest.requireActual('zod'));
    deepFreeze(globals.__zod_globalConfig);
    deepFreeze(globals.__zod_globalRegistry);
    result = run();
  });
  return result;
}

describe('zod, preloaded and frozen as the workflow bundle shares it', () => {
  it('fails a workflow when zod is frozen before its configuration is settled (the failure this module prevents)', () => {
    const build = preloadFreezeAndRun(
      () => jest.requireActual<Zod>('zod'),
      () => () => jest.requireActual<Zod>('zod').object({ text: jest.requireActual<Zod>('zod').string() }),
    );
    expect(build).toThrow(/not extensible/);
  });

  it('builds and parses the project schemas after the freeze once workflows/sharedLibraries.ts has run', () => {
    const contract = preloadFreezeAndRun(
      () => jest.requireActual('../../workflows/sharedLibraries'),
      () => jest.requireActual<typeof import('../../shared/contract')>('../../shared/contract'),
    );
    // The contract's schemas are built after the freeze, as in a workflow's own module cache.
    expect(contract.spawnRequestSchema.safeParse({ caller: 'lead', name: 'alice', message: 'hi' }).success).toBe(true);
    const rejected = contract.spawnRequestSchema.safeParse({ caller: 'lead', name: 'Not A Name', message: 'hi', extra: 1 });
    expect(rejected.success).toBe(false);
    expect(rejected.error?.issues.length).toBeGreaterThan(0);
    expect(contract.readTaskRequestSchema.safeParse({ caller: 'lead', taskId: 0 }).success).toBe(false);
  });
});

describe('the workflow bundle', () => {
  it('preloads the shared libraries, so every cached workflow shares one zod', async () => {
    const { code } = await bundleTeamWorkflows();
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
    expect(preload).toMatch(/workflows\/sharedLibraries/);
  }, 120_000);
});
