/**
 * The Lead's durable state as one plain value: the Team (roster and board), the Lead's own inbox,
 * the numbered edges waits wake on, members' live status and delivery counts, teammates' pending
 * watches, and the Updates it remembers for retries. It changes only through `applyLead`
 * (apply.ts) and is carried across continue-as-new as it is.
 */
import type { BudgetLimits, LiveStatus, UsageTotals, LegacyMailbox, EdgeKind } from '../contract';
import type { InboxState } from '../team/inbox';
import { emptyInbox } from '../team/inbox';
import type { TeamState } from '../team';
import { admitLegacyMailbox, emptyTeamState } from '../team';
import type { EdgeLog } from '../team/edges';
import { emptyEdgeLog } from '../team/edges';
import type { OperationFailure } from '../contract/agentTeamView';

/**
 * The `from` of a prompt to the Lead agent (the start's prompt, promptLead): a user turn, not a
 * record of the Team. Not a caller: whoever prompts (the operator, "@operator") is checked as the
 * Update's caller; the prompt itself reads as the user's, as it always has.
 */
export const PROMPT_SENDER = 'user';

/** A remembered Update: its whole result when small, else (task mutations) the task id and revision it produced. */
export interface RecentUpdate {
  updateId: string;
  result?: unknown;
  taskId?: number;
  revision?: number;
}

/** A teammate's wait_agent: woken by the first edge of its kinds numbered after `since`. */
export interface EdgeWatcher {
  waitId: string;
  kinds: EdgeKind[];
  since: number;
  /** Its own status edges wake it not (watches that say when their call began: see `watcherOf` in apply.ts). */
  skipsOwnStatus?: true;
}

export interface LeadState {
  /** The roster and the task board (shared/team). */
  team: TeamState;
  /** Messages addressed to the Lead itself. */
  leadInbox: InboxState;
  edges: EdgeLog;
  /** Each member's live status as it last reported it (advisory, not roster state). */
  liveStatus: Record<string, LiveStatus>;
  /** Historical mailbox records imported at the first run: validated, never delivered. */
  legacyMailbox: LegacyMailbox;
  /** Recently applied Update ids and their results, so a retried Update is answered, never re-applied. */
  recentUpdates: RecentUpdate[];
  continuedRuns: number;
  /** Per teammate: messages relayed into its inbox (the initial message is relay 1). */
  delivered: Record<string, number>;
  /** Per teammate: messages its turns took, as members before `settled` reported it. */
  consumed: Record<string, number>;
  /** Per teammate: relays it reported settled (taken into a turn or dropped), on its own word. */
  settled: Record<string, number>;
  /** Per teammate: the sizes of relays it has not settled yet, oldest first (counted against its inbox's size limit). */
  unsettledBytes: Record<string, number[]>;
  /** Teammates waiting for an edge (wait_agent), by member name. */
  watchers: Record<string, EdgeWatcher>;
  /** The last operation a caller reported refused; null until one is. */
  lastFailure: OperationFailure | null;
  /** Per teammate: what its model calls used, as its latest status report said (members report after every turn). */
  memberUsage: Record<string, UsageTotals>;
  /** Budgets setBudget replaced, by name ("lead" for the Lead agent's): they override the Team's. */
  budgetOverrides: Record<string, BudgetLimits>;
}

export function emptyLeadState(teamId: string, maxMembers: number | undefined, legacyMailbox?: unknown[]): LeadState {
  return {
    team: emptyTeamState(teamId, maxMembers),
    leadInbox: emptyInbox(),
    edges: emptyEdgeLog(),
    liveStatus: {},
    legacyMailbox: admitLegacyMailbox(legacyMailbox),
    recentUpdates: [],
    continuedRuns: 0,
    delivered: {},
    consumed: {},
    settled: {},
    unsettledBytes: {},
    watchers: {},
    lastFailure: null,
    memberUsage: {},
    budgetOverrides: {},
  };
}

/**
 * A carried state as a run of any earlier version wrote it: the Team was once carried as `state`,
 * and the delivery counts and watches were added later. Runs in flight when a worker is upgraded
 * continue as new with that shape, so it is read here once and carried in the current shape on.
 */
export type CarriedLeadStateV1 = Omit<LeadState, 'team' | 'delivered' | 'consumed' | 'settled' | 'unsettledBytes' | 'watchers' | 'lastFailure'> & {
  state: TeamState;
} & Partial<Pick<LeadState, 'delivered' | 'consumed' | 'settled' | 'unsettledBytes' | 'watchers'>>;

/** A carried state written before `lastFailure` or `memberUsage` existed. */
export type CarriedLeadStateV2 = Omit<LeadState, 'lastFailure' | 'memberUsage' | 'budgetOverrides'> &
  Partial<Pick<LeadState, 'lastFailure' | 'memberUsage' | 'budgetOverrides'>>;

export function upgradeCarriedLeadState(carried: CarriedLeadStateV2 | CarriedLeadStateV1): LeadState {
  if ('team' in carried) {
    if (carried.lastFailure !== undefined && carried.memberUsage !== undefined && carried.budgetOverrides !== undefined) return carried as LeadState;
    return { ...carried, lastFailure: carried.lastFailure ?? null, memberUsage: carried.memberUsage ?? {}, budgetOverrides: carried.budgetOverrides ?? {} };
  }
  const { state, ...rest } = carried;
  return {
    ...rest,
    team: state,
    delivered: rest.delivered ?? {},
    consumed: rest.consumed ?? {},
    settled: rest.settled ?? {},
    unsettledBytes: rest.unsettledBytes ?? {},
    watchers: rest.watchers ?? {},
    lastFailure: null,
    memberUsage: {},
    budgetOverrides: {},
  };
}
