/**
 * The Lead's events that record an effect the workflow carried out (a relay's signal went out or
 * failed, the Lead took its inbox, its agent's status changed, a watch was answered). They are
 * facts, not decisions, so there is nothing to refuse: each is built here by name, and workflow
 * code never writes an event literal. A result remembered for retries is such an event too; it is
 * built in remembered.ts, beside the window it fills and the lookup that reads it.
 */
import type { LeadEvent } from './events';

/** A relay to a teammate is reserved before its signal goes out. */
export const relayBegun = (to: string, bytes: number): LeadEvent[] => [{ type: 'relayBegun', to, bytes }];
/** The relay's signal failed: the target never got it. */
export const relayAbandoned = (to: string, bytes: number): LeadEvent[] => [{ type: 'relayAbandoned', to, bytes }];
/** The relay's signal is in the target's history. */
export const messageRelayed = (messageId: string): LeadEvent[] => [{ type: 'messageRelayed', messageId }];
/** The Lead took every pending message of its own inbox (its turn, or readLeadInbox). */
export const leadInboxTaken = (): LeadEvent[] => [{ type: 'leadInboxTaken' }];
/** The Lead agent's own status changed: an edge like any member's. */
export const leadStatusChanged = (status: string): LeadEvent[] => [{ type: 'leadStatusChanged', status }];
/** A teammate's watch was answered (or dropped): it no longer waits. */
export const watchCleared = (name: string): LeadEvent[] => [{ type: 'watchCleared', name }];
