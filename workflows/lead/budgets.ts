/**
 * The Lead's budgets. setBudget's work: decide (shared/lead/budgetDecide.ts), record the new limits,
 * and tell the teammate (a `budgetChanged` signal with its model's price), or the Lead agent, whose
 * budget is read from the state at every check. A member its budget stopped goes on once the new
 * one allows. The Team budget (TEAM_BUDGET): members of a Team that has one ask before each model
 * call (`modelCallRequest`), and are answered from the Team's totals (shared/lead/teamBudgetDecide.ts);
 * raising it answers every member it stopped.
 */
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import * as contract from '../../shared/contract';
import type { MemberBudget, SetBudgetResult } from '../../shared/contract';
import { TEAM_BUDGET, type BudgetExhaustion, type TeamLimits } from '../../shared/contract/budgets';
import type { ModelCallAnswer, ModelCallRequest } from '../../shared/contract/signals';
import { setBudgetRequestSchema } from '../../shared/contract/requests';
import { memberBudget } from '../../shared/agent/spend';
import { LEAD } from '../../shared/contract/callers';
import {
  currentLimits,
  decideModelCallRequest,
  decideSetBudget,
  parseWith,
  teamBudgetStop,
  type BudgetContext,
  type TeamSpendContext,
} from '../../shared/lead';
import type { SignalOutcome } from '../common/handlerGuards';
import type { LeadAgentState } from './agentState';
import { own } from '../../shared/util/own';
import { isLivePhase } from '../../shared/team';
import type { LeadContext } from './context';

export function createBudgets(ctx: LeadContext, agent: LeadAgentState, leadModel: string | null | undefined) {
  const { run, input } = ctx;
  const budgetContext: BudgetContext = { budgets: input.budgets, models: input.models, leadModel };

  /** The Team budget's caps now (the Team's, or the last setBudget's); undefined: the Team has none. */
  const teamLimits = (): TeamLimits | undefined => currentLimits(run.state, TEAM_BUDGET, input.budgets) ?? undefined;
  const teamSpend = (): TeamSpendContext => ({
    state: run.state,
    agent: agent.state,
    limits: teamLimits(),
    leadModel: leadModel ?? null,
    prices: input.models?.prices,
  });
  /** The Team budget used up now (the Lead's own calls check it too), or null. */
  const teamStop = (): BudgetExhaustion | null => teamBudgetStop(teamSpend());
  /** Answers whose signal is still going out: the run does not close (continue-as-new) before they are sent. */
  let answering = 0;
  const answer = async (workflowId: string, answered: ModelCallAnswer): Promise<void> => {
    answering += 1;
    try {
      await getExternalWorkflowHandle(workflowId).signal(contract.modelCallAnswerSignal, answered);
    } catch {
      // A member that has closed meanwhile needs no answer.
    } finally {
      answering -= 1;
    }
  };

  /** A member's modelCallRequest: its totals are recorded, and it is answered from the Team's. */
  const requestCall = (request: ModelCallRequest): SignalOutcome => {
    // Members of a Team without a Team budget never ask: a request is someone else's, ignored.
    if (!input.budgets?.team) return 'unknownKey';
    const decision = decideModelCallRequest(teamSpend(), request);
    if (!decision.ok) return decision.ignored;
    run.apply(decision.teamEvents);
    agent.apply(decision.agentEvents);
    void answer(decision.workflowId, decision.answer);
    return 'applied';
  };

  /** After the operator raised the Team budget: every member the Team budget stopped may call again, at the calls it last reported. */
  const grantAll = async (): Promise<void> => {
    if (teamStop() !== null) return;
    for (const member of Object.values(run.state.team.members)) {
      if (!isLivePhase(member.phase)) continue;
      await answer(member.workflowId, { calls: own(run.state.memberUsage, member.name)?.calls ?? 0, exhaustion: null });
    }
    for (const [agentId, record] of Object.entries(agent.state.subagents)) {
      if (!record.closed) await answer(agentId, { calls: record.usage?.calls ?? 0, exhaustion: null });
    }
  };

  const check = (request: unknown) => {
    const parsed = parseWith('setBudget', setBudgetRequestSchema, request);
    run.require(decideSetBudget(run.state, parsed, budgetContext));
    return parsed;
  };

  const set = async (request: unknown, done: (result: SetBudgetResult) => SetBudgetResult): Promise<SetBudgetResult> => {
    const parsed = check(request);
    const { name, budget } = parsed;
    const previous = currentLimits(run.state, name, input.budgets);
    run.commit(decideSetBudget(run.state, parsed, budgetContext));
    const member = own(run.state.team.members, name);
    if (name === TEAM_BUDGET) await grantAll();
    if (name !== LEAD && member) {
      const signalled: MemberBudget = memberBudget(budget, member.model, input.models?.prices) ?? { limits: budget };
      await getExternalWorkflowHandle(member.workflowId).signal(contract.budgetChangedSignal, signalled);
    }
    return done({ name, budget, previous });
  };

  /** The Lead agent's budget as of now: the last setBudget's limits, else the Team's, with its model's price. */
  const leadBudget = (): MemberBudget | undefined =>
    memberBudget(currentLimits(run.state, LEAD, input.budgets) ?? undefined, leadModel ?? null, input.models?.prices);

  return { check, set, leadBudget, teamLimits, teamStop, requestCall, answersInFlight: () => answering };
}

export type Budgets = ReturnType<typeof createBudgets>;
