/**
 * The closed union of everything that changes the Lead's state: the Team's own events (roster and
 * board, shared/team/events.ts) and the Lead's mailbox, delivery, status, watch and memory events.
 */
import type { BudgetLimits, LiveStatus, UsageTotals, InboxMessage, OperationFailure, EdgeKind } from '../contract';
import type { TeamEvent } from '../team';

export type LeadEvent =
  | TeamEvent
  /** A message into the Lead's own inbox (a teammate's send, the operator's prompt, a runtime nudge). */
  | { type: 'leadMailReceived'; message: InboxMessage }
  /** The Lead took every pending message (its turn or readLeadInbox). */
  | { type: 'leadInboxTaken' }
  /** A teammate became active: its initial message is relay 1, unsettled until it takes it. */
  | { type: 'memberInboxOpened'; name: string; initialMessageBytes: number }
  /** A relay to a teammate is reserved before its signal goes out: unsettled from now on. */
  | { type: 'relayBegun'; to: string; bytes: number }
  /** The relay's signal failed: the target never got it. */
  | { type: 'relayAbandoned'; to: string; bytes: number }
  /** The relay's signal is in the target's history. */
  | { type: 'messageRelayed'; messageId: string }
  | {
      type: 'memberStatusReported';
      name: string;
      status: LiveStatus;
      consumed?: number | undefined;
      settled?: number | undefined;
      /** The member's usage so far, on its own word: kept when it counts at least the calls already kept. */
      usage?: UsageTotals | undefined;
    }
  /** A teammate's usage so far, sent with its modelCallRequest under a Team budget: kept as a report's is. */
  | { type: 'memberUsageReported'; name: string; usage: UsageTotals }
  /** The Lead agent's own status (running, waiting, answered...): an edge like any member's. */
  | { type: 'leadStatusChanged'; status: string }
  | { type: 'watchRegistered'; name: string; waitId: string; kinds: EdgeKind[]; callStartedAt?: string }
  | { type: 'watchCleared'; name: string }
  | { type: 'updateRemembered'; updateId: string; result: unknown }
  /** setBudget: the limits `name` (a teammate, or "lead") runs under from now on. */
  | { type: 'budgetSet'; name: string; limits: BudgetLimits }
  /** A caller reported that the Lead refused one of its operations: shown beside the unchanged state. */
  | { type: 'operationRejected'; failure: OperationFailure };

export type LeadEventType = LeadEvent['type'];

/** The Team's own event types: applied by the Team core, one roster or task edge each. */
const TEAM_EVENT_TYPES: ReadonlySet<string> = new Set<TeamEvent['type']>([
  'taskCreated',
  'taskEdited',
  'taskClaimed',
  'taskAssigned',
  'taskReleased',
  'taskStatusChanged',
  'taskDeleted',
  'memberProvisioning',
  'memberActivated',
  'memberFailed',
  'memberStopped',
  'admissionClosed',
]);

export function isTeamEvent(event: LeadEvent): event is TeamEvent {
  return TEAM_EVENT_TYPES.has(event.type);
}
