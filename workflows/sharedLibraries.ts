/**
 * The libraries that every cached workflow shares instead of evaluating them once each. The workflow bundle preloads
 * this module (worker/workflowBundle.ts): the SDK's reusable VM evaluates preloaded modules once per worker, before any
 * workflow exists, then freezes them; every other module is evaluated again in each workflow's own module cache.
 *
 * The bundle cannot preload zod by name: zod declares itself free of side effects, so the bundler drops a require whose
 * value is unused. Importing it here, in a module of the project's, keeps it. Only stateless libraries belong here, since
 * a module that keeps state between calls would share that state across workflows.
 */
import * as zod from 'zod';

/**
 * zod fills its global configuration (the English messages, the memoizer of containers) the first time a schema is
 * built, and that configuration is frozen with the module once it is preloaded: build and parse one here, before the
 * freeze, or the first schema a workflow builds fails with "object is not extensible".
 */
function settleZodConfiguration(): void {
  const sample = zod.object({ text: zod.string(), items: zod.array(zod.number()).optional() });
  sample.safeParse({ text: 'settled', items: [1] });
  sample.safeParse({ text: 1 });
}
settleZodConfiguration();

export const SHARED_LIBRARIES = { zod } as const;
