/**
 * The orphan reaper's pure part (issue 22): its input and report, and the decision whether a
 * running teammate or subagent still has a live owner, made over facts the reaper activity
 * gathered (activities/reaper.ts). No I/O here.
 *
 * A member is owned by the Lead of its Team (workflow id = team id). It is an orphan when:
 * - the Lead is absent, or its latest run is not running (completed, failed, terminated, timed
 *   out, cancelled): nothing will ever stop the member, since children are abandoned on close;
 * - the Lead is running but was reset after the member started, and the reset Lead's roster does
 *   not name the member's workflow id in a live phase (provisioning or active): the reset went back
 *   to before the spawn (or past the record's stop). Only then is the roster needed, so a live
 *   Team costs one describe of its Lead per pass and no query, and its members are never touched.
 * A subagent is not in the roster: under a reset Lead it is judged by the Lead agent's own list of
 * the subagents it started (getAgentState's `subagents`), an open one counting as live.
 */
import { isLivePhase } from '../team/roster';
import type { MemberPhase } from '../contract/vocabulary';

export { MAX_REPORTED_IDS, reapOrphansInputSchema, type ReapOrphansInput, type ReapReport, type ReaperActivities } from '../contract/reaper';

export type MemberRole = 'teammate' | 'subagent';

/** A running member as visibility lists it. */
export interface MemberFacts {
  workflowId: string;
  runId: string;
  role: MemberRole;
  /** Epoch milliseconds (server time). */
  startTime: number;
}

/** The Lead's latest run, as described. */
export type LeadFacts =
  | { kind: 'absent' }
  | { kind: 'closed'; status: string }
  | {
      kind: 'running';
      /** `workflowExtendedInfo.lastResetTime` of the running run, epoch ms; null if it was never reset. */
      lastResetTime: number | null;
    };

/** One record of what the Lead owns: a roster member of getTeamView, or a subagent of getAgentState (open: active; closed: stopped). */
export interface RosterEntry {
  workflowId: string;
  phase: MemberPhase;
}

export type Verdict = { orphan: false; reason: string } | { orphan: true; reason: string };

/** Whether the member started no later than the Lead's last reset, so the reset may have gone back past its spawn. */
function startedBeforeReset(lead: LeadFacts, member: MemberFacts): boolean {
  return lead.kind === 'running' && lead.lastResetTime !== null && member.startTime <= lead.lastResetTime;
}

/** Whether judging these members needs the Lead's records: only for a running Lead reset after one of them started. */
export function needsRoster(lead: LeadFacts, members: readonly MemberFacts[]): boolean {
  return members.some((member) => startedBeforeReset(lead, member));
}

/**
 * Whether a running member is an orphan. `roster` is the Lead's roster when it was needed and read
 * (needsRoster), else null: a needed roster that could not be read keeps the member (never reap on
 * a guess; the next pass asks again).
 */
export function judgeMember(lead: LeadFacts, member: MemberFacts, roster: readonly RosterEntry[] | null): Verdict {
  if (lead.kind === 'absent') return { orphan: true, reason: 'its Lead does not exist' };
  if (lead.kind === 'closed') return { orphan: true, reason: `its Lead is ${lead.status.toLowerCase()}` };
  if (!startedBeforeReset(lead, member)) return { orphan: false, reason: 'its Lead is running' };
  if (roster === null) return { orphan: false, reason: 'its Lead was reset and its roster could not be read: kept until a pass reads it' };
  const record = roster.find((entry) => entry.workflowId === member.workflowId);
  if (record === undefined) return { orphan: true, reason: 'its Lead was reset to before its spawn: the roster does not name it' };
  if (!isLivePhase(record.phase)) return { orphan: true, reason: `its Lead was reset and the roster records it as ${record.phase}` };
  return { orphan: false, reason: `the reset Lead's roster names it (${record.phase})` };
}

/** What to do with an orphan the reaper described: cancel it first; terminate it if a cancel was already requested and it still runs. */
export function orphanAction(described: { running: boolean; cancelRequested: boolean }): 'none' | 'cancel' | 'terminate' {
  if (!described.running) return 'none';
  return described.cancelRequested ? 'terminate' : 'cancel';
}

/** A visibility query string literal: double-quoted, with backslash and double quote escaped. */
export function visibilityString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** Characters a visibility literal cannot carry to every store: SQL visibility compares the escaped text (below). */
const UNSAFE_IN_LITERAL = /["'\\]/;

/**
 * The visibility query for the running teammates and subagents on one task queue. A queue name
 * with a quote or a backslash cannot be matched exactly: the SQL visibility stores (SQLite, seen
 * on the dev server) compare against the literal's escaped text, so `TaskQueue = "a\"b"` matches
 * nothing. Such a name is narrowed by its longest plain prefix (STARTS_WITH) instead, or not at
 * all, and the caller keeps only the executions whose `taskQueue` equals the name.
 */
export function runningMembersQuery(taskQueue: string): string {
  const base = 'ExecutionStatus = "Running" AND AgentTeamRole IN ("teammate", "subagent")';
  const unsafeAt = taskQueue.search(UNSAFE_IN_LITERAL);
  if (unsafeAt === -1) return `${base} AND TaskQueue = ${visibilityString(taskQueue)}`;
  const prefix = taskQueue.slice(0, unsafeAt);
  return prefix === '' ? base : `${base} AND TaskQueue STARTS_WITH ${visibilityString(prefix)}`;
}
