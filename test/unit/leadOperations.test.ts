/**
 * The Lead's operations table (workflows/lead/operations.ts) backs every Lead Update of the wire
 * contract exactly once, and the rollover gate of each is the documented one. Built over a
 * Lead state in memory; no server (no operation is performed).
 */
import * as contract from '../../shared/contract';
import { LeadAgentState } from '../../workflows/lead/agentState';
import { emptyLeadState } from '../../shared/lead';
import type { LeadContext } from '../../workflows/lead/context';
import { LeadRun } from '../../workflows/lead/leadRun';
import { createMailbox } from '../../workflows/lead/mailbox';
import { createLeadOperations } from '../../workflows/lead/operations';
import { createBudgets } from '../../workflows/lead/budgets';
import { createRoster } from '../../workflows/lead/roster';

const NOW = '2026-11-30T00:00:00.000Z';

function thrown(call: () => void): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

function table() {
  const run = new LeadRun(emptyLeadState('t', 8), () => NOW);
  const ctx: LeadContext = {
    run,
    input: { teamId: 't' },
    teamId: 't',
    now: () => NOW,
    closingNow: () => false,
    forkSeed: () => [],
    memberCheckout: () => ({ cwd: '.' }),
    leadStatus: () => null,
  };
  const roster = createRoster(ctx);
  return {
    run,
    operations: createLeadOperations(ctx, roster, createMailbox(ctx, roster), createBudgets(ctx, new LeadAgentState(ctx.input), undefined), {
      agentEnabled: false,
      cancelTurn: () => undefined,
      stopSubagents: () => Promise.resolve(),
    }),
  };
}

/** Every Update definition the contract declares (they are the Lead's: teammates take only signals and a query). */
const contractUpdates = (Object.values(contract) as unknown[]).filter(
  (value): value is { type: 'update'; name: string } => typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'update',
);

test('every Update of the contract has exactly one operation, and nothing else does', () => {
  const names = table().operations.operations.map((op) => op.definition.name);
  expect(new Set(names).size).toBe(names.length);
  expect([...names].sort()).toEqual(contractUpdates.map((u) => u.name).sort());
});

test('board operations stay open while a run winds down; everything else but disposal refuses then', () => {
  const gates = Object.fromEntries(table().operations.operations.map((op) => [op.definition.name, op.gate]));
  expect(gates).toEqual({
    createTask: 'board',
    editTask: 'board',
    claimTask: 'board',
    assignTask: 'board',
    releaseTask: 'board',
    transitionTask: 'board',
    deleteTask: 'board',
    readTask: 'board',
    listTasks: 'board',
    listTasksPage: 'board',
    spawnTeammate: 'team',
    sendMessage: 'team',
    readLeadInbox: 'team',
    interruptTeammate: 'team',
    waitForEdge: 'team',
    promptLead: 'team',
    setBudget: 'team',
    disposeTeam: 'never',
  });
});

test('a closed gate refuses with the retriable TeamRollingOver before anything is parsed; an open one runs the check', () => {
  const { operations } = table();
  const create = operations.find('createTask')!;
  expect(thrown(() => operations.validate(create, { junk: true }, 'u1', () => true))).toMatchObject({ type: 'TeamRollingOver', nonRetryable: false });
  expect(thrown(() => operations.validate(create, { junk: true }, 'u1', () => false))).toMatchObject({ type: 'InvalidTeamCommand' });
  expect(() => operations.validate(create, { caller: 'lead', subject: 'ok' }, 'u1', () => false)).not.toThrow();
});

test('a task operation applies once, is remembered under its update id, and a retry is answered from memory without applying again', () => {
  const { run, operations } = table();
  const create = operations.table.createTask;
  const first = operations.execute(create, { caller: 'lead', subject: 'once' }, 'u1');
  const again = operations.execute(create, { caller: 'lead', subject: 'once' }, 'u1');
  expect(again).toEqual(first);
  expect(Object.keys(run.state.team.tasks)).toHaveLength(1);
  expect(run.acceptedUpdates).toBe(1);
  // A validator of the retry lets it through (it is answered from memory), whatever the state now.
  expect(() => operations.validate(create, { caller: 'lead', subject: 'once' }, 'u1', () => false)).not.toThrow();
});
