/**
 * The workflow bundle preloads workflows/sharedLibraries.ts: the SDK's reusable VM evaluates it, and what it imports
 * (zod and the wire contract), once per worker and deep-freezes what it reached (the modules' exports and the globals
 * they set) before any workflow runs. These tests freeze them the same way and then do what workflows do: build
 * schemas of their own, and parse, fail and derive with the contract's.
 */
import fc from 'fast-check';
import { bundleTeamWorkflows } from '../../worker/workflowBundle';

import type { z } from 'zod';

type Zod = typeof import('zod');
type Contract = typeof import('../../shared/contract');

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
 * In a fresh module registry and zod global state: `preload`, then freeze zod and the contract as the SDK freezes the
 * modules a preload reached, then `run`, which sees the same (frozen) modules, as a workflow's own modules do.
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

/** What the SDK freezes after the preload: every module it reached (their exports), zod's globals with zod. */
const SHARED_MODULES = [
  '../../workflows/sharedLibraries',
  '../../shared/contract',
  '../../shared/agent/teamTools',
  '../../shared/agent/workTools',
  '../../shared/agent/subagentTools',
  '../../shared/tools/tool',
  '../../shared/team',
];

interface Shared {
  contract: Contract;
  tools: { name: string; description: string; input: z.ZodType; result: z.ZodType }[];
  toolSpec: (typeof import('../../shared/tools/tool'))['toolSpec'];
}

/** The contract alone, frozen as a preload would freeze it without workflows/sharedLibraries.ts (the control). */
function frozenBareContract(): Contract {
  return preloadFreezeAndRun(
    () => deepFreeze(jest.requireActual<Contract>('../../shared/contract')),
    () => jest.requireActual<Contract>('../../shared/contract'),
  );
}

/** The shared modules, preloaded through workflows/sharedLibraries.ts and frozen as the bundle shares them. */
function frozenShared(): Shared {
  return preloadFreezeAndRun(
    () => {
      jest.requireActual('../../workflows/sharedLibraries');
      for (const module of SHARED_MODULES) deepFreeze(jest.requireActual(module));
    },
    () => ({
      contract: jest.requireActual<Contract>('../../shared/contract'),
      tools: [
        ...jest.requireActual<typeof import('../../shared/agent/teamTools')>('../../shared/agent/teamTools').TEAM_TOOLS,
        ...jest.requireActual<typeof import('../../shared/agent/subagentTools')>('../../shared/agent/subagentTools').SUBAGENT_TOOLS,
      ],
      toolSpec: jest.requireActual<typeof import('../../shared/tools/tool')>('../../shared/tools/tool').toolSpec,
    }),
  );
}

/** A zod schema of the isolated registry (so not an instance of this file's zod classes). */
const isSchema = (value: unknown): value is z.ZodType => typeof value === 'object' && value !== null && '_zod' in value;

describe('zod, preloaded and frozen as the workflow bundle shares it', () => {
  it('fails a workflow when zod is frozen before its configuration is settled (the failure this module prevents)', () => {
    const build = preloadFreezeAndRun(
      () => jest.requireActual<Zod>('zod'),
      () => () => jest.requireActual<Zod>('zod').object({ text: jest.requireActual<Zod>('zod').string() }),
    );
    expect(build).toThrow(/not extensible/);
  });

  it('builds schemas of its own after the freeze once workflows/sharedLibraries.ts has run', () => {
    const zod = preloadFreezeAndRun(
      () => jest.requireActual('../../workflows/sharedLibraries'),
      () => jest.requireActual<Zod>('zod'),
    );
    const own = zod.object({ name: zod.enum(['a', 'b']), at: zod.number().int().optional(), tags: zod.record(zod.string(), zod.boolean()) });
    expect(own.safeParse({ name: 'a', tags: { x: true } }).success).toBe(true);
    expect(own.safeParse({ name: 'c', tags: [] }).error?.issues.length).toBe(2);
  });
});

describe('the contract and the tools, preloaded and frozen as the workflow bundle shares them', () => {
  it('fail on first use when they are frozen unsettled (the failure settleSchemas prevents)', () => {
    const contract = frozenBareContract();
    expect(() => contract.spawnRequestSchema.safeParse({ caller: 'lead', name: 'alice', message: 'hi' })).toThrow(/not extensible/);
  });

  const { contract, tools, toolSpec } = frozenShared();
  const schemas = Object.values(contract as Record<string, unknown>).filter(isSchema);
  const toolSchemas = tools.flatMap((tool) => [tool.input, tool.result]);

  it('parse, accept and refuse with every schema after the freeze', () => {
    expect(schemas.length).toBeGreaterThan(40);
    expect(contract.spawnRequestSchema.safeParse({ caller: 'lead', name: 'alice', message: 'hi' }).success).toBe(true);
    const rejected = contract.spawnRequestSchema.safeParse({ caller: 'lead', name: 'Not A Name', message: 'hi', extra: 1 });
    expect(rejected.error?.issues.length).toBeGreaterThan(0);
    expect(contract.readTaskRequestSchema.safeParse({ caller: 'lead', taskId: 0 }).success).toBe(false);
    // Hostile input of every shape through every schema: a frozen schema that still defined a member on use would throw.
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true, withMap: true, withSet: true }), (input) => {
        for (const schema of [...schemas, ...toolSchemas]) {
          const result = schema.safeParse(input);
          if (!result.success) expect(result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('give every tool its model-facing JSON Schema after the freeze', () => {
    for (const tool of tools) expect(toolSpec(tool).parameters).toMatchObject({ type: 'object' });
  });

  it('derive schemas with definitions of their own from frozen ones, as workflow code may', () => {
    for (const schema of schemas) {
      expect(() => schema.optional().safeParse(undefined)).not.toThrow();
      expect(() => schema.nullable().safeParse(undefined)).not.toThrow();
      expect(() => schema.array().safeParse(undefined)).not.toThrow();
      if ('extend' in schema && typeof schema.extend === 'function') expect(() => (schema as z.ZodObject).extend({}).safeParse({})).not.toThrow();
    }
  });

  it('refuse a copy that shares a frozen object definition (describe), which is why the tools that describe are preloaded', () => {
    expect(() => contract.budgetLimitsSchema.describe('caps')).toThrow(/Cannot redefine property: shape/);
  });
});

describe('the workflow bundle', () => {
  it('preloads the shared libraries, so every cached workflow shares one zod', async () => {
    const { code } = await bundleTeamWorkflows();
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
    expect(preload).toMatch(/workflows\/sharedLibraries/);
  }, 120_000);
});
