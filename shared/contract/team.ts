/**
 * The Team's shapes on the wire: tasks and their views, roster records, the Team view, a page of
 * the board, a mutation's result, inbox messages, edges and historical mailbox records. Produced
 * by the core (shared/team, shared/lead), which imports them from here; the wire parses none of
 * them, so they are types only.
 */
import type { JsonValue } from './json';
import type { Admission, AgentStatus, EdgeKind, LiveStatus, MemberContext, MemberPhase, TaskStatus } from './vocabulary';

/** One message in a member's inbox (or the Lead's): the target-side record of a send, kept once per message id. */
export interface InboxMessage {
  messageId: string;
  /** Attributed by the runtime that relayed the send, never by the payload's author. */
  from: string;
  content: JsonValue;
  sentAt: string;
  /** Set by the Lead on each message it relays to a teammate: numbered per target, so the target can settle it. */
  relaySeq?: number;
}

/** One numbered change a wait wakes on (shared/team/edges.ts keeps the log). */
export interface TeamEdge {
  seq: number;
  kind: EdgeKind;
  /** A short description: the event type, message id or member status. */
  subject: string;
  at: string;
}

/** A complete task snapshot: every mutation replaces it whole and raises `revision` by exactly one. */
export interface TaskSnapshot {
  id: number;
  revision: number;
  subject: string;
  description: string;
  status: TaskStatus;
  /** The member name (or `lead`) that owns the task; never the operator. Ownership is durable: nothing releases it implicitly. */
  owner: string | null;
  dependencies: number[];
  /** Normalized relative path prefixes. Advisory only: they produce overlap diagnostics, never locks. */
  writeScopes: string[];
  /** Tombstone flag: deleted tasks still resolve by id but are omitted from lists. */
  deleted: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** A roster record: a teammate's durable phase, context and reserved workflow id. */
export interface MemberRecord {
  name: string;
  phase: MemberPhase;
  context: MemberContext;
  /** The reserved child workflow id (see teammateWorkflowId). */
  workflowId: string;
  model: string | null;
  failure: string | null;
  revision: number;
  createdAt: string;
  updatedAt: string;
}

/** One advisory overlap: `scope` of this task intersects `otherScope` of live task `taskId`. */
export interface WriteScopeOverlap {
  taskId: number;
  scope: string;
  otherScope: string;
}

/** A task as the wire shows it: the snapshot with readiness and overlap diagnostics derived. */
export interface TaskView extends TaskSnapshot {
  ready: boolean;
  /** At most MAX_OVERLAPS_PER_TASK, and fewer in a board view past its overlap limit (VIEW_OVERLAP_MAX_BYTES). */
  overlaps: WriteScopeOverlap[];
  /** Overlaps not listed in `overlaps` (read the task alone to see up to MAX_OVERLAPS_PER_TASK of them). */
  overlapsOmitted: number;
}

/** The Lead pseudo-row: it exists by identity, not as a roster record. */
export interface LeadRow {
  name: 'lead';
  role: 'lead';
  phase: 'active';
  /** The Lead agent's status; null for a Team driven by a client, with no Lead agent. */
  status: AgentStatus | null;
}

/** What the `getTeamView` query returns: the Lead pseudo-row, the roster, and the non-deleted tasks. */
export interface TeamView {
  teamId: string;
  admission: Admission;
  maxMembers: number;
  lead: LeadRow;
  members: MemberRecord[];
  tasks: TaskView[];
  nextTaskId: number;
}

/** One page of the board (listTasksPage). */
export interface TaskPage {
  /** Non-deleted tasks with ids after the cursor, by id. */
  tasks: TaskView[];
  /** The cursor for the next page (the last id here), or null when no task is left after this page. */
  nextAfter: number | null;
}

/** What every task mutation returns: the task as it now is, with readiness and overlap diagnostics. */
export interface TaskMutationResult {
  task: TaskView;
}

/**
 * Historical Lead-log mailbox records (the format before sends went straight to target inboxes).
 * They stay readable and validated, keep their stable id and sender, and are never delivered or
 * acknowledged: message ownership now belongs to the target inbox.
 */
export interface LegacyMailboxRecord {
  id: string;
  from: string;
  to: string;
  status: 'queued' | 'delivered';
  content: JsonValue;
  at: string;
}

/** The imported historical records, with the ones that failed validation. */
export interface LegacyMailbox {
  records: LegacyMailboxRecord[];
  /** Records that failed validation, by position in the imported list; they are kept out of `records`. */
  problems: { index: number; reason: string }[];
}

/** Inbox acceptance: the target's inbox has recorded (or had already recorded) the message. */
export interface InboxAcceptance {
  messageId: string;
  to: string;
  targetPhase: MemberPhase | 'lead';
  targetStatus: LiveStatus;
}
