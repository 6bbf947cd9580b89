/**
 * The table of the Lead's operations: one entry per Update, used both by the Update handlers
 * (operators, teammates' tool activities) and by the Lead agent's own Team tools, which run inside
 * this workflow. So every path parses, decides, refuses during a rollover and answers retries the
 * same way, and produces the same history.
 */
import type { UpdateDefinition } from '@temporalio/common';
import * as contract from '../../shared/contract';
import { leadUpdate, type UpdateGate } from '../../shared/contract/updates';
import type { InboxAcceptance, TaskCommandKind } from '../../shared/contract';
import { rollingOverFailure } from '../../shared/contract/failures';
import {
  PROMPT_SENDER,
  decideLeadOnly,
  decidePrompt,
  decideRead,
  decideReadTask,
  parsePrompt,
  parseTaskCommand,
  parseWith,
  receiveForLead,
} from '../../shared/lead';
import { own } from '../../shared/util/own';
import { boardPage, decideTask, mutationResult, taskKey, taskView, teamView } from '../../shared/team';
import { callerOnlySchema, listTasksPageRequestSchema, readTaskRequestSchema } from '../../shared/contract/requests';
import type { LeadContext } from './context';
import { createDisposal } from './disposal';
import type { Mailbox } from './mailbox';
import type { Roster } from './roster';
import type { Budgets } from './budgets';
import { LEAD } from '../../shared/contract';

/** When a winding-down run refuses an operation: see UpdateGate in the contract. */
export type Gate = UpdateGate;

/**
 * An Update's descriptor (shared/contract/updates.ts: its gate, idempotency, counting, deferral)
 * with the Lead's own work for it.
 */
export interface LeadOperation {
  definition: UpdateDefinition<unknown, [never]>;
  gate: Gate;
  /** Answered from memory when retried with the same update id; the result is remembered. */
  idempotent: boolean;
  /** Counted towards the run's accepted Updates (the rollover). Disposal ends the run instead. */
  counted: boolean;
  /** A read: `perform` changes nothing, so a result that waits for a later workflow task is produced again there. */
  read: boolean; // never idempotent: its handler is `admit` then `perform`
  /** Synchronous: parse and decide against the state now; throws the typed failure. What a validator runs. */
  check(request: unknown, operationId: string): void;
  /**
   * Parses and decides again (another Update may have changed things since the check), applies,
   * does the work, and hands its result to `done` as it returns it: the table remembers it there,
   * in the same step, so an asynchronous operation completes no later than it would on its own.
   */
  perform(request: unknown, operationId: string, done: <T>(result: T) => T): unknown;
}

export interface LeadAgentHooks {
  agentEnabled: boolean;
  /** Disposal cancels the Lead's turn and stops its subagents (disposal.ts). */
  cancelTurn(): void;
  stopSubagents(): Promise<void>;
}

export function createLeadOperations(ctx: LeadContext, roster: Roster, mailbox: Mailbox, budgets: Budgets, agent: LeadAgentHooks) {
  const { run } = ctx;
  const op = (definition: { name: string }, check: LeadOperation['check'], perform: LeadOperation['perform']): LeadOperation => {
    const descriptor = leadUpdate(definition.name);
    if (!descriptor) throw new TypeError(`${definition.name} has no descriptor in shared/contract/updates.ts`);
    const { gate, idempotent, counted, reproducedWhenDeferred } = descriptor;
    return { definition: descriptor.definition, gate, idempotent, counted, read: reproducedWhenDeferred, check, perform };
  };

  // The handler decides again rather than take the validator's verdict: a replay runs no validator,
  // so the handler must derive its events from the state alone (docs/development.md).
  const taskOperation = (kind: TaskCommandKind, definition: { name: string }): LeadOperation => {
    const decide = (request: unknown) => {
      const { caller, command } = parseTaskCommand(kind, request);
      return decideTask(run.state.team, command, { caller, now: ctx.now() });
    };
    return op(
      definition,
      (request) => run.require(decide(request)),
      (request, _id, done) => {
        const decision = decide(request);
        run.commit(decision);
        return done(mutationResult(run.state.team, (decision as { taskId: number }).taskId));
      },
    );
  };

  const readTask = (request: unknown) => {
    const parsed = parseWith('readTask', readTaskRequestSchema, request);
    run.require(decideReadTask(run.state, parsed));
    return parsed;
  };

  const checkPrompt = (request: unknown) => {
    const prompt = parsePrompt(request);
    run.require(decidePrompt(run.state, prompt, agent.agentEnabled));
    return prompt;
  };

  const disposal = createDisposal(ctx, agent);

  const operations: LeadOperation[] = [
    taskOperation('createTask', contract.createTaskUpdate),
    taskOperation('editTask', contract.editTaskUpdate),
    taskOperation('claimTask', contract.claimTaskUpdate),
    taskOperation('assignTask', contract.assignTaskUpdate),
    taskOperation('releaseTask', contract.releaseTaskUpdate),
    taskOperation('transitionTask', contract.transitionTaskUpdate),
    taskOperation('deleteTask', contract.deleteTaskUpdate),
    op(
      contract.readTaskUpdate,
      (request) => void readTask(request),
      (request) => {
        const { taskId } = readTask(request);
        const task = own(run.state.team.tasks, taskKey(taskId));
        return task ? taskView(run.state.team, task) : undefined;
      },
    ),
    op(
      contract.listTasksUpdate,
      (request) => run.require(decideRead(run.state, parseWith('listTasks', callerOnlySchema, request).caller)),
      () => teamView(run.state.team).tasks,
    ),
    op(
      contract.listTasksPageUpdate,
      (request) => run.require(decideRead(run.state, parseWith('listTasksPage', listTasksPageRequestSchema, request).caller)),
      (request) => {
        const { after, maxBytes } = parseWith('listTasksPage', listTasksPageRequestSchema, request);
        return boardPage(teamView(run.state.team).tasks, after, maxBytes);
      },
    ),
    op(
      contract.spawnTeammateUpdate,
      (request) => void roster.checkSpawn(request),
      (request, _id, done) => roster.spawn(request, done),
    ),
    op(
      contract.sendMessageUpdate,
      (request, id) => void mailbox.checkSend(request, id),
      (request, id, done) => mailbox.send(request, id, done),
    ),
    op(
      contract.readLeadInboxUpdate,
      (request) => mailbox.checkReadLeadInbox(request),
      () => mailbox.takeLeadInbox(),
    ),
    op(
      contract.interruptTeammateUpdate,
      (request) => void roster.checkInterrupt(request),
      (request) => roster.interrupt(request),
    ),
    op(
      contract.waitForEdgeUpdate,
      (request) => void mailbox.checkWait(request),
      (request) => mailbox.wait(request),
    ),
    op(
      contract.promptLeadUpdate,
      (request) => void checkPrompt(request),
      (request, id, done): InboxAcceptance => {
        const prompt = checkPrompt(request);
        const messageId = prompt.messageId ?? id;
        run.apply(receiveForLead({ messageId, from: PROMPT_SENDER, content: prompt.content, sentAt: ctx.now() }));
        return done<InboxAcceptance>({ messageId, to: LEAD, targetPhase: 'lead', targetStatus: 'running' });
      },
    ),
    op(
      contract.setBudgetUpdate,
      (request) => void budgets.check(request),
      (request, _id, done) => budgets.set(request, done),
    ),
    op(
      contract.disposeTeamUpdate,
      (request) => run.require(decideLeadOnly(parseWith('disposeTeam', callerOnlySchema, request).caller, 'disposeTeam')),
      // Closes admission in the activation that accepts it, then aborts what can be aborted; runs
      // recorded before that order replay theirs (both in disposal.ts).
      () => disposal.dispose(),
    ),
  ];

  const byName: Record<string, LeadOperation> = Object.create(null) as Record<string, LeadOperation>;
  for (const operation of operations) byName[operation.definition.name] = operation;

  /** What a validator runs: the rollover gate, a retry answered from memory, then the operation's own check. */
  const validate = (operation: LeadOperation, request: unknown, updateId: string, gateClosed: (gate: Gate) => boolean): void => {
    if (gateClosed(operation.gate)) throw rollingOverFailure();
    if (operation.idempotent && run.remembered(updateId) !== undefined) return;
    operation.check(request, updateId);
  };

  /** A non-idempotent operation's handler work before `perform`: the check again, and the count. */
  const admit = (operation: LeadOperation, request: unknown, operationId: string): void => {
    operation.check(request, operationId);
    if (operation.counted) run.countAccepted();
  };

  /** What a handler (or the Lead's own tool) runs. Synchronous operations stay synchronous: they complete in the activation that accepts them. */
  const execute = (operation: LeadOperation, request: unknown, operationId: string): unknown => {
    if (!operation.idempotent) {
      admit(operation, request, operationId);
      return operation.perform(request, operationId, asIs);
    }
    const remembered = run.remembered(operationId);
    if (remembered !== undefined) return remembered;
    // Remembered (an `updateRemembered` event through run.apply, after the operation's own events:
    // see LeadRun.remember) and counted in the step that produces the result.
    return operation.perform(request, operationId, <T>(result: T): T => {
      run.remember(operationId, result);
      if (operation.counted) run.countAccepted();
      return result;
    });
  };

  /** A read's result as of now, for a result that waited for a later workflow task: no check, no count (both were done). */
  const reproduce = (operation: LeadOperation, request: unknown, operationId: string): unknown => operation.perform(request, operationId, asIs);

  return { operations, validate, admit, execute, reproduce, find: (name: string): LeadOperation | undefined => own(byName, name) };
}

export type LeadOperations = ReturnType<typeof createLeadOperations>;

const asIs = <T>(result: T): T => result;
