/**
 * Schemas of every signal payload. Signals are untrusted input: anyone with access to the
 * namespace can send any of them with any payload (or none, as `temporal workflow signal` without
 * `--input` does), so each handler parses with these and ignores what does not fit.
 */
import { z } from 'zod';
import { MAX_ID_LENGTH } from './limits';
import { MAX_MEMBER_NAME_LENGTH } from './callers';
import { EDGE_KINDS, liveStatusSchema } from './vocabulary';
import { usageTotalsSchema } from './usage';
import { budgetExhaustionSchema } from './budgets';

const name = z.string().min(1).max(MAX_MEMBER_NAME_LENGTH);
const id = z.string().min(1).max(MAX_ID_LENGTH);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const kinds = z.array(z.enum(EDGE_KINDS)).min(1).max(EDGE_KINDS.length);

export const memberStatusReportSchema = z.object({
  name,
  status: liveStatusSchema,
  turn: count,
  /** Inbox messages the member has taken into turns so far (lets the Lead tell "idle" from "has mail waiting"). */
  consumed: count.optional(),
  /**
   * Messages the Lead relayed (stamped with a relaySeq) that this member has settled: taken into a
   * turn, or dropped as a duplicate or malformed. The Lead counts a member busy while it has relayed
   * more than the member has settled, so delivery accounting rests on the target's word.
   */
  settled: count.optional(),
  /** What the member's recorded model calls used so far (its whole life, across runs): the Lead keeps the newest for the Team's totals. */
  usage: usageTotalsSchema.optional(),
  /** Sent once when the member stopped because a budget ran out: the Lead tells the Lead agent. */
  exhausted: budgetExhaustionSchema.optional(),
});
/** Session → Lead, under a Team budget: may I make my next model call? `calls`: the calls it has recorded (its total's), which keys the answer. */
export const modelCallRequestSchema = z.strictObject({ member: id, calls: count, usage: usageTotalsSchema });
export type ModelCallRequest = z.output<typeof modelCallRequestSchema>;
/** Lead → session: the answer to the request made at `calls`; an exhaustion refuses it (the Team budget is used up). */
export const modelCallAnswerSchema = z.strictObject({ calls: count, exhaustion: budgetExhaustionSchema.nullable() });
export type ModelCallAnswer = z.output<typeof modelCallAnswerSchema>;
export const edgeWatchSchema = z.object({
  /** The watching teammate (signals carry no authenticated sender; the Lead ignores non-members). */
  name,
  /** The teammate's wait: its notification carries this id back. */
  waitId: id,
  kinds: kinds.optional(),
  /**
   * When the teammate's wait_agent call began (its workflow time, ISO 8601 in UTC). The watch then
   * counts every edge the Lead recorded from that moment (as far as its window of recent edges
   * reaches) other than the teammate's own status changes; without it, only edges after the signal arrives.
   */
  callStartedAt: z.iso.datetime().max(64).optional(),
});
export const edgeUnwatchSchema = z.object({ name, waitId: id });
export const subagentAnswerSchema = z.object({
  agentId: id,
  turn: count,
  answer: z.string().nullable(),
  /** What the subagent's model calls used so far (sent with the answer; the Lead keeps it beside the subagent's record, not in its answers). */
  usage: usageTotalsSchema.optional(),
});
export const edgeNotificationSchema = z.object({
  waitId: id,
  edge: z.object({ seq: count, kind: z.enum(EDGE_KINDS), subject: z.string().max(2 * MAX_ID_LENGTH), at: z.string().max(64) }),
});
/** The longest rejection message a report may carry; the TeamClient cuts longer ones. */
export const MAX_REPORTED_MESSAGE_LENGTH = 1_000;
export const rejectionReportSchema = z.object({
  /** Who was refused: "@operator", "lead" or a teammate name. */
  caller: z.string().min(1).max(MAX_MEMBER_NAME_LENGTH),
  /** The Update's name (claimTask, sendMessage, ...). */
  operation: z.string().min(1).max(64),
  /** The rejection's stable type (TaskRevisionConflict, ...). */
  type: z.string().min(1).max(64),
  /** At most MAX_REPORTED_MESSAGE_LENGTH (1,000) characters. */
  message: z.string().max(MAX_REPORTED_MESSAGE_LENGTH),
});
export const interruptTurnSchema = z.object({ requestedBy: z.string().max(MAX_ID_LENGTH) });

/** Signals ignored in this run, by reason (queried by operators: getLeadRunInfo, getTeammateState). */
export interface IgnoredSignals {
  malformed: number;
  nonMember: number;
  unknownKey: number;
  unknownSignal: number;
  /** A handler failed on a payload that parsed: a bug, counted rather than allowed to fail the workflow task. */
  failed: number;
}

export function noIgnoredSignals(): IgnoredSignals {
  return { malformed: 0, nonMember: 0, unknownKey: 0, unknownSignal: 0, failed: 0 };
}
