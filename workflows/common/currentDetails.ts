/**
 * Keeps the workflow's current details (the Web UI's "Current Details", the
 * `__temporal_workflow_metadata` query) equal to a text the caller renders (shared/text/webUi.ts).
 * setCurrentDetails is not a command: calling it changes nothing in the history, so it is safe
 * anywhere state changes, on replay too.
 */
import { setCurrentDetails } from '@temporalio/workflow';
import { memberDetails, type MemberActivity } from '../../shared/text/webUi';

export class CurrentDetails {
  private shown: string | null = null;

  show(text: string): void {
    if (text === this.shown) return;
    this.shown = text;
    setCurrentDetails(text);
  }
}

/** A teammate's or subagent's current details: its live status, its turn and the step the turn is at. */
export class MemberDetails {
  private readonly details = new CurrentDetails();
  private activity: MemberActivity;

  constructor(turns: number) {
    this.activity = { status: 'idle', turn: turns, step: null };
    this.details.show(memberDetails(this.activity));
  }

  status(status: MemberActivity['status'], turn: number): void {
    this.activity = { status, turn, step: null };
    this.details.show(memberDetails(this.activity));
  }

  step(step: string): void {
    this.activity = { ...this.activity, step };
    this.details.show(memberDetails(this.activity));
  }
}
