/**
 * The operator caller ("@operator", shared/contract/callers.ts): a person, distinct from the Lead
 * agent ("lead"). It carries the Lead's authority unless a rule says otherwise (it owns no tasks),
 * and nothing a model writes can produce it: not a teammate's tool call, not the Lead's own tools,
 * not a teammate's name.
 */
import { ApplicationFailure } from '@temporalio/common';
import { assertTeammateCaller } from '../../activities';
import { runTeamToolCall } from '../../shared/agent/dispatch';
import type { TeamToolContext } from '../../shared/agent/teamTools';
import { TEAM_TOOLS } from '../../shared/agent/teamTools';
import { hasLeadAuthority, LEAD, OPERATOR } from '../../shared/contract/callers';
import type { LeadState } from '../../shared/lead';
import {
  applyLeadAll,
  decideInterrupt,
  decideLeadOnly,
  decidePrompt,
  decideRead,
  decideRejectionReport,
  decideSendMessage,
  decideSettle,
  decideSpawnTeammate,
  emptyLeadState,
  parsePrompt,
  parseSend,
  parseSpawn,
} from '../../shared/lead';
import type { TeamState } from '../../shared/team';
import { memberNameProblem } from '../../shared/team';
import { accepted, at, createTask, exec, rejected, revisionOf, standardTeam } from './support/arbitraries';
import type { TaskCommand } from '../../shared/contract/taskCommands';

const NOW = '2026-12-03T00:00:00.000Z';

type MutationKind = Exclude<TaskCommand['kind'], 'createTask'>;
const MUTATIONS: readonly MutationKind[] = ['editTask', 'claimTask', 'assignTask', 'releaseTask', 'transitionTask', 'deleteTask'];

function command(kind: MutationKind, taskId: number, expectedRevision: number): TaskCommand {
  switch (kind) {
    case 'editTask':
      return { kind, taskId, expectedRevision, subject: 'edited' };
    case 'assignTask':
      return { kind, taskId, expectedRevision, owner: 'bob' };
    case 'transitionTask':
      return { kind, taskId, expectedRevision, status: 'cancelled' };
    default:
      return { kind, taskId, expectedRevision };
  }
}

/** A board with a ready unowned task (1) and one that alice owns and works on (2). */
function board(): TeamState {
  let state = createTask(standardTeam(), LEAD, 'ready').state;
  state = createTask(state, LEAD, 'owned').state;
  state = accepted(exec(state, 'alice', { kind: 'claimTask', taskId: 2, expectedRevision: revisionOf(state, 2) }, at(3))).state;
  return state;
}

describe('the operator on the task board', () => {
  test('creates tasks under its own name, distinct from the Lead', () => {
    const created = accepted(exec(standardTeam(), OPERATOR, { kind: 'createTask', subject: 's', description: '', dependencies: [], writeScopes: [] }));
    expect(created.result.task.createdBy).toBe(OPERATOR);
  });

  test.each(MUTATIONS.filter((k) => k !== 'claimTask'))('%s: accepted exactly where the Lead is, with the same events', (kind) => {
    const state = board();
    for (const taskId of [1, 2]) {
      const byLead = exec(state, LEAD, command(kind, taskId, revisionOf(state, taskId)));
      const byOperator = exec(state, OPERATOR, command(kind, taskId, revisionOf(state, taskId)));
      expect(byOperator.ok).toBe(byLead.ok);
      if (byLead.ok && byOperator.ok) expect(byOperator.events).toEqual(byLead.events);
    }
  });

  test('claims nothing: it is not on the roster, so a ready task stays unowned and unchanged', () => {
    const state = board();
    const rejection = rejected(exec(state, OPERATOR, command('claimTask', 1, revisionOf(state, 1))));
    expect(rejection.type).toBe('NotATeamMember');
    expect(rejection.message).toMatch(/assign task 1/);
    expect(rejection.currentTask).toEqual(state.tasks['1']);
    // The Lead may claim the same task: the rule is about the operator, not about claims.
    expect(exec(state, LEAD, command('claimTask', 1, revisionOf(state, 1))).ok).toBe(true);
  });

  test('cannot be made an owner by anyone', () => {
    const state = board();
    const assign: TaskCommand = { kind: 'assignTask', taskId: 1, expectedRevision: revisionOf(state, 1), owner: OPERATOR };
    expect(rejected(exec(state, OPERATOR, assign)).type).toBe('UnknownAssignee');
    expect(rejected(exec(state, LEAD, assign)).type).toBe('UnknownAssignee');
  });

  test('a teammate gains nothing from the operator: its own authority is unchanged', () => {
    const state = board();
    expect(rejected(exec(state, 'bob', command('assignTask', 1, revisionOf(state, 1)))).type).toBe('LeadOnly');
    expect(rejected(exec(state, 'bob', command('editTask', 2, revisionOf(state, 2)))).type).toBe('TaskAuthorityViolation');
  });
});

function leadWithMember(name: string): LeadState {
  const state = emptyLeadState('t', 8);
  const spawn = decideSpawnTeammate(state, parseSpawn({ caller: LEAD, name, message: 'start' }), NOW);
  if (!spawn.ok) throw new Error(spawn.rejection.message);
  const spawned = applyLeadAll(state, spawn.events, NOW);
  const settle = decideSettle(spawned, name, { phase: 'active' }, NOW, 100);
  if (!settle.ok) throw new Error('settle refused');
  return applyLeadAll(spawned, settle.events, NOW);
}

describe("the operator on the Lead's other Updates", () => {
  const state = leadWithMember('alice');

  test('has the Lead authority: spawn, prompt, interrupt, the Lead-only Updates, reads and sends', () => {
    expect(decideSpawnTeammate(state, parseSpawn({ caller: OPERATOR, name: 'bob', message: 'go' }), NOW).ok).toBe(true);
    expect(decidePrompt(state, parsePrompt({ caller: OPERATOR, content: 'more' }), true).ok).toBe(true);
    expect(decideInterrupt(state, { caller: OPERATOR, name: 'alice' }).ok).toBe(true);
    for (const update of ['readLeadInbox', 'disposeTeam']) expect(decideLeadOnly(OPERATOR, update).ok).toBe(true);
    expect(decideRead(state, OPERATOR).ok).toBe(true);
    expect(decideSendMessage(state, parseSend({ caller: OPERATOR, to: 'alice', content: 'hi' }), 'u1').ok).toBe(true);
    expect(decideSendMessage(state, parseSend({ caller: OPERATOR, to: LEAD, content: 'hi' }), 'u2').ok).toBe(true);
  });

  test('a teammate is refused what the operator may do', () => {
    expect(decideSpawnTeammate(state, parseSpawn({ caller: 'alice', name: 'bob', message: 'go' }), NOW).ok).toBe(false);
    expect(decidePrompt(state, parsePrompt({ caller: 'alice', content: 'more' }), true).ok).toBe(false);
    expect(decideInterrupt(state, { caller: 'alice', name: 'alice' }).ok).toBe(false);
    expect(decideLeadOnly('alice', 'disposeTeam').ok).toBe(false);
  });

  test('is not a send target: a message to "@operator" is refused, not delivered', () => {
    const sent = decideSendMessage(state, parseSend({ caller: 'alice', to: OPERATOR, content: 'hi' }), 'u3');
    expect(sent.ok).toBe(false);
    if (!sent.ok) expect(sent.rejection.type).toBe('UnknownMember');
  });

  test("its refused operations are kept in the Team's view like the Lead's", () => {
    const report = { caller: OPERATOR, operation: 'claimTask', type: 'NotATeamMember', message: 'm' };
    expect(decideRejectionReport(state, report, new Set(['claimTask']), NOW).ok).toBe(true);
  });

  test('callers that are neither the operator nor the Lead carry no Lead authority', () => {
    for (const caller of ['operator', '@Operator', ' @operator', 'alice', 'lead ', '']) expect(hasLeadAuthority(caller)).toBe(false);
    expect(hasLeadAuthority(OPERATOR) && hasLeadAuthority(LEAD)).toBe(true);
  });
});

describe('nothing a model writes produces the operator', () => {
  test('"@operator" can never be a teammate name, so no member runtime calls under it', () => {
    expect(memberNameProblem(OPERATOR)).not.toBeNull();
    const spawned = decideSpawnTeammate(emptyLeadState('t', 8), parseSpawn({ caller: OPERATOR, name: OPERATOR, message: 'x' }), NOW);
    expect(spawned.ok).toBe(false);
    if (!spawned.ok) expect(spawned.rejection.type).toBe('InvalidMemberName');
  });

  test('a teammate activity refuses to act under any name but a teammate name', () => {
    for (const caller of [OPERATOR, LEAD, '', 'Alice', 'a/b']) {
      let thrown: unknown;
      try {
        assertTeammateCaller(caller);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApplicationFailure);
      expect((thrown as ApplicationFailure).type).toBe('InvalidCaller');
      expect((thrown as ApplicationFailure).nonRetryable).toBe(true);
    }
    expect(() => assertTeammateCaller('api-writer')).not.toThrow();
  });

  /** Valid arguments for each Team tool: accepted as they are, so only the smuggled key can make a difference. */
  const VALID_ARGS: Record<string, Record<string, unknown>> = {
    spawn_teammate: { name: 'bob', message: 'go' },
    send_message: { to: 'lead', content: 'hi' },
    create_task: { subject: 's' },
    edit_task: { taskId: 1, expectedRevision: 1, subject: 's' },
    claim_task: { taskId: 1, expectedRevision: 1 },
    assign_task: { taskId: 1, expectedRevision: 1, owner: 'bob' },
    release_task: { taskId: 1, expectedRevision: 1 },
    set_task_status: { taskId: 1, expectedRevision: 1, status: 'completed' },
    delete_task: { taskId: 1, expectedRevision: 1 },
    list_tasks: {},
    wait_agent: { timeoutMs: 1000 },
    interrupt_teammate: { name: 'bob' },
    lower_budget: { name: 'bob', budget: { calls: 3 } },
    read_roster: {},
  };

  /** A context like the runtimes': the caller is put on last, after the tool's body. Records every body the tool sends. */
  function recordingContext(caller: string, bodies: object[]): TeamToolContext {
    return {
      caller,
      update: (_definition, body) => {
        bodies.push({ ...body, caller });
        return Promise.reject(new Error('recorded'));
      },
      roster: () => Promise.reject(new Error('recorded')),
    };
  }

  test.each(TEAM_TOOLS.map((tool) => tool.name))('%s: a smuggled caller is refused before any Update is sent', async (name) => {
    expect(Object.keys(VALID_ARGS)).toContain(name);
    for (const smuggled of [OPERATOR, LEAD]) {
      const bodies: object[] = [];
      const result = await runTeamToolCall(
        { id: 'c1', name, argumentsJson: JSON.stringify({ ...VALID_ARGS[name], caller: smuggled }) },
        recordingContext('alice', bodies),
      );
      expect(result.ok).toBe(false);
      expect(JSON.parse(result.text)).toMatchObject({ error: 'InvalidToolArguments' });
      expect(bodies).toEqual([]);
    }
    // The same arguments without the smuggled key do reach the Lead, under the runtime's caller only.
    const bodies: object[] = [];
    await runTeamToolCall({ id: 'c2', name, argumentsJson: JSON.stringify(VALID_ARGS[name]) }, recordingContext('alice', bodies));
    for (const body of bodies) expect(body).toMatchObject({ caller: 'alice' });
    if (name !== 'wait_agent' && name !== 'read_roster') expect(bodies).toHaveLength(1);
  });
});
