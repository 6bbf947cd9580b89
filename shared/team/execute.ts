import { applyAll } from './apply';
import type { CommandContext, TaskCommand } from '../contract/taskCommands';
import { decideTask } from './decideTask';
import type { TeamEvent } from './events';
import type { TeamRejection } from '../contract/rejections';
import type { TeamState } from './state';
import { mutationResult } from './view';
import type { TaskMutationResult } from '../contract/team';

export type Execution = { ok: true; state: TeamState; events: TeamEvent[]; result: TaskMutationResult } | { ok: false; rejection: TeamRejection };

/** decide + apply + view for one task command (the board's tests drive the core through this). A rejection leaves `state` untouched. */
export function executeTask(state: TeamState, command: TaskCommand, ctx: CommandContext): Execution {
  const decision = decideTask(state, command, ctx);
  if (!decision.ok) return decision;
  const next = applyAll(state, decision.events);
  return { ok: true, state: next, events: decision.events, result: mutationResult(next, decision.taskId) };
}
