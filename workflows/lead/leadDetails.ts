/**
 * The Lead's current details in the Web UI: the roster and board summary, and the Lead agent's
 * own turn and step (shared/text/webUi.ts renders them). Rendered only when read
 * (workflows/common/currentDetails.ts), from the state as it is then; this class keeps the one
 * thing the state does not hold, the step the running turn is at.
 */
import { leadDetails } from '../../shared/text/webUi';
import { teamUsageView } from '../../shared/lead/usageView';
import { showCurrentDetails } from '../common/currentDetails';
import type { LeadAgentState } from './agentState';
import type { LeadRun } from './leadRun';

export class LeadDetails {
  private step: string | null = null;

  constructor(
    private readonly run: LeadRun,
    private readonly agent: LeadAgentState,
  ) {
    showCurrentDetails(() => this.render());
  }

  private render(): string {
    const { agent } = this;
    const activity = agent.enabled ? { status: agent.state.status, turn: agent.currentTurn ?? agent.state.turns, step: this.step } : null;
    const usage = teamUsageView({ state: this.run.state, agent: agent.state, leadModel: agent.model, prices: agent.models?.prices });
    return leadDetails(this.run.state, activity, usage);
  }

  /** The step the Lead's running turn is at (runSessionTurn's onStep). */
  onStep(step: string): void {
    this.step = step;
  }
}
