/**
 * The Lead's current details in the Web UI: the roster and board summary, and the Lead agent's
 * own turn and step (shared/text/webUi.ts renders them). Refreshed after every applied event and every
 * step of a Lead turn; setCurrentDetails is not a command, so this changes no history.
 */
import { leadDetails } from '../../shared/text/webUi';
import { teamUsageView } from '../../shared/lead/usageView';
import { CurrentDetails } from '../common/currentDetails';
import type { LeadAgentState } from './agentState';
import type { LeadRun } from './leadRun';

export class LeadDetails {
  private readonly details = new CurrentDetails();
  private step: string | null = null;

  constructor(
    private readonly run: LeadRun,
    private readonly agent: LeadAgentState,
  ) {}

  refresh(): void {
    const { agent } = this;
    const activity = agent.enabled ? { status: agent.state.status, turn: agent.currentTurn ?? agent.state.turns, step: this.step } : null;
    const usage = teamUsageView({ state: this.run.state, agent: agent.state, leadModel: agent.model, prices: agent.models?.prices });
    this.details.show(leadDetails(this.run.state, activity, usage));
  }

  /** The step the Lead's running turn is at (runSessionTurn's onStep). */
  onStep(step: string): void {
    this.step = step;
    this.refresh();
  }
}
