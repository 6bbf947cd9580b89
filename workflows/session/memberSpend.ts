/**
 * A session's spend: what its recorded model calls used, the budget it runs under (its input's, or
 * the latest setBudget's), and whether the Lead was told that the budget stopped it. Plain data and
 * pure checks (shared/agent/usage.ts, shared/agent/spend.ts), carried across continue-as-new.
 */
import { NO_MEMBER_USAGE, addActiveTime, callUsage, recordCall } from '../../shared/agent/usage';
import { spendExhaustion } from '../../shared/agent/spend';
import type { BudgetExhaustion, MemberBudget } from '../../shared/contract/budgets';
import type { ModelCallAnswer } from '../../shared/contract/signals';
import type { ModelUsage } from '../../shared/contract/model';
import type { MemberUsage } from '../../shared/contract/usage';
import type { CarriedTeammateState } from '../../shared/session/carried';

export type CarriedSpend = Pick<CarriedTeammateState, 'usage' | 'exhaustionReported' | 'budget' | 'teamStop'>;

export class MemberSpend {
  usage: MemberUsage;
  /** Whether the Lead was told that a budget stopped this member (once per stop). */
  private exhaustionReported: boolean;
  /** The budget the Lead's latest setBudget gave it; null: its input's. */
  private override: MemberBudget | null;
  /** When the running turn began (workflow time, ms); null between turns. A turn never spans runs. */
  private turnStartedAt: number | null = null;
  /** The Team budget's refusal that stopped it (its mail waits), until the Lead grants a call again. */
  private teamStop: BudgetExhaustion | null;
  /** The Lead's latest answer to a modelCallRequest, keyed by the calls it had recorded when it asked. */
  private teamAnswer: ModelCallAnswer | null = null;

  constructor(
    private readonly inputBudget: MemberBudget | undefined,
    carried: CarriedSpend | undefined,
  ) {
    this.usage = carried?.usage ?? NO_MEMBER_USAGE;
    this.exhaustionReported = carried?.exhaustionReported ?? false;
    this.override = carried?.budget ?? null;
    this.teamStop = carried?.teamStop ?? null;
  }

  /** The budget it runs under now. */
  get budget(): MemberBudget | undefined {
    return this.override ?? this.inputBudget;
  }

  /** The Lead's setBudget: the new budget applies from the next check; a new stop is reported again. */
  setBudget(budget: MemberBudget): 'applied' {
    this.override = budget;
    this.exhaustionReported = false;
    return 'applied';
  }

  /** A model call's result was recorded in this run's history: its usage counts once, in `turn`. */
  recordCall(turn: number, usage: ModelUsage | undefined): void {
    this.usage = recordCall(this.usage, turn, callUsage(usage));
  }

  turnBegan(now: number): void {
    this.turnStartedAt = now;
  }

  /** The turn's time counts as active time. */
  turnEnded(now: number): void {
    if (this.turnStartedAt !== null) this.usage = addActiveTime(this.usage, now - this.turnStartedAt);
    this.turnStartedAt = null;
  }

  /** The budget that keeps the member from beginning another turn, after `turns` of them; null: none does. */
  stopBeforeTurn(turns: number): BudgetExhaustion | null {
    return spendExhaustion(this.budget, this.usage.total, turns, this.usage.activeMs ?? 0) ?? this.teamStop;
  }

  /**
   * The Lead's answer to a modelCallRequest (the modelCallAnswer signal). Answers to an earlier
   * request (fewer calls) are stale and ignored; a grant lifts a Team stop, a refusal sets one.
   */
  answerFromLead(answer: ModelCallAnswer): 'applied' | 'unknownKey' {
    if (answer.calls < this.usage.total.calls) return 'unknownKey';
    this.teamAnswer = answer;
    if (answer.exhaustion === null) {
      this.teamStop = null;
    } else if (!this.teamStop) {
      this.teamStop = answer.exhaustion;
      this.exhaustionReported = false;
    }
    return 'applied';
  }

  /** The Lead's answer for the next call (made at the calls recorded now), or undefined while it has not come. */
  answerForNextCall(): ModelCallAnswer | undefined {
    return this.teamAnswer !== null && this.teamAnswer.calls === this.usage.total.calls ? this.teamAnswer : undefined;
  }

  hasAnswerForNextCall(): boolean {
    return this.answerForNextCall() !== undefined;
  }

  /** Takes the Lead's answer for the next call (each answer lets one call through): null, granted; else the Team's exhaustion. */
  takeAnswer(): BudgetExhaustion | null {
    const answer = this.answerForNextCall();
    this.teamAnswer = null;
    return answer?.exhaustion ?? null;
  }

  /** Checked before each model call of a running turn (at `now`): the turn itself may run on, its calls may not. */
  checkInTurn(now: number): BudgetExhaustion | null {
    const running = this.turnStartedAt === null ? 0 : Math.max(0, now - this.turnStartedAt);
    return spendExhaustion(this.budget, this.usage.total, null, (this.usage.activeMs ?? 0) + running);
  }

  hasUnreportedStop(turns: number): boolean {
    return !this.exhaustionReported && this.stopBeforeTurn(turns) !== null;
  }

  /** The stop to tell the Lead about, once: the report that carries it marks it told. */
  takeUnreportedStop(turns: number): BudgetExhaustion | undefined {
    if (this.exhaustionReported) return undefined;
    const stop = this.stopBeforeTurn(turns);
    if (stop) this.exhaustionReported = true;
    return stop ?? undefined;
  }

  carry(): CarriedSpend {
    return {
      usage: this.usage,
      exhaustionReported: this.exhaustionReported,
      ...(this.override ? { budget: this.override } : {}),
      ...(this.teamStop ? { teamStop: this.teamStop } : {}),
    };
  }
}
