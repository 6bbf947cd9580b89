/**
 * A worker refuses to poll a namespace that lacks the project's search attributes: the workflows
 * set and upsert them, and on such a namespace each of those commands would fail its workflow task
 * again and again. The refusal names the missing attributes and the command that registers them.
 */
import { connectClient, tempCheckout, uniqueId } from '../support/temporal';
import { eventually } from '../support/teams';
import { createTeamWorker } from '../../worker/createWorker';
import { registerMissingSearchAttributes } from '../../worker/searchAttributeCheck';
import { SEARCH_ATTRIBUTE_REGISTRATIONS } from '../../shared/contract/searchAttributes';
import type { Client } from '@temporalio/client';
import Long from 'long';

let client: Client;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ client, close } = await connectClient());
});
afterAll(() => close());

async function withNamespace<T>(namespace: string, body: () => Promise<T>): Promise<T> {
  const previous = process.env.TEMPORAL_NAMESPACE;
  process.env.TEMPORAL_NAMESPACE = namespace;
  try {
    return await body();
  } finally {
    if (previous === undefined) delete process.env.TEMPORAL_NAMESPACE;
    else process.env.TEMPORAL_NAMESPACE = previous;
  }
}

describe('the worker checks the namespace before it polls', () => {
  test('a namespace without the search attributes is refused with the command that registers them; once registered the worker starts', async () => {
    const namespace = uniqueId('no-attributes');
    await client.connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(86_400) } });
    await eventually(
      () =>
        client.connection.workflowService.describeNamespace({ namespace }).then(
          () => true,
          () => false,
        ),
      (found) => found,
    );
    const refusal = await withNamespace(namespace, () =>
      createTeamWorker({ checkoutRoot: tempCheckout() }).then(
        () => null,
        (error: unknown) => error as Error,
      ),
    );
    const missing = 'AgentTeamId, AgentTeamRole, AgentTeamMember, AgentTeamPhase, AgentTeamStatus';
    expect(refusal?.message).toContain(`namespace ${namespace} lacks the search attributes ${missing}`);
    expect(refusal?.message).toContain(`temporal operator search-attribute create --namespace ${namespace} --name AgentTeamId --type Keyword`);

    // What the dev-server script does for an existing database: register exactly the missing ones, once.
    expect(await registerMissingSearchAttributes(client.connection, namespace)).toEqual(SEARCH_ATTRIBUTE_REGISTRATIONS.map((r) => r.split('=')[0]));
    expect(await registerMissingSearchAttributes(client.connection, namespace)).toEqual([]);
    const started = await eventually(
      () =>
        withNamespace(namespace, () =>
          createTeamWorker({ checkoutRoot: tempCheckout() }).then(
            (w) => w,
            () => null,
          ),
        ),
      (w) => w !== null,
    );
    expect(started!.worker.options.namespace).toBe(namespace);
    // It polls; then shut it down (a created worker that never ran would hold the process open).
    const running = started!.worker.run();
    started!.worker.shutdown();
    await running;
    await started!.close();
  });
});
