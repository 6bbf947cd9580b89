/**
 * The Lead as an agent: turns over its inbox (the operator's prompt and follow-ups, teammates'
 * messages), its Team tools executed inside this workflow through the same operations the Update
 * handlers use, work tools on the checkout's task queue, ordinary subagents in the default profile.
 * After a turn ends with a reply, the Lead waits for required work (busy teammates, unread
 * messages) and is told about open tasks before its final answer is accepted.
 */
import { ApplicationFailure, CancellationScope, condition, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import { runSubagentToolCall, runTeamToolCall } from '../../shared/agent/dispatch';
import { toolsetOf } from '../../shared/agent/profiles';
import type { TeamToolContext } from '../../shared/agent/teamTools';
import type { AgentStatus, Attributed, ConversationEntry } from '../../shared/contract';
import { innermostMessage } from '../../shared/util/errors';
import { turnFailureText } from '../../shared/text/redact';
import { takePending } from '../../shared/team/inbox';
import {
  REQUIRED_WORK_WAIT_MS,
  busyMembers,
  decideAnswer,
  decideActiveTime,
  decideBudgetAnswer,
  decideModelCall,
  openTaskIds,
  decideNudge,
  decideResume,
  decideStartTurn,
  decideStatus,
  decideTurnFailed,
  decideYield,
  leadInboxTaken,
  leadStatusChanged,
  nextStepAfterReply,
  receiveForLead,
} from '../../shared/lead';
import { teamView } from '../../shared/team';
import { MAX_STATUS_TEXT_LENGTH } from '../../shared/contract/limits';
import { workTools } from '../common/agentActivities';
import { runSessionTurn } from '../common/agentTurn';
import { takeAtStepBoundary } from '../../shared/agent/steer';
import { teamIdOfLeadMail, type LeadAgentState } from './agentState';
import type { LeadRun } from './leadRun';
import type { LeadOperations } from './operations';
import { LeadSubagents } from './subagents';
import { keepSearchAttribute } from '../common/searchAttributes';
import { AGENT_TEAM_STATUS } from '../../shared/contract/searchAttributes';
import { spendExhaustion } from '../../shared/agent/spend';
import { NO_USAGE } from '../../shared/agent/usage';
import type { BudgetExhaustion, MemberBudget } from '../../shared/contract/budgets';
import { REPLY_ACROSS_ROLLOVER_PATCH } from '../../shared/contract/patches';
import { LEAD } from '../../shared/contract';

/** Where a yielded Lead turn goes on in the next run. */
export interface ResumeTurn {
  turn: number;
  step: number;
}

export interface LeadAgentDeps {
  run: LeadRun;
  agent: LeadAgentState;
  operations: LeadOperations;
  teamId: string;
  now: () => string;
  closing: () => boolean;
  /** True when the run is rolling over: the Lead's turn stops at its next step boundary and goes on in the next run. */
  yieldForRollover: () => boolean;
  stopChild(workflowId: string): Promise<void>;
  /** Told the step the Lead's turn is at, for the workflow's current details. */
  onStep(step: string): void;
  /** The Lead agent's budget as of now (setBudget may replace it); undefined: none. */
  budget(): MemberBudget | undefined;
  /** The Team budget used up by the Team's totals now, or null: it stops the Lead's calls too. */
  teamStop(): BudgetExhaustion | null;
}

export class LeadAgentRunner {
  private turnScope: CancellationScope | undefined;

  /** The ordinary subagents this Lead started (default profile). */
  readonly subagents: LeadSubagents;

  constructor(private readonly deps: LeadAgentDeps) {
    this.subagents = new LeadSubagents(deps);
  }

  private setStatus(status: AgentStatus): void {
    const { agent, run } = this.deps;
    const events = decideStatus(agent.state, status);
    if (events.length === 0) return;
    agent.apply(events);
    // An edge like any member's status change: waitForEdge wakes, so callers follow the Lead without polling.
    run.apply(leadStatusChanged(status));
    keepSearchAttribute(AGENT_TEAM_STATUS, status);
  }

  /** Disposal cancels a turn in progress. */
  cancelTurn(): void {
    this.turnScope?.cancel();
  }

  /** The Lead's own Team tools: attributed to the Lead, run through the same operations table as the Update handlers. */
  private teamContext(opId: string): TeamToolContext {
    const { run, operations } = this.deps;
    return {
      caller: LEAD,
      update: async <Ret, Req extends Attributed>(definition: UpdateDefinition<Ret, [Req]>, body: Omit<Req, 'caller'>): Promise<Ret> => {
        const operation = operations.find(definition.name);
        if (!operation) throw ApplicationFailure.create({ type: 'UnknownTool', message: `the Lead has no operation ${definition.name}`, nonRetryable: true });
        const result = operations.execute<unknown>(operation, { ...body, caller: LEAD }, opId);
        // A synchronous operation's result is returned as it is: awaiting it would add a promise step and reorder commands.
        return (result instanceof Promise ? await result : result) as Ret;
      },
      roster: () => Promise.resolve({ view: teamView(run.state.team, this.deps.agent.state.status), liveStatus: run.state.liveStatus }),
    };
  }

  /** The Lead's own budget, when it stops it from beginning another turn. */
  private budgetStop(): BudgetExhaustion | null {
    const { agent } = this.deps;
    return (
      spendExhaustion(this.deps.budget(), agent.state.usage?.total ?? NO_USAGE, agent.state.turns, agent.state.usage?.activeMs ?? 0) ?? this.deps.teamStop()
    );
  }

  /** One turn over the Lead's inbox, or the rest of a turn the previous run yielded; a budget that stops it is its outcome. */
  private async turn(resume: ResumeTurn | null): Promise<'done' | 'failed' | 'yielded' | BudgetExhaustion> {
    const { agent, run, teamId } = this.deps;
    const toolset = toolsetOf(agent.profile);
    const checkout = workTools(agent.options?.checkoutTaskQueue ?? workflowInfo().taskQueue);
    let turn: number;
    if (resume) {
      turn = resume.turn;
      agent.resumeTurn(turn);
    } else {
      const { messages } = takePending(run.state.leadInbox);
      run.apply(leadInboxTaken());
      turn = agent.beginTurn(messages, teamId);
    }
    this.setStatus('running');
    agent.apply(decideStartTurn(agent.state));
    const startedAt = Date.now();
    this.turnScope = new CancellationScope();
    try {
      const result = await this.turnScope.run(() =>
        runSessionTurn({
          conversation: () => agent.state.conversation,
          append: (entry) => agent.append(entry),
          turn,
          teamId,
          name: LEAD,
          role: 'lead',
          toolset,
          model: agent.model,
          session: agent.session,
          checkout,
          opIdPrefix: `${teamId}/lead/turn-${turn}`,
          team: (c, id) => runTeamToolCall(c, this.teamContext(id)),
          subagent: (c, id) => runSubagentToolCall(c, this.subagents.context(id)),
          ...(resume ? { firstStep: resume.step } : {}),
          shouldYield: this.deps.yieldForRollover,
          // Steer: mail to the Lead (members' sends, the operator's follow-ups) joins the running turn at its next step boundary.
          steer: { hasPending: () => run.state.leadInbox.pending.length > 0, take: () => this.takeIntoTurn(turn) },
          onStep: (step) => this.deps.onStep(step),
          onModelUsage: (usage) => agent.apply(decideModelCall(agent.state, usage)),
          spendCheck: () =>
            spendExhaustion(this.deps.budget(), agent.state.usage?.total ?? NO_USAGE, null, (agent.state.usage?.activeMs ?? 0) + Date.now() - startedAt) ??
            this.deps.teamStop(),
        }),
      );
      if (result.yieldedAtStep !== undefined) {
        agent.apply(decideYield(agent.state, turn, result.yieldedAtStep));
        return 'yielded';
      }
      return result.budgetExhausted ?? 'done';
    } catch (error) {
      if (isCancellation(error)) {
        agent.note({ event: 'turn cancelled (the Team is being disposed)' });
        return 'done';
      }
      // URL credentials (a MODEL_BASE_URL with user:password@) never reach the note or the view.
      const message = turnFailureText(innermostMessage(error), MAX_STATUS_TEXT_LENGTH);
      agent.note({ event: 'turn failed', error: message });
      agent.apply(decideTurnFailed(agent.state, message));
      this.setStatus('failed');
      return 'failed';
    } finally {
      this.turnScope = undefined;
      agent.turnDone();
      agent.apply(decideActiveTime(agent.state, Date.now() - startedAt));
    }
  }

  /**
   * The Lead's inbox into its running turn. A yield for a rollover comes before this at the same
   * boundary, so mail pending at the rollover is carried in the inbox and taken by the resumed turn.
   */
  private takeIntoTurn(turn: number): void {
    const { run, agent, teamId } = this.deps;
    const take = takeAtStepBoundary(run.state.leadInbox, turn, (m) => teamIdOfLeadMail(m, teamId));
    run.apply(leadInboxTaken());
    agent.takeIntoRunningTurn(take);
  }

  /** Turns until the Team closes; each reply is held back while required work remains (shared/lead/nextStep.ts). */
  async run(): Promise<void> {
    const { agent, run, closing } = this.deps;
    const hasMail = (): boolean => run.state.leadInbox.pending.length > 0;
    // A run that rolled over while the Lead waited for required work goes on waiting.
    let waitingForWork = agent.state.status === 'waiting' && agent.state.resumeTurn === undefined;
    // A run that rolled over just after a turn ended (still 'running', nothing to resume) takes the
    // step after that reply first: the answer, a nudge or a wait. Before the patch it waited for mail.
    let replyPending = agent.state.status === 'running' && agent.state.resumeTurn === undefined && patched(REPLY_ACROSS_ROLLOVER_PATCH);
    const requiredWorkWaitMs = agent.options?.requiredWorkWaitMs ?? REQUIRED_WORK_WAIT_MS;
    for (;;) {
      if (!waitingForWork && !replyPending) {
        // A turn the previous run yielded at a rollover goes on first, before any new mail.
        const resume = agent.state.resumeTurn;
        agent.apply(decideResume(agent.state));
        if (!resume) {
          await condition(() => closing() || hasMail());
          if (closing()) return;
          // Awaited only when a budget stopped it: a Lead without one issues its commands as it always did.
          const stop = this.budgetStop();
          if (stop && !(await this.waitOutBudget(stop))) return;
        }
        const outcome = await this.turn(resume ?? null);
        if (outcome === 'yielded' || closing()) return;
        if (outcome === 'failed') continue; // the next message (a new prompt) starts another turn
        if (outcome !== 'done') {
          // Its budget stopped the turn: the final answer says so, and no nudge or wait follows.
          agent.apply(decideBudgetAnswer(agent.state, outcome, openTaskIds(run.state)));
          this.setStatus('answered');
          continue;
        }
      }
      waitingForWork = false;
      replyPending = false;
      let waitedOut = false;
      for (;;) {
        const step = nextStepAfterReply(run.state, agent.state.nudges, waitedOut, requiredWorkWaitMs);
        if (step.kind === 'turn') break;
        if (step.kind === 'wait') {
          this.setStatus('waiting');
          const woke = await condition(() => closing() || hasMail() || busyMembers(run.state).length === 0, requiredWorkWaitMs);
          if (closing()) return;
          waitedOut = !woke;
          continue;
        }
        if (step.kind === 'nudge') {
          agent.apply(decideNudge(agent.state, step.countsAgainstNudgeLimit));
          this.nudge(step.content);
          break;
        }
        agent.apply(decideAnswer(agent.state, step.openTasks));
        this.setStatus('answered');
        break;
      }
    }
  }

  /**
   * A Lead its budget stopped begins no turn: its answer says why, its mail waits, and it goes on
   * once a setBudget allows. False when the Team closes meanwhile.
   */
  private async waitOutBudget(stop: BudgetExhaustion): Promise<boolean> {
    const { agent, run, closing } = this.deps;
    agent.apply(decideBudgetAnswer(agent.state, stop, openTaskIds(run.state)));
    this.setStatus('answered');
    await condition(() => closing() || this.budgetStop() === null);
    return !closing();
  }

  /** A runtime note that starts another turn (delivered through the Lead's own inbox). */
  private nudge(content: ConversationEntry['content']): void {
    const { run, agent, now } = this.deps;
    run.apply(receiveForLead({ messageId: `${this.deps.teamId}/lead/nudge-${agent.state.turns}-${agent.state.nudges}`, from: LEAD, content, sentAt: now() }));
  }
}
