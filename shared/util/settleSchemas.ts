/**
 * Defines now every member that zod would define on a schema the first time it is read, so that the schema works
 * once frozen. zod 4 materializes a schema's methods as bound own properties on first read (`schema.safeParse`),
 * and memoizes derived internals (`_zod.optin`, `_zod.propValues`, `def.shape`, …) on the object that holds them;
 * both are `Object.defineProperty` on the schema, which a frozen schema refuses. The workflow bundle shares the
 * contract's schemas across workflows frozen (workflows/sharedLibraries.ts), so they are settled first.
 *
 * Generic on purpose: every accessor on a schema's, its internals' and its definition's prototype chains, and their
 * own accessors, is read once, whatever zod names them; then what they hold is settled the same way. Each schema is
 * also parsed once: a container's first parse replaces its own `_zod.parse` (zod's memoizer takes its wrapper back out
 * of a schema that cannot recurse), another write a frozen schema would refuse.
 */

/** Reads every accessor of `object`: its own and its prototypes' (below Object.prototype). */
function readAccessors(object: object): void {
  const read = (key: PropertyKey): void => {
    try {
      void (object as Record<PropertyKey, unknown>)[key];
    } catch {
      // A member that does not apply to this schema (a getter that throws) is defined by nothing either.
    }
  };
  for (const key of Reflect.ownKeys(object)) if (Object.getOwnPropertyDescriptor(object, key)?.get) read(key);
  const parent = (of: object): object | null => Object.getPrototypeOf(of) as object | null;
  for (let proto = parent(object); proto && proto !== Object.prototype; proto = parent(proto)) {
    for (const key of Reflect.ownKeys(proto)) if (Object.getOwnPropertyDescriptor(proto, key)?.get) read(key);
  }
}

/** Own property values, through own accessors too: a module's exports are getters (`export *`, the bundler's). */
function ownValues(object: object): unknown[] {
  return Reflect.ownKeys(object).flatMap((key) => {
    try {
      return [(object as Record<PropertyKey, unknown>)[key]];
    } catch {
      return [];
    }
  });
}

/** Parses `undefined` once with a schema (a check, which has no safeParse, is left alone); what it answers does not matter. */
function probeParse(schema: object): void {
  const { safeParse } = schema as { safeParse?: unknown };
  if (typeof safeParse !== 'function') return;
  try {
    safeParse.call(schema, undefined);
  } catch {
    // A schema whose parse throws on undefined throws the same way later; nothing was defined by it.
  }
}

/** Settles every zod schema reachable from `root` through objects, arrays, maps and sets; returns how many it settled. */
export function settleSchemas(root: unknown): number {
  const seen = new Set<object>();
  const pending: unknown[] = [root];
  let schemas = 0;
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    const internals = (value as { _zod?: { def?: unknown } })._zod;
    if (internals && typeof internals === 'object') {
      schemas += 1;
      readAccessors(value);
      readAccessors(internals);
      if (internals.def && typeof internals.def === 'object') readAccessors(internals.def);
      probeParse(value);
      pending.push(internals, internals.def);
    }
    if (value instanceof Map) pending.push(...value.keys(), ...value.values());
    else if (value instanceof Set) pending.push(...value.values());
    pending.push(...ownValues(value));
  }
  return schemas;
}
