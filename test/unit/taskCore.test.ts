import type { TeamState } from '../../shared/team';
import { ALLOWED_TRANSITIONS, DEFAULT_MAX_MEMBERS, apply, emptyTeamState, executeTask, isTransitionAllowed, teamView } from '../../shared/team';
import {
  TEAM_ID,
  accepted,
  at,
  createCommand,
  createTask,
  deepFreeze,
  exec,
  rejected,
  revisionOf,
  standardTeam,
  step,
  taskOf,
  teamWith,
} from './support/arbitraries';
import { type TaskCommand, TASK_COMMAND_BODIES, createTaskBody, editTaskBody, taskIdSchema } from '../../shared/contract/taskCommands';
import { type TaskStatus, TASK_STATUSES } from '../../shared/contract/vocabulary';
import { LEAD } from '../../shared/contract/callers';

/** Every non-create command kind, built for a given task and revision. */
type MutationKind = Exclude<TaskCommand['kind'], 'createTask'>;
function commandOf(kind: MutationKind, taskId: number, expectedRevision: number): TaskCommand {
  switch (kind) {
    case 'editTask':
      return { kind, taskId, expectedRevision, subject: 'edited' };
    case 'claimTask':
      return { kind, taskId, expectedRevision };
    case 'assignTask':
      return { kind, taskId, expectedRevision, owner: 'bob' };
    case 'releaseTask':
      return { kind, taskId, expectedRevision };
    case 'transitionTask':
      return { kind, taskId, expectedRevision, status: 'cancelled' };
    case 'deleteTask':
      return { kind, taskId, expectedRevision };
  }
}
const MUTATION_KINDS: MutationKind[] = ['editTask', 'claimTask', 'assignTask', 'releaseTask', 'transitionTask', 'deleteTask'];

/** A team with one task (id 1) owned by alice and in progress. */
function aliceWorking(): { state: TeamState; id: number } {
  const { state, id } = createTask(standardTeam(), LEAD, 'work');
  return { state: step(state, 'alice', { kind: 'claimTask', taskId: id }), id };
}

describe('Team state and view', () => {
  it('an empty Team has no members, no tasks, open admission and starts ids at 1', () => {
    const state = emptyTeamState(TEAM_ID);
    expect(state).toEqual({ teamId: TEAM_ID, maxMembers: DEFAULT_MAX_MEMBERS, admission: 'open', members: {}, tasks: {}, nextTaskId: 1 });
    expect(emptyTeamState(TEAM_ID, 3).maxMembers).toBe(3);
  });

  it('teamView of an empty Team still shows the Lead pseudo-row', () => {
    const view = teamView(emptyTeamState(TEAM_ID));
    expect(view.lead).toEqual({ name: 'lead', role: 'lead', phase: 'active', status: null });
    expect(view.members).toEqual([]);
    expect(view.tasks).toEqual([]);
    expect(view.teamId).toBe(TEAM_ID);
    expect(view.nextTaskId).toBe(1);
  });

  it('the Lead can act on a brand-new Team without any creation event', () => {
    const result = accepted(exec(emptyTeamState(TEAM_ID), LEAD, createCommand('first')));
    expect(result.result.task.id).toBe(1);
    expect(teamView(result.state).tasks.map((t) => t.id)).toEqual([1]);
  });

  it('member events build the roster; the Lead is never a roster row', () => {
    let state = emptyTeamState(TEAM_ID);
    state = apply(state, { type: 'memberProvisioning', name: 'alice', context: 'fork', workflowId: 'w/alice', model: 'm1', at: at(1) });
    expect(state.members.alice).toMatchObject({
      name: 'alice',
      phase: 'provisioning',
      context: 'fork',
      workflowId: 'w/alice',
      model: 'm1',
      failure: null,
      revision: 1,
    });
    state = apply(state, { type: 'memberActivated', name: 'alice', at: at(2) });
    expect(state.members.alice).toMatchObject({ phase: 'active', revision: 2, createdAt: at(1), updatedAt: at(2) });
    state = apply(state, { type: 'memberFailed', name: 'alice', reason: 'oom', at: at(3) });
    expect(state.members.alice).toMatchObject({ phase: 'failed', failure: 'oom', revision: 3 });
    const view = teamView(state);
    expect(view.members.map((m) => m.name)).toEqual(['alice']);
    expect(view.lead.name).toBe(LEAD);
  });

  it('teamView lists live tasks sorted by id with readiness and overlaps', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'a', { writeScopes: ['src'] }));
    ({ state } = createTask(state, LEAD, 'b', { dependencies: [1], writeScopes: ['src/api'] }));
    ({ state } = createTask(state, 'alice', 'c'));
    const view = teamView(state);
    expect(view.tasks.map((t) => [t.id, t.ready])).toEqual([
      [1, true],
      [2, false],
      [3, true],
    ]);
    expect(view.tasks[0]?.overlaps).toEqual([{ taskId: 2, scope: 'src', otherScope: 'src/api' }]);
    expect(view.tasks[1]?.overlaps).toEqual([{ taskId: 1, scope: 'src/api', otherScope: 'src' }]);
    expect(view.tasks[2]?.overlaps).toEqual([]);
  });
});

describe('createTask', () => {
  it('creates a complete snapshot at revision 1', () => {
    const result = accepted(exec(standardTeam(), 'alice', createCommand('Write API', { description: 'details', writeScopes: ['./src/api/'] }), at(7)));
    const snapshot = {
      id: 1,
      revision: 1,
      subject: 'Write API',
      description: 'details',
      status: 'pending',
      owner: null,
      dependencies: [],
      writeScopes: ['src/api'],
      deleted: false,
      createdBy: 'alice',
      createdAt: at(7),
      updatedAt: at(7),
    };
    expect(result.state.tasks['1']).toEqual(snapshot);
    expect(result.result.task).toEqual({ ...snapshot, ready: true, overlaps: [], overlapsOmitted: 0 });
    expect(result.events).toEqual([
      {
        type: 'taskCreated',
        taskId: 1,
        subject: 'Write API',
        description: 'details',
        dependencies: [],
        writeScopes: ['src/api'],
        createdBy: 'alice',
        at: at(7),
      },
    ]);
    expect(result.state.nextTaskId).toBe(2);
  });

  it('allocates ids monotonically', () => {
    let state = standardTeam();
    const ids: number[] = [];
    for (const caller of [LEAD, 'alice', 'bob', 'carol', LEAD]) {
      const created = createTask(state, caller, `by ${caller}`);
      ids.push(created.id);
      state = created.state;
    }
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(state.nextTaskId).toBe(6);
  });

  it('never reuses an id, even after deleting the newest task', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'one'));
    const two = createTask(state, LEAD, 'two');
    state = step(two.state, LEAD, { kind: 'deleteTask', taskId: two.id });
    expect(state.nextTaskId).toBe(3);
    const three = createTask(state, LEAD, 'three');
    expect(three.id).toBe(3);
    expect(taskOf(three.state, 2)).toMatchObject({ subject: 'two', deleted: true });
  });

  it('allocates the last safe id once, then rejects with TaskIdsExhausted instead of wrapping', () => {
    const start: TeamState = { ...standardTeam(), nextTaskId: Number.MAX_SAFE_INTEGER };
    const last = accepted(exec(start, LEAD, createCommand('last')));
    expect(last.result.task.id).toBe(Number.MAX_SAFE_INTEGER);
    expect(last.state.nextTaskId).toBeGreaterThan(Number.MAX_SAFE_INTEGER);
    const next = exec(last.state, LEAD, createCommand('one too many'));
    expect(rejected(next).type).toBe('TaskIdsExhausted');
    // also for a teammate, and the previously created task is still addressable
    expect(rejected(exec(last.state, 'alice', createCommand('again'))).type).toBe('TaskIdsExhausted');
    expect(Object.keys(last.state.tasks)).toEqual([String(Number.MAX_SAFE_INTEGER)]);
    const claimed = accepted(exec(last.state, 'alice', { kind: 'claimTask', taskId: Number.MAX_SAFE_INTEGER, expectedRevision: 1 }));
    expect(claimed.result.task.owner).toBe('alice');
  });

  it('de-duplicates dependencies and normalizes write scopes', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'a'));
    ({ state } = createTask(state, LEAD, 'b'));
    const result = accepted(exec(state, LEAD, createCommand('c', { dependencies: [2, 1, 2, 1], writeScopes: ['src/', './src', 'lib\\x', 'src/a/..'] })));
    expect(result.result.task.dependencies).toEqual([2, 1]);
    expect(result.result.task.writeScopes).toEqual(['src', 'lib/x']);
  });

  it('rejects dependencies on unknown tasks, on its own future id, and on tombstones', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'a'));
    expect(rejected(exec(state, LEAD, createCommand('b', { dependencies: [99] }))).type).toBe('InvalidTaskDependency');
    expect(rejected(exec(state, LEAD, createCommand('b', { dependencies: [state.nextTaskId] }))).type).toBe('InvalidTaskDependency');
    state = step(state, LEAD, { kind: 'deleteTask', taskId: 1 });
    expect(rejected(exec(state, LEAD, createCommand('b', { dependencies: [1] }))).type).toBe('InvalidTaskDependency');
  });

  it.each([[['']], [['../outside']], [['/abs']], [['ok', 'C:\\x']], [['   ']]])('rejects invalid write scopes %j with InvalidWriteScope', (writeScopes) => {
    const state = deepFreeze(standardTeam());
    expect(rejected(exec(state, LEAD, createCommand('x', { writeScopes }))).type).toBe('InvalidWriteScope');
    expect(state.nextTaskId).toBe(1);
  });

  it.each([LEAD, 'alice', 'bob', 'carol'])('%s (Lead, active or provisioning member) may create', (caller) => {
    expect(accepted(exec(standardTeam(), caller, createCommand('x'))).result.task.createdBy).toBe(caller);
  });

  it.each(['dave', 'erin', 'mallory', '', 'Lead', 'constructor', '__proto__', 'toString'])(
    '%j (failed, stopped or not a member) gets NotATeamMember',
    (caller) => {
      expect(rejected(exec(standardTeam(), caller, createCommand('x'))).type).toBe('NotATeamMember');
    },
  );
});

describe('revisions', () => {
  /** A state where task 1 (owned by alice, pending, with scopes) can accept each kind of mutation. */
  function fixture(kind: MutationKind): { state: TeamState; caller: string } {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'target'));
    ({ state } = createTask(state, LEAD, 'bystander', { writeScopes: ['x'] }));
    if (kind === 'claimTask') return { state, caller: 'alice' };
    state = step(state, LEAD, { kind: 'assignTask', taskId: 1, owner: 'alice' });
    return { state, caller: kind === 'assignTask' ? LEAD : 'alice' };
  }

  it.each(MUTATION_KINDS)('%s raises exactly that task revision by exactly one and stamps updatedAt', (kind) => {
    const { state, caller } = fixture(kind);
    deepFreeze(state);
    const before = taskOf(state, 1);
    const result = accepted(exec(state, caller, commandOf(kind, 1, before.revision), at(50)));
    const after = taskOf(result.state, 1);
    expect(after.revision).toBe(before.revision + 1);
    expect(after.updatedAt).toBe(at(50));
    expect(after.createdAt).toBe(before.createdAt);
    expect(result.events).toHaveLength(1);
    expect(result.result.task.revision).toBe(after.revision);
    // the other task is untouched, by value and by reference
    expect(result.state.tasks['2']).toBe(state.tasks['2']);
    expect(result.state.nextTaskId).toBe(state.nextTaskId);
    expect(result.state.members).toBe(state.members);
  });

  it('a sequence of mutations counts revisions 1, 2, 3, ...', () => {
    let { state } = createTask(standardTeam(), LEAD, 't');
    const seen = [revisionOf(state, 1)];
    state = step(state, LEAD, { kind: 'editTask', taskId: 1, description: 'd' });
    seen.push(revisionOf(state, 1));
    state = step(state, 'alice', { kind: 'claimTask', taskId: 1 });
    seen.push(revisionOf(state, 1));
    state = step(state, 'alice', { kind: 'transitionTask', taskId: 1, status: 'pending' });
    seen.push(revisionOf(state, 1));
    state = step(state, LEAD, { kind: 'assignTask', taskId: 1, owner: 'bob' });
    seen.push(revisionOf(state, 1));
    state = step(state, 'bob', { kind: 'releaseTask', taskId: 1 });
    seen.push(revisionOf(state, 1));
    state = step(state, LEAD, { kind: 'deleteTask', taskId: 1 });
    seen.push(revisionOf(state, 1));
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it.each(MUTATION_KINDS)('%s with a stale or future expectedRevision is TaskRevisionConflict carrying the current snapshot', (kind) => {
    const { state, caller } = fixture(kind);
    let s = step(state, LEAD, { kind: 'editTask', taskId: 1, description: 'bump' });
    s = deepFreeze(s);
    const current = taskOf(s, 1);
    for (const expectedRevision of [current.revision - 1, current.revision + 1, 1]) {
      const rejection = rejected(exec(s, caller, commandOf(kind, 1, expectedRevision)));
      expect(rejection.type).toBe('TaskRevisionConflict');
      expect(rejection.currentTask).toEqual(current);
    }
  });

  it('checks the revision before authority, so a stale non-owner sees the conflict', () => {
    const { state } = aliceWorking();
    const rejection = rejected(exec(state, 'bob', { kind: 'editTask', taskId: 1, expectedRevision: 1, subject: 'x' }));
    expect(rejection.type).toBe('TaskRevisionConflict');
    expect(rejection.currentTask).toEqual(taskOf(state, 1));
    // with the right revision the same caller hits the authority rule
    expect(rejected(exec(state, 'bob', { kind: 'editTask', taskId: 1, expectedRevision: revisionOf(state, 1), subject: 'x' })).type).toBe(
      'TaskAuthorityViolation',
    );
  });

  it('checks membership first, then existence, then the tombstone, then the revision', () => {
    let { state } = createTask(standardTeam(), LEAD, 't');
    state = step(state, LEAD, { kind: 'deleteTask', taskId: 1 });
    expect(rejected(exec(state, 'mallory', { kind: 'claimTask', taskId: 42, expectedRevision: 1 })).type).toBe('NotATeamMember');
    expect(rejected(exec(state, 'alice', { kind: 'claimTask', taskId: 42, expectedRevision: 1 })).type).toBe('TaskNotFound');
    const deleted = rejected(exec(state, 'alice', { kind: 'claimTask', taskId: 1, expectedRevision: 1 }));
    expect(deleted.type).toBe('TaskDeleted');
    expect(deleted.currentTask).toEqual(taskOf(state, 1));
  });

  it.each(MUTATION_KINDS)('%s of an unknown task is TaskNotFound', (kind) => {
    const { state } = createTask(standardTeam(), LEAD, 't');
    expect(rejected(exec(state, LEAD, commandOf(kind, 2, 1))).type).toBe('TaskNotFound');
  });
});

describe('authority', () => {
  type OwnerCommand = 'editTask' | 'transitionTask' | 'releaseTask' | 'deleteTask';
  const ownerCommands: OwnerCommand[] = ['editTask', 'transitionTask', 'releaseTask', 'deleteTask'];
  const ownerCommand = (kind: OwnerCommand, state: TeamState): TaskCommand =>
    kind === 'transitionTask'
      ? { kind, taskId: 1, expectedRevision: revisionOf(state, 1), status: 'completed' }
      : kind === 'editTask'
        ? { kind, taskId: 1, expectedRevision: revisionOf(state, 1), subject: 'renamed' }
        : { kind, taskId: 1, expectedRevision: revisionOf(state, 1) };

  describe.each(ownerCommands)('%s', (kind) => {
    it('is accepted from the owner', () => {
      const { state } = aliceWorking();
      accepted(exec(state, 'alice', ownerCommand(kind, state)));
    });
    it('is accepted from the Lead', () => {
      const { state } = aliceWorking();
      accepted(exec(state, LEAD, ownerCommand(kind, state)));
    });
    it.each(['bob', 'carol'])('is TaskAuthorityViolation from another live member (%s), with the current snapshot', (caller) => {
      const { state } = aliceWorking();
      const rejection = rejected(exec(state, caller, ownerCommand(kind, state)));
      expect(rejection.type).toBe('TaskAuthorityViolation');
      expect(rejection.currentTask).toEqual(taskOf(state, 1));
    });
    it.each(['mallory', 'dave', 'erin'])('is NotATeamMember from %s', (caller) => {
      const { state } = aliceWorking();
      expect(rejected(exec(state, caller, ownerCommand(kind, state))).type).toBe('NotATeamMember');
    });
    it('is NotATeamMember from an owner who has since failed; the Lead still can', () => {
      const working = aliceWorking();
      const state = apply(working.state, { type: 'memberFailed', name: 'alice', reason: 'boom', at: at(9) });
      expect(taskOf(state, 1).owner).toBe('alice');
      expect(rejected(exec(state, 'alice', ownerCommand(kind, state))).type).toBe('NotATeamMember');
      accepted(exec(state, LEAD, ownerCommand(kind, state)));
    });
    it('is TaskAuthorityViolation from a non-Lead member when the task is unowned, even from its creator', () => {
      const { state } = createTask(standardTeam(), 'alice', 't');
      const command =
        kind === 'releaseTask'
          ? { kind, taskId: 1, expectedRevision: 1 }
          : kind === 'transitionTask'
            ? { kind, taskId: 1, expectedRevision: 1, status: 'cancelled' as const }
            : ownerCommand(kind, state);
      expect(rejected(exec(state, 'alice', command)).type).toBe('TaskAuthorityViolation');
    });
  });

  describe('assignTask', () => {
    it('is LeadOnly for the owner and for other members', () => {
      const { state } = aliceWorking();
      for (const caller of ['alice', 'bob', 'carol']) {
        const rejection = rejected(exec(state, caller, { kind: 'assignTask', taskId: 1, expectedRevision: revisionOf(state, 1), owner: caller }));
        expect(rejection.type).toBe('LeadOnly');
      }
      expect(rejected(exec(state, 'mallory', { kind: 'assignTask', taskId: 1, expectedRevision: revisionOf(state, 1), owner: 'bob' })).type).toBe(
        'NotATeamMember',
      );
    });

    it.each(['alice', 'carol', LEAD])('the Lead may assign to a live member or itself (%s)', (owner) => {
      const { state } = createTask(standardTeam(), LEAD, 't');
      const result = accepted(exec(state, LEAD, { kind: 'assignTask', taskId: 1, expectedRevision: 1, owner }));
      expect(result.result.task).toMatchObject({ owner, status: 'pending', ready: false });
    });

    it('reassigns an in-progress task without changing its status', () => {
      const { state } = aliceWorking();
      const result = accepted(exec(state, LEAD, { kind: 'assignTask', taskId: 1, expectedRevision: revisionOf(state, 1), owner: 'bob' }));
      expect(result.result.task).toMatchObject({ owner: 'bob', status: 'in_progress' });
    });

    it.each(['dave', 'erin', 'mallory', 'constructor'])('assigning to %j is UnknownAssignee', (owner) => {
      const { state } = createTask(standardTeam(), LEAD, 't');
      const rejection = rejected(exec(state, LEAD, { kind: 'assignTask', taskId: 1, expectedRevision: 1, owner }));
      expect(rejection.type).toBe('UnknownAssignee');
      expect(rejection.currentTask).toEqual(taskOf(state, 1));
    });

    it('assigning null releases the task (owner cleared, back to pending)', () => {
      const { state } = aliceWorking();
      const result = accepted(exec(state, LEAD, { kind: 'assignTask', taskId: 1, expectedRevision: revisionOf(state, 1), owner: null }));
      expect(result.result.task).toMatchObject({ owner: null, status: 'pending', ready: true });
      expect(result.events.map((e) => e.type)).toEqual(['taskReleased']);
    });

    it('assigning null to an unowned task is InvalidTaskTransition', () => {
      const { state } = createTask(standardTeam(), LEAD, 't');
      expect(rejected(exec(state, LEAD, { kind: 'assignTask', taskId: 1, expectedRevision: 1, owner: null })).type).toBe('InvalidTaskTransition');
    });

    it.each(['completed', 'cancelled'] as const)('assigning a %s task is InvalidTaskTransition', (status) => {
      let { state } = aliceWorking();
      state = step(state, 'alice', { kind: 'transitionTask', taskId: 1, status });
      for (const owner of ['bob', null]) {
        expect(rejected(exec(state, LEAD, { kind: 'assignTask', taskId: 1, expectedRevision: revisionOf(state, 1), owner })).type).toBe(
          'InvalidTaskTransition',
        );
      }
    });
  });

  describe('claimTask', () => {
    it.each([LEAD, 'alice', 'bob', 'carol'])('%s may claim a ready unowned task', (caller) => {
      const { state } = createTask(standardTeam(), 'alice', 't');
      const result = accepted(exec(state, caller, { kind: 'claimTask', taskId: 1, expectedRevision: 1 }));
      expect(result.result.task).toMatchObject({ owner: caller, status: 'in_progress', ready: false, revision: 2 });
      expect(result.events).toEqual([{ type: 'taskClaimed', taskId: 1, owner: caller, at: at(1) }]);
    });

    it.each(['dave', 'erin', 'mallory'])('%s may not claim', (caller) => {
      const { state } = createTask(standardTeam(), LEAD, 't');
      expect(rejected(exec(state, caller, { kind: 'claimTask', taskId: 1, expectedRevision: 1 })).type).toBe('NotATeamMember');
    });

    it('a failed member can no longer act on the board', () => {
      let { state } = createTask(standardTeam(), LEAD, 't');
      state = apply(state, { type: 'memberFailed', name: 'bob', reason: 'x', at: at(2) });
      expect(rejected(exec(state, 'bob', { kind: 'claimTask', taskId: 1, expectedRevision: 1 })).type).toBe('NotATeamMember');
      expect(rejected(exec(state, 'bob', createCommand('y'))).type).toBe('NotATeamMember');
    });
  });
});

describe('tombstones', () => {
  function withTombstone(): TeamState {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'keep'));
    ({ state } = createTask(state, LEAD, 'drop', { writeScopes: ['src'] }));
    return step(state, LEAD, { kind: 'deleteTask', taskId: 2 });
  }

  it('deleting leaves the snapshot in state with deleted: true and hides it from teamView', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'keep'));
    ({ state } = createTask(state, LEAD, 'drop'));
    const result = accepted(exec(state, LEAD, { kind: 'deleteTask', taskId: 2, expectedRevision: 1 }));
    expect(result.result.task).toMatchObject({ id: 2, deleted: true, subject: 'drop', ready: false });
    expect(result.state.tasks['2']).toMatchObject({ id: 2, deleted: true, revision: 2 });
    expect(teamView(result.state).tasks.map((t) => t.id)).toEqual([1]);
    expect(teamView(result.state).nextTaskId).toBe(3);
  });

  it('the owner may delete an in-progress task and it keeps its owner', () => {
    const { state } = aliceWorking();
    const result = accepted(exec(state, 'alice', { kind: 'deleteTask', taskId: 1, expectedRevision: revisionOf(state, 1) }));
    expect(result.result.task).toMatchObject({ deleted: true, owner: 'alice', status: 'in_progress' });
  });

  it.each(MUTATION_KINDS)('%s on a tombstone is TaskDeleted with the tombstone', (kind) => {
    const state = deepFreeze(withTombstone());
    const rejection = rejected(exec(state, LEAD, commandOf(kind, 2, revisionOf(state, 2))));
    expect(rejection.type).toBe('TaskDeleted');
    expect(rejection.currentTask).toEqual(taskOf(state, 2));
  });

  it('nothing may come to depend on a tombstone (create or edit)', () => {
    const state = withTombstone();
    expect(rejected(exec(state, LEAD, createCommand('x', { dependencies: [2] }))).type).toBe('InvalidTaskDependency');
    expect(rejected(exec(state, LEAD, { kind: 'editTask', taskId: 1, expectedRevision: 1, dependencies: [2] })).type).toBe('InvalidTaskDependency');
  });

  it('a tombstone produces no write-scope overlaps', () => {
    const state = withTombstone();
    const result = accepted(exec(state, LEAD, createCommand('x', { writeScopes: ['src/deep'] })));
    expect(result.result.task.overlaps).toEqual([]);
  });

  it('deleting a task that a live task depends on is TaskHasDependents', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'base'));
    ({ state } = createTask(state, LEAD, 'needs base', { dependencies: [1] }));
    const rejection = rejected(exec(state, LEAD, { kind: 'deleteTask', taskId: 1, expectedRevision: 1 }));
    expect(rejection.type).toBe('TaskHasDependents');
    expect(rejection.currentTask).toEqual(taskOf(state, 1));
  });

  it('a finished (completed) dependent also blocks deletion, since nothing may depend on a tombstone', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'base'));
    ({ state } = createTask(state, LEAD, 'needs base', { dependencies: [1] }));
    state = step(state, 'alice', { kind: 'claimTask', taskId: 1 });
    state = step(state, 'alice', { kind: 'transitionTask', taskId: 1, status: 'completed' });
    state = step(state, 'bob', { kind: 'claimTask', taskId: 2 });
    state = step(state, 'bob', { kind: 'transitionTask', taskId: 2, status: 'completed' });
    expect(rejected(exec(state, LEAD, { kind: 'deleteTask', taskId: 1, expectedRevision: revisionOf(state, 1) })).type).toBe('TaskHasDependents');
  });

  it('once the dependent drops the dependency or is itself deleted, the task may be deleted', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'base'));
    ({ state } = createTask(state, LEAD, 'needs base', { dependencies: [1] }));
    const edited = step(state, LEAD, { kind: 'editTask', taskId: 2, dependencies: [] });
    accepted(exec(edited, LEAD, { kind: 'deleteTask', taskId: 1, expectedRevision: 1 }));
    const dependentDeleted = step(state, LEAD, { kind: 'deleteTask', taskId: 2 });
    accepted(exec(dependentDeleted, LEAD, { kind: 'deleteTask', taskId: 1, expectedRevision: 1 }));
  });
});

describe('readiness and claiming', () => {
  it('a task is ready only while pending, unowned and with every dependency completed', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'dep'));
    const created = accepted(exec(state, LEAD, createCommand('t', { dependencies: [1] })));
    state = created.state;
    expect(created.result.task.ready).toBe(false);
    const waiting = rejected(exec(state, 'bob', { kind: 'claimTask', taskId: 2, expectedRevision: 1 }));
    expect(waiting.type).toBe('TaskNotReady');
    expect(waiting.currentTask).toEqual(taskOf(state, 2));

    state = step(state, 'alice', { kind: 'claimTask', taskId: 1 });
    expect(rejected(exec(state, 'bob', { kind: 'claimTask', taskId: 2, expectedRevision: 1 })).type).toBe('TaskNotReady');
    state = step(state, 'alice', { kind: 'transitionTask', taskId: 1, status: 'completed' });
    expect(teamView(state).tasks.find((t) => t.id === 2)?.ready).toBe(true);
    accepted(exec(state, 'bob', { kind: 'claimTask', taskId: 2, expectedRevision: 1 }));
  });

  it('a cancelled dependency does not count as completed', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'dep'));
    ({ state } = createTask(state, LEAD, 't', { dependencies: [1] }));
    state = step(state, LEAD, { kind: 'transitionTask', taskId: 1, status: 'cancelled' });
    expect(teamView(state).tasks.find((t) => t.id === 2)?.ready).toBe(false);
    expect(rejected(exec(state, 'bob', { kind: 'claimTask', taskId: 2, expectedRevision: 1 })).type).toBe('TaskNotReady');
  });

  it('an owned pending task is not ready and cannot be claimed, even by its owner', () => {
    let { state } = createTask(standardTeam(), LEAD, 't');
    state = step(state, LEAD, { kind: 'assignTask', taskId: 1, owner: 'alice' });
    for (const caller of ['alice', 'bob', LEAD]) {
      expect(rejected(exec(state, caller, { kind: 'claimTask', taskId: 1, expectedRevision: revisionOf(state, 1) })).type).toBe('TaskNotReady');
    }
  });

  it.each(['in_progress', 'completed', 'cancelled'] as const)('a %s task cannot be claimed', (status) => {
    let { state } = createTask(standardTeam(), LEAD, 't');
    if (status === 'cancelled') state = step(state, LEAD, { kind: 'transitionTask', taskId: 1, status });
    else {
      state = step(state, 'alice', { kind: 'claimTask', taskId: 1 });
      if (status === 'completed') state = step(state, 'alice', { kind: 'transitionTask', taskId: 1, status });
    }
    expect(taskOf(state, 1).status).toBe(status);
    expect(rejected(exec(state, 'bob', { kind: 'claimTask', taskId: 1, expectedRevision: revisionOf(state, 1) })).type).toBe('TaskNotReady');
  });

  it('starting a task by transition needs an owner and completed dependencies', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'dep'));
    ({ state } = createTask(state, LEAD, 't', { dependencies: [1] }));
    expect(rejected(exec(state, LEAD, { kind: 'transitionTask', taskId: 2, expectedRevision: 1, status: 'in_progress' })).type).toBe('TaskNotReady');
    state = step(state, LEAD, { kind: 'assignTask', taskId: 2, owner: 'alice' });
    expect(rejected(exec(state, 'alice', { kind: 'transitionTask', taskId: 2, expectedRevision: revisionOf(state, 2), status: 'in_progress' })).type).toBe(
      'TaskNotReady',
    );
    state = step(state, 'bob', { kind: 'claimTask', taskId: 1 });
    state = step(state, 'bob', { kind: 'transitionTask', taskId: 1, status: 'completed' });
    const started = accepted(exec(state, 'alice', { kind: 'transitionTask', taskId: 2, expectedRevision: revisionOf(state, 2), status: 'in_progress' }));
    expect(started.result.task).toMatchObject({ owner: 'alice', status: 'in_progress' });
  });
});

describe('dependencies', () => {
  /** Tasks 1..n with no dependencies. */
  function tasks(n: number): TeamState {
    let state = standardTeam();
    for (let i = 0; i < n; i++) ({ state } = createTask(state, LEAD, `t${i + 1}`));
    return state;
  }
  const edit = (state: TeamState, taskId: number, dependencies: number[]): TaskCommand => ({
    kind: 'editTask',
    taskId,
    expectedRevision: revisionOf(state, taskId),
    dependencies,
  });

  it('a task depending on itself is a TaskDependencyCycle [id, id]', () => {
    const state = tasks(1);
    const rejection = rejected(exec(state, LEAD, edit(state, 1, [1])));
    expect(rejection.type).toBe('TaskDependencyCycle');
    expect(rejection.cycle).toEqual([1, 1]);
    expect(rejection.currentTask).toEqual(taskOf(state, 1));
  });

  it('names a two-task cycle', () => {
    let state = tasks(2);
    state = step(state, LEAD, { kind: 'editTask', taskId: 2, dependencies: [1] });
    const rejection = rejected(exec(state, LEAD, edit(state, 1, [2])));
    expect(rejection.type).toBe('TaskDependencyCycle');
    expect(rejection.cycle).toEqual([1, 2, 1]);
  });

  it('names a longer cycle along real edges, first id repeated at the end', () => {
    let state = tasks(5);
    state = step(state, LEAD, { kind: 'editTask', taskId: 2, dependencies: [1] });
    state = step(state, LEAD, { kind: 'editTask', taskId: 3, dependencies: [5, 2] });
    state = step(state, LEAD, { kind: 'editTask', taskId: 4, dependencies: [3] });
    const rejection = rejected(exec(state, LEAD, edit(state, 1, [5, 4])));
    expect(rejection.type).toBe('TaskDependencyCycle');
    const cycle = rejection.cycle ?? [];
    expect(cycle).toEqual([1, 4, 3, 2, 1]);
    // every step of the named cycle is an edge of the graph as it would be after the edit
    const depsAfter = (id: number): number[] => (id === 1 ? [5, 4] : taskOf(state, id).dependencies);
    for (let i = 0; i + 1 < cycle.length; i++) expect(depsAfter(cycle[i] as number)).toContain(cycle[i + 1]);
  });

  it('accepts a diamond (shared dependencies are not cycles)', () => {
    let state = tasks(4);
    state = step(state, LEAD, { kind: 'editTask', taskId: 2, dependencies: [1] });
    state = step(state, LEAD, { kind: 'editTask', taskId: 3, dependencies: [1] });
    const result = accepted(exec(state, LEAD, edit(state, 4, [2, 3, 1])));
    expect(result.result.task.dependencies).toEqual([2, 3, 1]);
  });

  it('de-duplicates edited dependencies and can clear them', () => {
    let state = tasks(3);
    state = step(state, LEAD, { kind: 'editTask', taskId: 3, dependencies: [1, 2, 1, 2] });
    expect(taskOf(state, 3).dependencies).toEqual([1, 2]);
    state = step(state, LEAD, { kind: 'editTask', taskId: 3, dependencies: [] });
    expect(taskOf(state, 3).dependencies).toEqual([]);
  });

  it('rejects unknown dependencies on edit', () => {
    const state = tasks(2);
    const rejection = rejected(exec(state, LEAD, edit(state, 1, [2, 3])));
    expect(rejection.type).toBe('InvalidTaskDependency');
    expect(rejection.currentTask).toEqual(taskOf(state, 1));
  });

  it('dependencies can change only while the task is pending; other fields can change any time', () => {
    let state = tasks(2);
    state = step(state, 'alice', { kind: 'claimTask', taskId: 1 });
    expect(rejected(exec(state, 'alice', edit(state, 1, [2]))).type).toBe('InvalidTaskDependency');
    const renamed = accepted(
      exec(state, 'alice', { kind: 'editTask', taskId: 1, expectedRevision: revisionOf(state, 1), subject: 'S', description: 'D', writeScopes: ['a/./b'] }),
    );
    expect(renamed.result.task).toMatchObject({
      subject: 'S',
      description: 'D',
      writeScopes: ['a/b'],
      status: 'in_progress',
      owner: 'alice',
      dependencies: [],
    });
  });

  it('an edit changes only the fields it names', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'orig', { writeScopes: ['src'] }));
    const before = taskOf(state, 1);
    const result = accepted(exec(state, LEAD, { kind: 'editTask', taskId: 1, expectedRevision: 1, description: 'new' }));
    expect(result.state.tasks['1']).toEqual({ ...before, description: 'new', revision: 2, updatedAt: at(1) });
  });

  it('an invalid write scope in an edit is InvalidWriteScope and changes nothing', () => {
    const state = deepFreeze(tasks(1));
    const rejection = rejected(exec(state, LEAD, { kind: 'editTask', taskId: 1, expectedRevision: 1, subject: 'x', writeScopes: ['ok', '../no'] }));
    expect(rejection.type).toBe('InvalidWriteScope');
    expect(taskOf(state, 1).subject).toBe('t1');
  });
});

describe('write-scope overlaps', () => {
  it('are reported in result.task.overlaps and in teamView, for both tasks', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'a', { writeScopes: ['src', 'docs'] }));
    const second = accepted(exec(state, 'bob', createCommand('b', { writeScopes: ['src/api', 'tests', '.'] })));
    expect(second.result.task.overlaps).toEqual([
      { taskId: 1, scope: 'src/api', otherScope: 'src' },
      { taskId: 1, scope: '.', otherScope: 'src' },
      { taskId: 1, scope: '.', otherScope: 'docs' },
    ]);
    const view = teamView(second.state);
    expect(view.tasks[0]?.overlaps).toEqual([
      { taskId: 2, scope: 'src', otherScope: 'src/api' },
      { taskId: 2, scope: 'src', otherScope: '.' },
      { taskId: 2, scope: 'docs', otherScope: '.' },
    ]);
  });

  it('never block claiming', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'a', { writeScopes: ['src'] }));
    ({ state } = createTask(state, LEAD, 'b', { writeScopes: ['src'] }));
    state = step(state, 'alice', { kind: 'claimTask', taskId: 1 });
    const claimed = accepted(exec(state, 'bob', { kind: 'claimTask', taskId: 2, expectedRevision: 1 }));
    expect(claimed.result.task.owner).toBe('bob');
    expect(claimed.result.task.overlaps).toEqual([{ taskId: 1, scope: 'src', otherScope: 'src' }]);
  });

  it('ignore completed, cancelled and deleted tasks, and disjoint scopes', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'done', { writeScopes: ['src'] }));
    ({ state } = createTask(state, LEAD, 'cancelled', { writeScopes: ['src'] }));
    ({ state } = createTask(state, LEAD, 'deleted', { writeScopes: ['src'] }));
    ({ state } = createTask(state, LEAD, 'elsewhere', { writeScopes: ['srcx', 'lib/src'] }));
    state = step(state, 'alice', { kind: 'claimTask', taskId: 1 });
    state = step(state, 'alice', { kind: 'transitionTask', taskId: 1, status: 'completed' });
    state = step(state, LEAD, { kind: 'transitionTask', taskId: 2, status: 'cancelled' });
    state = step(state, LEAD, { kind: 'deleteTask', taskId: 3 });
    const result = accepted(exec(state, LEAD, createCommand('new', { writeScopes: ['src/api'] })));
    expect(result.result.task.overlaps).toEqual([]);
  });

  it('a task without scopes overlaps nothing, even a task scoped to the whole checkout', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'all', { writeScopes: ['.'] }));
    const result = accepted(exec(state, LEAD, createCommand('none')));
    expect(result.result.task.overlaps).toEqual([]);
    expect(teamView(result.state).tasks[0]?.overlaps).toEqual([]);
  });
});

describe('status transitions', () => {
  /** Task 1 owned by alice in `status`, with its only dependency (task 2) completed. */
  function inStatus(status: TaskStatus): TeamState {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'dep'));
    state = step(state, 'bob', { kind: 'claimTask', taskId: 1 });
    state = step(state, 'bob', { kind: 'transitionTask', taskId: 1, status: 'completed' });
    ({ state } = createTask(state, LEAD, 'subject', { dependencies: [1] }));
    const id = 2;
    state = step(state, LEAD, { kind: 'assignTask', taskId: id, owner: 'alice' });
    if (status === 'in_progress' || status === 'completed') state = step(state, 'alice', { kind: 'transitionTask', taskId: id, status: 'in_progress' });
    if (status === 'completed') state = step(state, 'alice', { kind: 'transitionTask', taskId: id, status: 'completed' });
    if (status === 'cancelled') state = step(state, 'alice', { kind: 'transitionTask', taskId: id, status: 'cancelled' });
    expect(taskOf(state, id)).toMatchObject({ status, owner: 'alice' });
    return state;
  }

  const pairs = TASK_STATUSES.flatMap((from) => TASK_STATUSES.map((to) => [from, to] as const));

  it('the table has the documented shape (completed is terminal, cancelled can reopen)', () => {
    expect(ALLOWED_TRANSITIONS.completed).toEqual([]);
    expect(ALLOWED_TRANSITIONS.cancelled).toEqual(['pending']);
    for (const from of TASK_STATUSES) expect(ALLOWED_TRANSITIONS[from]).not.toContain(from);
  });

  it.each(pairs.filter(([from, to]) => isTransitionAllowed(from, to)))('%s -> %s is allowed for the owner and the Lead', (from, to) => {
    for (const caller of ['alice', LEAD]) {
      const state = deepFreeze(inStatus(from));
      const result = accepted(exec(state, caller, { kind: 'transitionTask', taskId: 2, expectedRevision: revisionOf(state, 2), status: to }));
      expect(result.result.task).toMatchObject({ status: to, owner: 'alice', revision: revisionOf(state, 2) + 1 });
      expect(result.events).toEqual([{ type: 'taskStatusChanged', taskId: 2, status: to, at: at(1) }]);
    }
  });

  it.each(pairs.filter(([from, to]) => !isTransitionAllowed(from, to)))('%s -> %s is InvalidTaskTransition', (from, to) => {
    expect(ALLOWED_TRANSITIONS[from]).not.toContain(to);
    for (const caller of ['alice', LEAD]) {
      const state = deepFreeze(inStatus(from));
      const rejection = rejected(exec(state, caller, { kind: 'transitionTask', taskId: 2, expectedRevision: revisionOf(state, 2), status: to }));
      expect(rejection.type).toBe('InvalidTaskTransition');
      expect(rejection.currentTask).toEqual(taskOf(state, 2));
    }
  });

  it('an unknown status string is rejected, not stored', () => {
    const state = inStatus('pending');
    const command = { kind: 'transitionTask', taskId: 2, expectedRevision: revisionOf(state, 2), status: 'done' } as unknown as TaskCommand;
    expect(rejected(exec(state, LEAD, command)).type).toBe('InvalidTaskTransition');
  });

  describe('releaseTask', () => {
    it.each(['pending', 'in_progress'] as const)('clears the owner of a %s task and returns it to pending', (status) => {
      const state = inStatus(status);
      const result = accepted(exec(state, 'alice', { kind: 'releaseTask', taskId: 2, expectedRevision: revisionOf(state, 2) }));
      expect(result.result.task).toMatchObject({ owner: null, status: 'pending', ready: true });
    });

    it.each(['completed', 'cancelled'] as const)('keeps the owner of a %s task (InvalidTaskTransition)', (status) => {
      const state = inStatus(status);
      expect(rejected(exec(state, LEAD, { kind: 'releaseTask', taskId: 2, expectedRevision: revisionOf(state, 2) })).type).toBe('InvalidTaskTransition');
    });

    it('of an unowned task is InvalidTaskTransition', () => {
      const { state } = createTask(standardTeam(), LEAD, 't');
      expect(rejected(exec(state, LEAD, { kind: 'releaseTask', taskId: 1, expectedRevision: 1 })).type).toBe('InvalidTaskTransition');
    });
  });
});

describe('durable ownership', () => {
  it('only releaseTask and assignTask(null) clear an owner', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'other'));
    ({ state } = createTask(state, LEAD, 't', { writeScopes: ['src'] }));
    state = step(state, 'alice', { kind: 'claimTask', taskId: 2 });
    const owner = (): string | null => taskOf(state, 2).owner;

    state = step(state, LEAD, { kind: 'editTask', taskId: 2, subject: 'renamed', writeScopes: [] });
    expect(owner()).toBe('alice');
    state = step(state, 'alice', { kind: 'transitionTask', taskId: 2, status: 'pending' });
    expect(owner()).toBe('alice');
    state = step(state, LEAD, { kind: 'editTask', taskId: 2, dependencies: [1] });
    expect(owner()).toBe('alice');
    state = step(state, LEAD, { kind: 'transitionTask', taskId: 2, status: 'cancelled' });
    expect(owner()).toBe('alice');
    state = step(state, 'alice', { kind: 'transitionTask', taskId: 2, status: 'pending' });
    expect(owner()).toBe('alice');
    // commands on other tasks and member lifecycle events leave it alone
    state = step(state, 'bob', { kind: 'claimTask', taskId: 1 });
    state = apply(state, { type: 'memberFailed', name: 'alice', reason: 'crash', at: at(3) });
    state = apply(state, { type: 'admissionClosed', at: at(4) });
    expect(owner()).toBe('alice');
    // a failed owner cannot act, nor can others claim the owned task
    expect(rejected(exec(state, 'carol', { kind: 'claimTask', taskId: 2, expectedRevision: revisionOf(state, 2) })).type).toBe('TaskNotReady');
    // reassigning replaces the owner; assign(null) clears it
    state = step(state, LEAD, { kind: 'assignTask', taskId: 2, owner: 'carol' });
    expect(owner()).toBe('carol');
    state = step(state, LEAD, { kind: 'assignTask', taskId: 2, owner: null });
    expect(owner()).toBeNull();
    state = step(state, LEAD, { kind: 'assignTask', taskId: 2, owner: 'bob' });
    state = step(state, 'bob', { kind: 'releaseTask', taskId: 2 });
    expect(owner()).toBeNull();
  });

  it('completing keeps the owner', () => {
    let { state } = aliceWorking();
    state = step(state, 'alice', { kind: 'transitionTask', taskId: 1, status: 'completed' });
    expect(taskOf(state, 1)).toMatchObject({ owner: 'alice', status: 'completed' });
  });
});

describe('purity', () => {
  it('executeTask never mutates its input, accepted or rejected', () => {
    let state = standardTeam();
    ({ state } = createTask(state, LEAD, 'a', { writeScopes: ['src'] }));
    ({ state } = createTask(state, LEAD, 'b', { dependencies: [1] }));
    state = step(state, 'alice', { kind: 'claimTask', taskId: 1 });
    const frozen = deepFreeze(state);
    const copy = structuredClone(state);
    const commands: Array<[string, TaskCommand]> = [
      [LEAD, createCommand('c', { dependencies: [1], writeScopes: ['src/x'] })],
      ['alice', { kind: 'editTask', taskId: 1, expectedRevision: 2, subject: 'x', writeScopes: ['y'] }],
      [LEAD, { kind: 'editTask', taskId: 2, expectedRevision: 1, dependencies: [] }],
      [LEAD, { kind: 'editTask', taskId: 1, expectedRevision: 2, dependencies: [2] }],
      ['bob', { kind: 'claimTask', taskId: 2, expectedRevision: 1 }],
      [LEAD, { kind: 'assignTask', taskId: 1, expectedRevision: 2, owner: 'bob' }],
      ['alice', { kind: 'releaseTask', taskId: 1, expectedRevision: 2 }],
      ['alice', { kind: 'transitionTask', taskId: 1, expectedRevision: 2, status: 'completed' }],
      [LEAD, { kind: 'deleteTask', taskId: 2, expectedRevision: 1 }],
      [LEAD, { kind: 'deleteTask', taskId: 1, expectedRevision: 2 }],
      ['mallory', createCommand('z')],
    ];
    let accepts = 0;
    for (const [caller, command] of commands) {
      const result = executeTask(frozen, command, { caller, now: at(99) });
      if (result.ok) {
        accepts++;
        expect(result.state).not.toBe(frozen);
      }
      expect(frozen).toEqual(copy);
    }
    expect(accepts).toBeGreaterThan(5);
  });

  it('apply treats an event for an unknown task as a programming error', () => {
    expect(() => apply(emptyTeamState(TEAM_ID), { type: 'taskDeleted', taskId: 1, at: at(1) })).toThrow(TypeError);
    expect(() => apply(emptyTeamState(TEAM_ID), { type: 'memberActivated', name: 'ghost', at: at(1) })).toThrow(TypeError);
  });

  it('member phases gate acting: provisioning and active act, failed and stopped do not', () => {
    const state = teamWith({ p: 'provisioning', a: 'active', f: 'failed', s: 'stopped' });
    expect(accepted(exec(state, 'p', createCommand('x'))).result.task.createdBy).toBe('p');
    expect(accepted(exec(state, 'a', createCommand('x'))).result.task.createdBy).toBe('a');
    expect(rejected(exec(state, 'f', createCommand('x'))).type).toBe('NotATeamMember');
    expect(rejected(exec(state, 's', createCommand('x'))).type).toBe('NotATeamMember');
  });
});

describe('command bodies (wire validation in front of the core)', () => {
  it('task ids are positive safe integers', () => {
    for (const good of [1, 42, Number.MAX_SAFE_INTEGER]) expect(taskIdSchema.safeParse(good).success).toBe(true);
    for (const bad of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN, '1']) expect(taskIdSchema.safeParse(bad).success).toBe(false);
  });

  it('createTask fills defaults and trims the subject', () => {
    expect(createTaskBody.parse({ subject: '  Write docs ' })).toEqual({ subject: 'Write docs', description: '', dependencies: [], writeScopes: [] });
    expect(createTaskBody.safeParse({ subject: '   ' }).success).toBe(false);
  });

  it('bodies are strict: unknown keys are errors', () => {
    expect(createTaskBody.safeParse({ subject: 'x', owner: 'alice' }).success).toBe(false);
    expect(TASK_COMMAND_BODIES.claimTask.safeParse({ taskId: 1, expectedRevision: 1, force: true }).success).toBe(false);
  });

  it('editTask needs at least one field to change and an expectedRevision', () => {
    expect(editTaskBody.safeParse({ taskId: 1, expectedRevision: 1 }).success).toBe(false);
    expect(editTaskBody.safeParse({ taskId: 1, subject: 'x' }).success).toBe(false);
    expect(editTaskBody.safeParse({ taskId: 1, expectedRevision: 1, dependencies: [] }).success).toBe(true);
  });

  it('every mutation body requires expectedRevision', () => {
    for (const kind of ['claimTask', 'assignTask', 'releaseTask', 'transitionTask', 'deleteTask'] as const) {
      const complete = {
        taskId: 1,
        expectedRevision: 1,
        ...(kind === 'assignTask' ? { owner: null } : {}),
        ...(kind === 'transitionTask' ? { status: 'completed' } : {}),
      };
      expect(TASK_COMMAND_BODIES[kind].safeParse(complete).success).toBe(true);
      const { expectedRevision: _omit, ...withoutRevision } = complete;
      expect(TASK_COMMAND_BODIES[kind].safeParse(withoutRevision).success).toBe(false);
    }
  });
});
