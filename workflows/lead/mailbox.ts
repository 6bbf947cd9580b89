/**
 * Sends, the Lead's own inbox, waits on edges and teammates' wait_agent notifications. A send to
 * a teammate is a signal into its inbox, recorded once per message id by the target.
 */
import { condition, getExternalWorkflowHandle } from '@temporalio/workflow';
import * as contract from '../../shared/contract';
import type { InboxAcceptance, WaitResult, InboxMessage, EdgeKind } from '../../shared/contract';
import { errorMessage } from '../../shared/util/errors';
import { MEMBER_UNAVAILABLE, answerFailure } from '../../shared/contract/failures';
import { takePending } from '../../shared/team/inbox';
import {
  decideLeadOnly,
  decideRead,
  decideSendMessage,
  dueNotifications,
  leadInboxTaken,
  messageBytes,
  messageRelayed,
  parseSend,
  parseWith,
  receiveForLead,
  relayAbandoned,
  relayBegun,
  watchCleared,
  type SendRequest,
} from '../../shared/lead';
import { own } from '../../shared/util/own';
import { firstEdgeAfter } from '../../shared/team/edges';
import { callerOnlySchema, waitRequestSchema } from '../../shared/contract/requests';
import type { LeadContext } from './context';
import type { Roster } from './roster';
import { LEAD, MEMBER_EDGE_KINDS } from '../../shared/contract';

export function createMailbox(ctx: LeadContext, roster: Roster) {
  const { run } = ctx;

  const checkSend = (request: unknown, operationId: string): SendRequest => {
    const parsed = parseSend(request);
    run.require(decideSendMessage(run.state, parsed, operationId));
    return parsed;
  };

  /** Into the target's inbox (a signal, recorded once per message id by the target), or the Lead's own. */
  const send = async (request: unknown, operationId: string, done: (result: InboxAcceptance) => InboxAcceptance): Promise<InboxAcceptance> => {
    const checked = checkSend(request, operationId);
    const message: InboxMessage = { messageId: checked.messageId ?? operationId, from: checked.caller, content: checked.content, sentAt: ctx.now() };
    // Inline rather than a wrapper: an extra promise step would reorder this Update's completion against other commands.
    run.beginOperation();
    try {
      if (checked.to === LEAD) {
        run.apply(receiveForLead(message));
        return done({ messageId: message.messageId, to: LEAD, targetPhase: 'lead', targetStatus: 'running' });
      }
      const target = roster.member(checked.to);
      const bytes = messageBytes(message.content);
      // Unsettled from now until the target says it took or dropped it (its status reports).
      run.apply(relayBegun(checked.to, bytes));
      const relaySeq = own(run.state.delivered, checked.to) ?? 1;
      try {
        // Resolves once the signal is in the target's history: its inbox has it, running or cold.
        await getExternalWorkflowHandle(target.workflowId).signal(contract.deliverMessageSignal, { ...message, relaySeq });
      } catch (error) {
        run.apply(relayAbandoned(checked.to, bytes));
        throw answerFailure({
          type: MEMBER_UNAVAILABLE,
          message: `teammate "${checked.to}" could not take the message (${errorMessage(error)}); read the roster`,
          nonRetryable: true,
        });
      }
      run.apply(messageRelayed(message.messageId));
      return done({
        messageId: message.messageId,
        to: checked.to,
        targetPhase: roster.member(checked.to).phase,
        targetStatus: own(run.state.liveStatus, checked.to) ?? 'starting',
      });
    } finally {
      run.endOperation();
    }
  };

  const checkReadLeadInbox = (request: unknown): void => {
    run.require(decideLeadOnly(parseWith('readLeadInbox', callerOnlySchema, request).caller, 'readLeadInbox'));
  };

  /** Takes every message waiting in the Lead's own inbox. */
  const takeLeadInbox = (): InboxMessage[] => {
    const { messages } = takePending(run.state.leadInbox);
    run.apply(leadInboxTaken());
    return messages;
  };

  const checkWait = (request: unknown): { timeoutMs: number; kinds: EdgeKind[]; afterSeq: number | undefined } => {
    const parsed = parseWith('waitForEdge', waitRequestSchema, request);
    run.require(decideRead(run.state, parsed.caller));
    return { timeoutMs: parsed.timeoutMs, kinds: parsed.kinds ?? [...MEMBER_EDGE_KINDS], afterSeq: parsed.afterSeq };
  };

  /**
   * Blocks until the first edge of the kinds after the call began (or after the caller's `afterSeq`,
   * so a watcher that waits again misses nothing in between), the timeout, or the run's close.
   */
  const wait = async (request: unknown): Promise<WaitResult> => {
    const { timeoutMs, kinds, afterSeq } = checkWait(request);
    // Past the last edge (a seq from a run a reset discarded, or made up): from now on.
    const since = Math.min(afterSeq ?? run.state.edges.lastSeq, run.state.edges.lastSeq);
    const woke = await condition(() => ctx.closingNow() || firstEdgeAfter(run.state.edges, since, kinds) !== undefined, timeoutMs);
    const edge = firstEdgeAfter(run.state.edges, since, kinds);
    if (edge) return { woke: 'edge', edge };
    return woke ? { woke: 'rollover' } : { woke: 'timeout' };
  };

  /**
   * Notifies teammates whose wait_agent watch has seen its edge. Runs until the run closes; watches
   * still pending then are carried across continue-as-new and served by the next run.
   */
  const notifyWatchers = async (): Promise<void> => {
    for (;;) {
      await condition(() => ctx.closingNow() || dueNotifications(run.state).length > 0);
      const due = dueNotifications(run.state);
      if (due.length === 0) return; // closing
      for (const notification of due) {
        // The watch may have been replaced while an earlier notification was in flight: only this one is cleared.
        if (own(run.state.watchers, notification.name)?.waitId === notification.waitId) run.apply(watchCleared(notification.name));
        try {
          await getExternalWorkflowHandle(notification.workflowId).signal(contract.edgeNotificationSignal, {
            waitId: notification.waitId,
            edge: notification.edge,
          });
        } catch {
          // The teammate has exited: nobody is waiting any more.
        }
      }
    }
  };

  return { checkSend, send, checkReadLeadInbox, takeLeadInbox, checkWait, wait, notifyWatchers };
}

export type Mailbox = ReturnType<typeof createMailbox>;
