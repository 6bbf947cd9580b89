/**
 * Issue 54: the Lead's Updates are one typed registry (shared/contract/updates.ts) and its
 * operations table a mapped type over it (workflows/lead/operations.ts). The compiler is the test
 * for the table: each `@ts-expect-error` below is a table the type must refuse (`npm run
 * typecheck` fails when one compiles); the runtime checks pin the registry's keys to the wire.
 */
import type { TaskMutationResult, TaskView } from '../../shared/contract';
import { LEAD_UPDATE_REGISTRY, LEAD_UPDATES, type LeadUpdateName, type LeadUpdateRequest, type LeadUpdateResult } from '../../shared/contract/updates';
import type { ReadTaskRequest, WaitResult } from '../../shared/contract/lead';
import type { LeadOperationTable } from '../../workflows/lead/operations';
import { LEAD_SIGNALS, SESSION_SIGNALS, parsedSignal } from '../../shared/contract/signalRegistry';
import { interruptTurnSchema } from '../../shared/contract/signals';
import { watchEdgesSignal } from '../../shared/contract/lead';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

test('each entry is keyed by its wire name, in the wire contract table order', () => {
  for (const [key, entry] of Object.entries(LEAD_UPDATE_REGISTRY)) expect(entry.definition.name).toBe(key);
  expect(LEAD_UPDATES.map((entry) => entry.definition.name)).toEqual(Object.keys(LEAD_UPDATE_REGISTRY));
});

test('request and result types come from the entry', () => {
  const results: [
    Same<LeadUpdateResult<'readTask'>, TaskView>,
    Same<LeadUpdateResult<'claimTask'>, TaskMutationResult>,
    Same<LeadUpdateResult<'waitForEdge'>, WaitResult>,
  ] = [true, true, true];
  const request: Same<LeadUpdateRequest<'readTask'>, ReadTaskRequest> = true;
  expect([...results, request]).toEqual([true, true, true, true]);
});

/** Never called: the compiler checks its body (npm run typecheck, and ts-jest here), which is the test. */
function tablesTheTypeRefuses(table: LeadOperationTable): unknown[] {
  const withoutCreate: Omit<LeadOperationTable, 'createTask'> = table;
  // @ts-expect-error createTask has no operation
  const missing: LeadOperationTable = { ...withoutCreate };
  // @ts-expect-error bogus is not an Update of the Lead
  const extra: LeadOperationTable = { ...table, bogus: table.listTasks };
  // @ts-expect-error readTask answers a TaskView, not a task list
  const mistyped: LeadOperationTable = { ...table, readTask: table.listTasks };
  const names: LeadUpdateName[] = ['createTask', 'setBudget'];
  return [missing, extra, mistyped, names];
}

test('a table missing an operation, with one too many, or with one of the wrong result does not compile', () => {
  expect(tablesTheTypeRefuses).toBeInstanceOf(Function); // what it shows is shown at compile time
});

test('every parsed signal is keyed by its wire name, and a definition paired with another payload schema does not compile', () => {
  for (const [key, entry] of Object.entries({ ...LEAD_SIGNALS, ...SESSION_SIGNALS })) expect(entry.definition.name).toBe(key);
  // @ts-expect-error watchEdges carries an EdgeWatch, not the interrupt interruptTurnSchema parses
  const mismatched = parsedSignal(watchEdgesSignal, interruptTurnSchema);
  expect(mismatched.definition.name).toBe('watchEdges');
});
