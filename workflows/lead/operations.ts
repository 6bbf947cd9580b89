/**
 * The table of the Lead's operations: one entry per Update, used both by the Update handlers
 * (operators, teammates' tool activities) and by the Lead agent's own Team tools, which run inside
 * this workflow. So every path parses, decides, refuses during a rollover and answers retries the
 * same way, and produces the same history.
 */
import type { UpdateDefinition } from '@temporalio/common';
import * as contract from '../../shared/contract';
import { LEAD_UPDATE_REGISTRY, type LeadUpdateName, type LeadUpdateRequest, type LeadUpdateResult, type UpdateGate } from '../../shared/contract/updates';
import type { InboxAcceptance, TaskCommandKind, TaskMutationResult } from '../../shared/contract';
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

/** How an operation hands back its result, so the table remembers it in the step that produces it. */
type Done = <T>(result: T) => T;

/**
 * An Update's registry entry (shared/contract/updates.ts: its gate, idempotency, counting,
 * deferral) with the Lead's own work for it, typed by the Update's result.
 */
export interface LeadOperation<Ret, Req, Name extends LeadUpdateName> {
  definition: UpdateDefinition<Ret, [Req], Name>;
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
  perform(request: unknown, operationId: string, done: Done): Ret | Promise<Ret>;
}

/** One operation per Update of the registry, each typed by its entry: a missing, extra or mistyped one does not compile. */
export type LeadOperationTable = { [K in LeadUpdateName]: LeadOperation<LeadUpdateResult<K>, LeadUpdateRequest<K>, K> };
/** Any one of the Lead's operations. */
export type AnyLeadOperation = LeadOperationTable[LeadUpdateName];
/** What validating and running an operation needs of it, whatever its Update; `Ret` its result. */
type Runnable<Ret> = Pick<LeadOperation<Ret, unknown, LeadUpdateName>, 'gate' | 'idempotent' | 'counted' | 'check' | 'perform'>;

export interface LeadAgentHooks {
  agentEnabled: boolean;
  /** Disposal cancels the Lead's turn and stops its subagents (disposal.ts). */
  cancelTurn(): void;
  stopSubagents(): Promise<void>;
}

export function createLeadOperations(ctx: LeadContext, roster: Roster, mailbox: Mailbox, budgets: Budgets, agent: LeadAgentHooks) {
  const { run } = ctx;
  const op = <Ret, Req, Name extends LeadUpdateName>(
    definition: UpdateDefinition<Ret, [Req], Name>,
    check: (request: unknown, operationId: string) => void,
    perform: (request: unknown, operationId: string, done: Done) => Ret | Promise<Ret>,
  ): LeadOperation<Ret, Req, Name> => {
    const { gate, idempotent, counted, reproducedWhenDeferred } = LEAD_UPDATE_REGISTRY[definition.name];
    return { definition, gate, idempotent, counted, read: reproducedWhenDeferred, check, perform };
  };

  // The handler decides again rather than take the validator's verdict: a replay runs no validator,
  // so the handler must derive its events from the state alone (docs/development.md).
  const taskOperation = <Req, Name extends TaskCommandKind>(definition: UpdateDefinition<TaskMutationResult, [Req], Name>) => {
    const decide = (request: unknown) => {
      const { caller, command } = parseTaskCommand(definition.name, request);
      return decideTask(run.state.team, command, { caller, now: ctx.now() });
    };
    return op(
      definition,
      (request) => run.require(decide(request)),
      (request, _id, done) => {
        const decision = decide(request);
        run.commit(decision);
        // commit threw for a refusal: the decision here is the accepted one, with its task's id.
        return done(mutationResult(run.state.team, decision.ok ? decision.taskId : 0));
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

  // Handlers are registered in this order (teamLead.ts), which decides the order a first activation's
  // buffered Updates run in: keep it.
  const table: LeadOperationTable = {
    createTask: taskOperation(contract.createTaskUpdate),
    editTask: taskOperation(contract.editTaskUpdate),
    claimTask: taskOperation(contract.claimTaskUpdate),
    assignTask: taskOperation(contract.assignTaskUpdate),
    releaseTask: taskOperation(contract.releaseTaskUpdate),
    transitionTask: taskOperation(contract.transitionTaskUpdate),
    deleteTask: taskOperation(contract.deleteTaskUpdate),
    readTask: op(
      contract.readTaskUpdate,
      (request) => void readTask(request),
      (request) => {
        const { taskId } = readTask(request);
        const task = own(run.state.team.tasks, taskKey(taskId));
        // readTask's decide refused a task that is not on the board; a task there is always found.
        if (!task) throw new TypeError(`task ${taskId} passed readTask's check and is not on the board`);
        return taskView(run.state.team, task);
      },
    ),
    listTasks: op(
      contract.listTasksUpdate,
      (request) => run.require(decideRead(run.state, parseWith('listTasks', callerOnlySchema, request).caller)),
      () => teamView(run.state.team).tasks,
    ),
    listTasksPage: op(
      contract.listTasksPageUpdate,
      (request) => run.require(decideRead(run.state, parseWith('listTasksPage', listTasksPageRequestSchema, request).caller)),
      (request) => {
        const { after, maxBytes } = parseWith('listTasksPage', listTasksPageRequestSchema, request);
        return boardPage(teamView(run.state.team).tasks, after, maxBytes);
      },
    ),
    spawnTeammate: op(
      contract.spawnTeammateUpdate,
      (request) => void roster.checkSpawn(request),
      (request, _id, done) => roster.spawn(request, done),
    ),
    sendMessage: op(
      contract.sendMessageUpdate,
      (request, id) => void mailbox.checkSend(request, id),
      (request, id, done) => mailbox.send(request, id, done),
    ),
    readLeadInbox: op(
      contract.readLeadInboxUpdate,
      (request) => mailbox.checkReadLeadInbox(request),
      () => mailbox.takeLeadInbox(),
    ),
    interruptTeammate: op(
      contract.interruptTeammateUpdate,
      (request) => void roster.checkInterrupt(request),
      (request) => roster.interrupt(request),
    ),
    waitForEdge: op(
      contract.waitForEdgeUpdate,
      (request) => void mailbox.checkWait(request),
      (request) => mailbox.wait(request),
    ),
    promptLead: op(
      contract.promptLeadUpdate,
      (request) => void checkPrompt(request),
      (request, id, done): InboxAcceptance => {
        const prompt = checkPrompt(request);
        const messageId = prompt.messageId ?? id;
        run.apply(receiveForLead({ messageId, from: PROMPT_SENDER, content: prompt.content, sentAt: ctx.now() }));
        return done<InboxAcceptance>({ messageId, to: LEAD, targetPhase: 'lead', targetStatus: 'running' });
      },
    ),
    setBudget: op(
      contract.setBudgetUpdate,
      (request) => void budgets.check(request),
      (request, _id, done) => budgets.set(request, done),
    ),
    disposeTeam: op(
      contract.disposeTeamUpdate,
      (request) => run.require(decideLeadOnly(parseWith('disposeTeam', callerOnlySchema, request).caller, 'disposeTeam')),
      // Closes admission in the activation that accepts it, then aborts what can be aborted; runs
      // recorded before that order replay theirs (both in disposal.ts).
      () => disposal.dispose(),
    ),
  };
  const operations: readonly AnyLeadOperation[] = Object.values(table);

  const byName: ReadonlyMap<string, AnyLeadOperation> = new Map(Object.entries(table));

  /** What a validator runs: the rollover gate, a retry answered from memory, then the operation's own check. */
  const validate = (operation: Runnable<unknown>, request: unknown, updateId: string, gateClosed: (gate: Gate) => boolean): void => {
    if (gateClosed(operation.gate)) throw rollingOverFailure();
    if (operation.idempotent && run.remembered(updateId) !== undefined) return;
    operation.check(request, updateId);
  };

  /** A non-idempotent operation's handler work before `perform`: the check again, and the count. */
  const admit = (operation: Runnable<unknown>, request: unknown, operationId: string): void => {
    operation.check(request, operationId);
    if (operation.counted) run.countAccepted();
  };

  /** What a handler (or the Lead's own tool) runs. Synchronous operations stay synchronous: they complete in the activation that accepts them. */
  const execute = <Ret>(operation: Runnable<Ret>, request: unknown, operationId: string): Ret | Promise<Ret> => {
    if (!operation.idempotent) {
      admit(operation, request, operationId);
      return operation.perform(request, operationId, asIs);
    }
    const remembered = run.remembered<Ret>(operationId);
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
  const reproduce = <Ret>(operation: Runnable<Ret>, request: unknown, operationId: string): Ret | Promise<Ret> => operation.perform(request, operationId, asIs);

  return { table, operations, validate, admit, execute, reproduce, find: (name: string): AnyLeadOperation | undefined => byName.get(name) };
}

export type LeadOperations = ReturnType<typeof createLeadOperations>;

/** A read's result as its operation produced it: reads await nothing, so it is never a promise. */
export function synchronous<T>(name: string, result: T | Promise<T>): T {
  if (result instanceof Promise) throw new TypeError(`${name} is a read and produced its result asynchronously`);
  return result;
}

const asIs = <T>(result: T): T => result;
