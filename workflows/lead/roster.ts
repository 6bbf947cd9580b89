/**
 * The roster's operations with effects outside the Lead: spawning a teammate (record, child,
 * settle), recovering provisioning records from the children's own state, interrupting a turn and
 * disposing of the Team. The decisions are the pure core's (shared/lead/decide.ts).
 */
import { resolveModel } from '../../shared/contract/modelNames';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { getExternalWorkflowHandle, isCancellation, log } from '@temporalio/workflow';
import * as contract from '../../shared/contract';
import type { InterruptResult, ReconcileOutcome, SpawnTeammateResult, TeammateDescriptor, InboxMessage, MemberRecord } from '../../shared/contract';
import { errorMessage, innermostMessage } from '../../shared/util/errors';
import { PROVISIONING_CONFLICT, answerFailure, rejectionFailure } from '../../shared/contract/failures';
import { decideInterrupt, decideSettle, decideSpawnTeammate, decideStop, messageBytes, parseSpawn, parseWith, unsettledProvisioning } from '../../shared/lead';
import { MAX_STATUS_TEXT_LENGTH } from '../../shared/contract/limits';
import { RESERVED_ID_TAKEN } from '../../shared/contract/reservedIds';
import { own } from '../../shared/util/own';
import { interruptRequestSchema } from '../../shared/contract/requests';
import { control, memberSearchAttributes, startSessionChild } from './children';
import type { LeadContext } from './context';
import { memberBudget, withBudget } from '../../shared/agent/spend';
import { LEAD } from '../../shared/contract';
import { reject } from '../../shared/contract/rejections';

/**
 * What a reconciliation that exhausted its retries settles: the record fails with the reason, and the
 * Lead goes on. Nothing is known about the child then, so nothing is drained here; a failed record
 * stays cleanup-owned (disposal stops it). Cancellation is not giving up: it propagates.
 */
export function reconciliationGaveUp(error: unknown): ReconcileOutcome {
  if (isCancellation(error)) throw error;
  return { phase: 'failed', reason: `reconciliation gave up after its retries: ${innermostMessage(error)}`.slice(0, MAX_STATUS_TEXT_LENGTH), drained: false };
}

export function createRoster(ctx: LeadContext) {
  const { run, input, teamId } = ctx;

  const member = (name: string): MemberRecord => {
    const found = own(run.state.team.members, name);
    if (!found) throw rejectionFailure(reject('UnknownMember', `there is no teammate "${name}"`));
    return found;
  };

  const descriptorOf = (record: MemberRecord): TeammateDescriptor => ({
    teamId,
    name: record.name,
    context: record.context,
    initialMessageId: `${record.workflowId}/initial`,
  });

  /** Settles a record; a creator/recovery disagreement drains the child so no orphan survives. */
  const settle = async (record: MemberRecord, outcome: ReconcileOutcome, initialMessageBytes?: number): Promise<void> => {
    const settled =
      outcome.phase === 'active' ? ({ phase: 'active' } as const) : { phase: 'failed' as const, reason: outcome.reason.slice(0, MAX_STATUS_TEXT_LENGTH) };
    const decision = decideSettle(run.state, record.name, settled, ctx.now(), initialMessageBytes);
    if (!decision.ok && 'conflict' in decision) {
      await control.stopTeammate({ workflowId: record.workflowId });
      throw answerFailure({
        type: PROVISIONING_CONFLICT,
        message:
          `teammate "${record.name}" was settled as ${member(record.name).phase} by recovery while its creation reported ${outcome.phase}; ` +
          `the child was drained, spawn under a new name`,
        nonRetryable: true,
      });
    }
    run.commit(decision);
  };

  const checkSpawn = (request: unknown) => {
    const spawnRequest = parseSpawn(request);
    const decision = decideSpawnTeammate(run.state, spawnRequest, ctx.now(), {
      list: input.models,
      leadModel: input.agent?.model,
      memberBudget: input.budgets?.member,
    });
    run.require(decision);
    return { spawnRequest, decision };
  };

  /** Provisioning record first, then the child with the initial message in its inbox, then active or failed. */
  const spawn = async (request: unknown, done: (result: SpawnTeammateResult) => SpawnTeammateResult): Promise<SpawnTeammateResult> => {
    const { spawnRequest, decision } = checkSpawn(request);
    run.commit(decision);
    const record = member(spawnRequest.name);
    // Inline rather than a wrapper: an extra promise step would reorder this Update's completion against other commands.
    run.beginCreating(record.name);
    try {
      const descriptor = descriptorOf(record);
      // The initial message is the first relayed message (relaySeq 1): the member settles it in its first turn.
      const initialMessage: InboxMessage = {
        messageId: descriptor.initialMessageId,
        from: LEAD,
        content: spawnRequest.message,
        sentAt: ctx.now(),
        relaySeq: 1,
      };
      const checkout = ctx.memberCheckout();
      let outcome: ReconcileOutcome;
      try {
        await startSessionChild({
          workflowType: contract.TEAMMATE_WORKFLOW_TYPE,
          workflowId: record.workflowId,
          input: {
            descriptor,
            model: resolveModel(input.models, spawnRequest.model, input.agent?.model),
            // Fresh children inherit nothing; a fork captures the Lead's completed turns once.
            seed: spawnRequest.context === 'fork' ? ctx.forkSeed() : [],
            initialMessage,
            cwd: checkout.cwd,
            ...(checkout.checkoutTaskQueue !== undefined ? { checkoutTaskQueue: checkout.checkoutTaskQueue } : {}),
            ...(input.teammateMaxTurnsPerRun !== undefined ? { maxTurnsPerRun: input.teammateMaxTurnsPerRun } : {}),
            ...withBudget(
              memberBudget(input.budgets?.member, resolveModel(input.models, spawnRequest.model, input.agent?.model), input.models?.prices),
              input.budgets,
            ),
          },
          memo: { agentTeam: descriptor },
          typedSearchAttributes: memberSearchAttributes({ teamId, name: record.name, role: 'teammate' }),
          identity: {
            teamId,
            name: record.name,
            role: 'teammate',
            context: record.context,
            model: resolveModel(input.models, spawnRequest.model, input.agent?.model),
          },
        });
        outcome = { phase: 'active' };
      } catch (error) {
        // The reserved id is taken (e.g. this Lead was reset after starting it): ask the child.
        if (error instanceof WorkflowExecutionAlreadyStartedError) {
          // A try around the await adds no promise step: the success path completes as before.
          try {
            outcome = await control.reconcileTeammate({ workflowId: record.workflowId, descriptor });
          } catch (reconcileError) {
            outcome = reconciliationGaveUp(reconcileError);
          }
        } else {
          outcome = { phase: 'failed', reason: errorMessage(error), drained: false };
        }
      }
      await settle(record, outcome, messageBytes(spawnRequest.message));
      // Something that is not this Lead's own child holds the reserved id: it was left untouched, the
      // record failed with the reason, and the spawn fails naming the holder.
      if (outcome.phase === 'failed' && outcome.holder !== undefined) {
        throw answerFailure({
          type: RESERVED_ID_TAKEN,
          message: outcome.reason,
          details: [{ holder: outcome.holder, member: member(record.name) }],
          nonRetryable: true,
        });
      }
      return done({ member: member(record.name), initialMessageId: descriptor.initialMessageId });
    } finally {
      run.endCreating(record.name);
    }
  };

  /** Recovery: provisioning records this run did not create (continue-as-new, reset), settled from the child's own state. */
  const recoverProvisioning = (): Promise<unknown> =>
    Promise.all(
      unsettledProvisioning(run.state, (name) => run.creating(name)).map(async (record) => {
        // Recovery never fails the Lead: reconciliation that exhausts its retries settles the record
        // failed with the reason (the try adds no promise step to the path that succeeds).
        let outcome: ReconcileOutcome;
        try {
          outcome = await control.reconcileTeammate({ workflowId: record.workflowId, descriptor: descriptorOf(record) });
        } catch (error) {
          outcome = reconciliationGaveUp(error);
        }
        // Only a record still unsettled is recovery's to settle. If a creator in this run settled it
        // meanwhile, the creator owns any disagreement (it drains and reports ProvisioningConflict).
        if (member(record.name).phase === 'provisioning') await settle(record, outcome);
      }),
    );

  const checkInterrupt = (request: unknown): { name: string } => {
    const parsed = parseWith('interruptTeammate', interruptRequestSchema, request);
    run.require(decideInterrupt(run.state, parsed));
    return parsed;
  };

  const interrupt = async (request: unknown): Promise<InterruptResult> => {
    const { name } = checkInterrupt(request);
    const statusAtInterrupt = own(run.state.liveStatus, name) ?? 'starting';
    await getExternalWorkflowHandle(member(name).workflowId).signal(contract.interruptTurnSignal, { requestedBy: LEAD });
    return { name, statusAtInterrupt };
  };

  let exitsInFlight = 0;
  /**
   * A live member reported that it exited without the Lead stopping it (an operator cancelled it).
   * The report is a signal anyone could send, so the record becomes stopped only once the server
   * confirms that the child has closed; a disposal in progress records its own stops.
   */
  const recordExit = async (name: string): Promise<void> => {
    const record = own(run.state.team.members, name);
    if (!record || record.phase !== 'active' || run.disposing) return;
    exitsInFlight += 1;
    try {
      if (await control.memberClosed({ workflowId: record.workflowId })) run.commit(decideStop(run.state, name, ctx.now()));
    } catch (error) {
      log.warn('could not confirm that a member exited; its record stays active', { name, error: errorMessage(error) });
    } finally {
      exitsInFlight -= 1;
    }
  };

  return {
    checkSpawn,
    recordExit,
    /** Exit confirmations still running; the run waits for them before it ends or continues as new. */
    exitsInFlight: (): number => exitsInFlight,
    spawn,
    recoverProvisioning,
    checkInterrupt,
    interrupt,
    member,
    stopChild: (workflowId: string) => control.stopTeammate({ workflowId }),
  };
}

export type Roster = ReturnType<typeof createRoster>;
