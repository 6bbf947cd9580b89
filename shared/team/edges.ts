/**
 * Edges that `waitForEdge` wakes on: one per roster, mailbox, task or live-status change, and one
 * per reported rejection (`failure`, for views that show it), numbered in the Lead's order. A
 * waiter only sees edges recorded after its call began (a client's watch: after the last edge it
 * saw); it never replays earlier ones, so callers re-read authoritative state after waking.
 */
import { LIVE_STATUSES, type EdgeKind, type LiveStatus } from '../contract/vocabulary';
import type { TeamEdge } from '../contract/team';

export const EDGE_WINDOW = 64;

export interface EdgeLog {
  lastSeq: number;
  recent: TeamEdge[];
}

export function emptyEdgeLog(): EdgeLog {
  return { lastSeq: 0, recent: [] };
}

export function recordEdge(log: EdgeLog, kind: EdgeKind, subject: string, at: string): EdgeLog {
  const edge: TeamEdge = { seq: log.lastSeq + 1, kind, subject, at };
  const recent = [...log.recent, edge];
  return { lastSeq: edge.seq, recent: recent.length > EDGE_WINDOW ? recent.slice(recent.length - EDGE_WINDOW) : recent };
}

/** A live-status edge's subject: whose status, and what it became. */
export function statusSubject(name: string, status: LiveStatus): string {
  return `${name}:${status}`;
}

/**
 * The first edge after `afterSeq` whose kind is wanted, if it is still in the window; a watcher's
 * own status changes (`ownStatusOf`) are passed over: its own report is no news to it.
 */
export function firstEdgeAfter(log: EdgeLog, afterSeq: number, kinds: readonly EdgeKind[], ownStatusOf?: string): TeamEdge | undefined {
  return log.recent.find((e) => e.seq > afterSeq && kinds.includes(e.kind) && !(ownStatusOf !== undefined && isStatusOf(e, ownStatusOf)));
}

/**
 * The number to watch after so that the first edge recorded at or after `moment` (an ISO time)
 * counts: a teammate's wait_agent sees what happened since its call began, not only since its
 * watch reached the Lead. Edges already out of the window are gone; with none since, `lastSeq`.
 */
export function seqBefore(log: EdgeLog, moment: string): number {
  const from = Date.parse(moment);
  const first = Number.isFinite(from) ? log.recent.find((e) => Date.parse(e.at) >= from) : undefined;
  return first ? first.seq - 1 : log.lastSeq;
}

function isStatusOf(edge: TeamEdge, name: string): boolean {
  return edge.kind === 'status' && LIVE_STATUSES.some((status) => edge.subject === statusSubject(name, status));
}
