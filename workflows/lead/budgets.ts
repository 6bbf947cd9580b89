/**
 * setBudget's work: decide (shared/lead/budgetDecide.ts), record the new limits, and tell the
 * teammate (a `budgetChanged` signal with its model's price), or the Lead agent, whose budget is
 * read from the state at every check. A member its budget stopped goes on once the new one allows.
 */
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import * as contract from '../../shared/contract';
import type { MemberBudget, SetBudgetResult } from '../../shared/contract';
import { setBudgetRequestSchema } from '../../shared/contract/requests';
import { memberBudget } from '../../shared/agent/spend';
import { LEAD } from '../../shared/contract/callers';
import { currentLimits, decideSetBudget, parseWith, type BudgetContext } from '../../shared/lead';
import { own } from '../../shared/util/own';
import type { LeadContext } from './context';

export function createBudgets(ctx: LeadContext, leadModel: string | null | undefined) {
  const { run, input } = ctx;
  const budgetContext: BudgetContext = { budgets: input.budgets, models: input.models, leadModel };

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
    if (name !== LEAD && member) {
      const signalled: MemberBudget = memberBudget(budget, member.model, input.models?.prices) ?? { limits: budget };
      await getExternalWorkflowHandle(member.workflowId).signal(contract.budgetChangedSignal, signalled);
    }
    return done({ name, budget, previous });
  };

  /** The Lead agent's budget as of now: the last setBudget's limits, else the Team's, with its model's price. */
  const leadBudget = (): MemberBudget | undefined =>
    memberBudget(currentLimits(run.state, LEAD, input.budgets) ?? undefined, leadModel ?? null, input.models?.prices);

  return { check, set, leadBudget };
}

export type Budgets = ReturnType<typeof createBudgets>;
