/**
 * The workflows set and upsert the project's search attributes (shared/searchAttributes.ts). On a
 * namespace where one is not registered, every such command fails its workflow task, over and
 * over, so the worker checks at start and refuses to poll, saying what to run.
 */
import type { Client } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_REGISTRATIONS } from '../shared/searchAttributes';
import { errorMessage } from '../shared/errors';

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
