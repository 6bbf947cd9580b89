/**
 * One entry per parsed signal: its definition and the schema its handler parses the payload with.
 * The entry only compiles when the definition's payload type is the schema's output, so a sender's
 * type and a receiver's parse cannot drift apart; workflows register handlers from these entries
 * (workflows/common/handlerGuards.ts, guardedSignal). deliverMessage (checked field by field, so a
 * message's content is kept exactly as sent: shared/session/delivery.ts) and completionNudge (no
 * payload) are handled on their own.
 *
 * Not exported from the contract's index on purpose: the index is preloaded and deep-frozen with
 * every module it reaches (workflows/sharedLibraries.ts), and a frozen zod schema whose regular
 * expression keeps state (`lastIndex`) fails when it parses: the replay test failed so. The
 * signal schemas are evaluated in each workflow's own module cache, as they were before this registry.
 */
import type { SignalDefinition } from '@temporalio/common';
import type { z } from 'zod';
import * as lead from './lead';
import * as session from './session';
import { memberBudgetSchema } from './budgets';
import {
  edgeNotificationSchema,
  edgeUnwatchSchema,
  edgeWatchSchema,
  interruptTurnSchema,
  memberStatusReportSchema,
  modelCallAnswerSchema,
  modelCallRequestSchema,
  rejectionReportSchema,
  subagentAnswerSchema,
} from './signals';

/** Whether A and B are the same type (not merely one assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Pairs a definition with its schema. The brand of a definition is covariant, so a definition whose
 * payload is a subtype of the schema's output would be accepted; the rest parameter demands one
 * argument of type never unless the two are the same type, which no call can pass.
 */
export const parsedSignal = <Args extends unknown[], Name extends string, Schema extends z.ZodType>(
  definition: SignalDefinition<Args, Name>,
  schema: Schema,
  ..._same: Same<Args, [z.output<Schema>]> extends true ? [] : [never]
): { definition: SignalDefinition<Args, Name>; schema: Schema } => ({ definition, schema });

/** The Lead's parsed signals, keyed by wire name. */
export const LEAD_SIGNALS = {
  watchEdges: parsedSignal(lead.watchEdgesSignal, edgeWatchSchema),
  unwatchEdges: parsedSignal(lead.unwatchEdgesSignal, edgeUnwatchSchema),
  reportMemberStatus: parsedSignal(lead.reportMemberStatusSignal, memberStatusReportSchema),
  reportRejection: parsedSignal(lead.reportRejectionSignal, rejectionReportSchema),
  subagentAnswer: parsedSignal(lead.subagentAnswerSignal, subagentAnswerSchema),
  modelCallRequest: parsedSignal(lead.modelCallRequestSignal, modelCallRequestSchema),
};

/** A teammate's and an ordinary subagent's parsed signals, keyed by wire name. */
export const SESSION_SIGNALS = {
  interruptTurn: parsedSignal(session.interruptTurnSignal, interruptTurnSchema),
  edgeNotification: parsedSignal(session.edgeNotificationSignal, edgeNotificationSchema),
  budgetChanged: parsedSignal(session.budgetChangedSignal, memberBudgetSchema),
  modelCallAnswer: parsedSignal(session.modelCallAnswerSignal, modelCallAnswerSchema),
};
