/**
 * The workflows set and upsert the project's search attributes (shared/contract/searchAttributes.ts). On a
 * namespace where one is not registered, every such command fails its workflow task, over and
 * over, so the worker checks at start and refuses to poll, saying what to run.
 */
import type { Client, Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_REGISTRATIONS } from '../shared/contract/searchAttributes';
import { errorMessage } from '../shared/util/errors';

/** The registrations missing from the namespace (name=Type), or null when the server would not say (e.g. no operator permission). */
export async function missingSearchAttributes(client: Client, namespace: string): Promise<string[] | null> {
  let registered: Record<string, unknown>;
  try {
    registered = (await client.connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch (error) {
    console.warn(`worker: could not list the search attributes of namespace ${namespace} (${errorMessage(error)}); assuming they are registered`);
    return null;
  }
  return SEARCH_ATTRIBUTE_REGISTRATIONS.filter((registration) => !Object.hasOwn(registered, registration.split('=')[0]!));
}

export async function assertSearchAttributesRegistered(client: Client, namespace: string): Promise<void> {
  const missing = await missingSearchAttributes(client, namespace);
  if (!missing || missing.length === 0) return;
  const flags = missing.map((registration) => registration.split('=')).map(([name, type]) => `--name ${name} --type ${type}`);
  throw new Error(
    `namespace ${namespace} lacks the search attributes ${missing.map((r) => r.split('=')[0]).join(', ')}, which the workflows set; ` +
      `register them first: temporal operator search-attribute create --namespace ${namespace} ${flags.join(' ')}`,
  );
}

/** temporal.api.enums.v1.IndexedValueType of each type name the registrations use. */
const INDEXED_VALUE_TYPES: Record<string, number> = { Keyword: 2 };

/**
 * Registers the project's search attributes that the namespace lacks (a server's `--search-attribute`
 * flags apply only when its database is created, so an older database misses newer attributes).
 * Returns the names registered; a namespace that has them all is left as it is.
 */
export async function registerMissingSearchAttributes(connection: Pick<Connection, 'operatorService'>, namespace: string): Promise<string[]> {
  const registered = (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  const missing = SEARCH_ATTRIBUTE_REGISTRATIONS.map((r) => r.split('=') as [string, string]).filter(([name]) => !Object.hasOwn(registered, name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, INDEXED_VALUE_TYPES[type]!])),
  });
  return missing.map(([name]) => name);
}
