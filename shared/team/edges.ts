/**
 * Edges that `waitForEdge` wakes on: one per roster, mailbox, task or live-status change, and one
 * per reported rejection (`failure`, for views that show it), numbered in the Lead's order. A
 * waiter only sees edges numbered after its call began; it never replays earlier ones, so callers
 * re-read authoritative state after waking.
 */
import type { EdgeKind } from '../contract/vocabulary';
import type { TeamEdge } from '../contract/team';

export type { TeamEdge } from '../contract/team';

export { EDGE_KINDS, MEMBER_EDGE_KINDS, type EdgeKind } from '../contract/vocabulary';

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

/** The first edge after `afterSeq` whose kind is wanted, if it is still in the window. */
export function firstEdgeAfter(log: EdgeLog, afterSeq: number, kinds: readonly EdgeKind[]): TeamEdge | undefined {
  return log.recent.find((e) => e.seq > afterSeq && kinds.includes(e.kind));
}
