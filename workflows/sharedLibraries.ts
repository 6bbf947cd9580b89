/**
 * The modules that every cached workflow shares instead of evaluating them once each. The workflow bundle preloads
 * this module (worker/workflowBundle.ts): the SDK's reusable VM evaluates preloaded modules, and every module they
 * import, once per worker, before any workflow exists, then deep-freezes them; every other module is evaluated again
 * in each workflow's own module cache.
 *
 * Only stateless modules belong here, since a module that keeps state between calls would share that state across
 * workflows (and a frozen one fails on its first write). Shared: zod; the wire contract (shared/contract), which
 * imports nothing of the project's outside itself and holds only schemas, names and pure functions; and the model's
 * tools (shared/agent/*Tools.ts), whose input schemas are derived from the contract's and must be derived before the
 * freeze (zod's `describe` on a frozen object schema fails), with what they import: the Team's pure core (shared/team,
 * whose one cache is a WeakMap keyed by each workflow's own board) and shared/tools.
 *
 * The bundle cannot preload zod by name: zod declares itself free of side effects, so the bundler drops a require whose
 * value is unused. Importing it here, in a module of the project's, keeps it.
 */
import * as zod from 'zod';
import * as contract from '../shared/contract';
import { SUBAGENT_TOOLS } from '../shared/agent/subagentTools';
import { TEAM_TOOLS } from '../shared/agent/teamTools';
import * as workTools from '../shared/agent/workTools';
import { settleSchemas } from '../shared/util/settleSchemas';

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
// The schemas define members on first use; all of them are defined now, before the freeze.
const tools = { TEAM_TOOLS, SUBAGENT_TOOLS, workTools };
const settled = settleSchemas({ contract, tools });

export const SHARED_LIBRARIES = { zod, contract, tools, settled } as const;
