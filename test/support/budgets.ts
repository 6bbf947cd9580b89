/** What the budget suites on the real server share (test/integration/budgets.test.ts, teamBudget.test.ts). */
import type { Client } from '@temporalio/client';
import type { Script } from '../../activities/providers/scriptedModelScript';
import type * as defs from '../../shared/contract';
import type { JsonValue } from '../../shared/contract/json';
import { chainReport, teamWorkflowIds } from './adversarial';

/** A script as the JSON a spawn's message carries. */
export const scriptJson = (s: Script): JsonValue => s as unknown as JsonValue;

/** The notes a member's conversation got when a budget stopped it. */
export const budgetNotes = (entries: defs.ConversationEntry[]): defs.ConversationEntry[] =>
  entries.filter((e) => e.role === 'system' && (e.content as { event?: unknown } | null)?.event === 'budget exhausted');

/** Every workflow of the Team: 0 failed workflow tasks, 0 terminated runs. */
export async function expectClean(client: Client, teamId: string): Promise<void> {
  for (const id of await teamWorkflowIds(client, teamId)) {
    const chain = await chainReport(client, id);
    expect([id, chain.failedWorkflowTasks, chain.terminatedRuns]).toEqual([id, 0, 0]);
  }
}

/** Two scripted models, one with a price and one without: what a cost budget can and cannot be checked against. */
export const PRICED_AND_FREE: defs.TeamModels = {
  allowed: ['scripted:priced', 'scripted:free'],
  default: 'scripted:priced',
  prices: { 'scripted:priced': { input: 1, output: 2 } },
};
