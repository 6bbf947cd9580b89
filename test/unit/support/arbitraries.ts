/**
 * Shared helpers and generators for the Team core unit tests. Pure: no Temporal, no I/O.
 */
import fc from 'fast-check';
import type { Execution, TeamState } from '../../../shared/team';
import { apply, emptyTeamState, executeTask, teammateWorkflowId } from '../../../shared/team';
import type { MemberPhase } from '../../../shared/contract/vocabulary';
import type { TaskCommand } from '../../../shared/contract/taskCommands';
import type { TeamRejection } from '../../../shared/contract/rejections';

export const TEAM_ID = 'team-under-test';
export const T0 = '2025-01-01T00:00:00.000Z';

/** A distinct, increasing timestamp per step so updatedAt changes are observable. */
export function at(step: number): string {
  return new Date(Date.parse(T0) + step * 1000).toISOString();
}

/**
 * Builds a Team whose roster holds `members` in the given phases, using only the public `apply`
 * events (the Team itself has no creation event).
 */
export function teamWith(members: Readonly<Record<string, MemberPhase>>, base: TeamState = emptyTeamState(TEAM_ID)): TeamState {
  let state = base;
  for (const [name, phase] of Object.entries(members)) {
    state = apply(state, { type: 'memberProvisioning', name, context: 'fresh', workflowId: teammateWorkflowId(state.teamId, name), model: null, at: T0 });
    if (phase === 'active' || phase === 'stopped') state = apply(state, { type: 'memberActivated', name, at: T0 });
    if (phase === 'failed') state = apply(state, { type: 'memberFailed', name, reason: 'crashed', at: T0 });
    if (phase === 'stopped') state = apply(state, { type: 'memberStopped', name, at: T0 });
  }
  return state;
}

/** The standard roster used by most tests. */
export const ROSTER: Readonly<Record<string, MemberPhase>> = {
  alice: 'active',
  bob: 'active',
  carol: 'provisioning',
  dave: 'failed',
  erin: 'stopped',
};

export function standardTeam(): TeamState {
  return teamWith(ROSTER);
}

export function exec(state: TeamState, caller: string, command: TaskCommand, now: string = at(1)): Execution {
  return executeTask(state, command, { caller, now });
}

export type Accepted = Extract<Execution, { ok: true }>;

/** Asserts acceptance (with the rejection in the failure message) and narrows the type. */
export function accepted(execution: Execution): Accepted {
  if (!execution.ok) throw new Error(`expected acceptance, got ${execution.rejection.type}: ${execution.rejection.message}`);
  return execution;
}

/** Asserts rejection and narrows the type. */
export function rejected(execution: Execution): TeamRejection {
  if (execution.ok) throw new Error(`expected a rejection, but the command was accepted (${execution.events.map((e) => e.type).join(', ')})`);
  return execution.rejection;
}

export function createCommand(
  subject: string,
  opts: { description?: string; dependencies?: number[]; writeScopes?: string[] } = {},
): Extract<TaskCommand, { kind: 'createTask' }> {
  return { kind: 'createTask', subject, description: opts.description ?? '', dependencies: opts.dependencies ?? [], writeScopes: opts.writeScopes ?? [] };
}

/** Creates a task as `caller` and returns the new state and id. */
export function createTask(
  state: TeamState,
  caller: string,
  subject: string,
  opts: { dependencies?: number[]; writeScopes?: string[] } = {},
): { state: TeamState; id: number } {
  const result = accepted(exec(state, caller, createCommand(subject, opts)));
  return { state: result.state, id: result.result.task.id };
}

export function revisionOf(state: TeamState, id: number): number {
  const task = state.tasks[String(id)];
  if (!task) throw new Error(`no task ${id}`);
  return task.revision;
}

export function taskOf(state: TeamState, id: number) {
  const task = state.tasks[String(id)];
  if (!task) throw new Error(`no task ${id}`);
  return task;
}

/** Runs a task command (other than create) as `caller` at the task's current revision and requires acceptance. */
export function step(state: TeamState, caller: string, command: DistributiveOmit<Exclude<TaskCommand, { kind: 'createTask' }>, 'expectedRevision'>): TeamState {
  return accepted(exec(state, caller, { ...command, expectedRevision: revisionOf(state, command.taskId) })).state;
}

export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Recursively freezes a value so any mutation by the code under test throws (modules are strict). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

// ---- generators -------------------------------------------------------------------------------

/** Path segments that normalization keeps verbatim. */
export const plainSegmentArb = fc.stringMatching(/^[a-z0-9_][a-z0-9_.-]{0,5}$/).filter((s) => s !== '.' && s !== '..' && !/^[a-z]:/i.test(s));

/** Segments including the special ones normalization must interpret. */
export const anySegmentArb = fc.oneof({ weight: 4, arbitrary: plainSegmentArb }, { weight: 1, arbitrary: fc.constantFrom('.', '..', '') });

/** A relative path built from segments, joined by / or \. */
export const rawRelativePathArb = fc
  .tuple(fc.array(anySegmentArb, { minLength: 1, maxLength: 6 }), fc.constantFrom('/', '\\'), fc.boolean())
  .map(([segments, sep, trailing]) => segments.join(sep) + (trailing ? sep : ''));

/** Already-normalized scopes (the shapes `normalizeWriteScope` returns). */
export const normalizedScopeArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant('.') },
  { weight: 6, arbitrary: fc.array(fc.constantFrom('a', 'b', 'ab', 'c'), { minLength: 1, maxLength: 4 }).map((s) => s.join('/')) },
);

/**
 * A model-based test's run: random command sequences from a new state and from one an earlier
 * version carried, then a check that the generator reached each interesting outcome (`seen` counts
 * them) at least five times, or the properties prove little.
 */
export function assertModelRuns<Model extends object, Real>(
  commands: fc.Arbitrary<Iterable<fc.Command<Model, Real>>>,
  setup: (legacy: boolean) => () => { model: Model; real: Real },
  numRuns: number,
  seen: ReadonlyMap<string, number>,
  reached: readonly string[],
): void {
  fc.assert(
    fc.property(commands, fc.boolean(), (cmds, legacy) => {
      fc.modelRun(setup(legacy), cmds);
    }),
    { numRuns },
  );
  expect(reached.filter((k) => (seen.get(k) ?? 0) < 5)).toEqual([]);
}
