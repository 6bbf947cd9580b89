/**
 * The only way the Lead's state changes. Each event returns a new state value that replaces only
 * the parts it touches, and numbers the edge (if any) that waits wake on. Time is passed in.
 * Events come from the decide functions (decide.ts), which have already checked them.
 */
import { own } from '../util/own';
import { receive, takePending } from '../team/inbox';
import { apply as applyTeamEvent } from '../team';
import { recordEdge, seqBefore, statusSubject } from '../team/edges';
import type { LeadEvent } from './events';
import { isTeamEvent } from './events';
import type { EdgeWatcher, LeadState } from './state';
import { rememberUpdate } from './remembered';
import type { UsageTotals } from '../contract/usage';

export function applyLead(state: LeadState, event: LeadEvent, at: string): LeadState {
  if (isTeamEvent(event)) {
    const next = {
      ...state,
      team: applyTeamEvent(state.team, event),
      edges: recordEdge(state.edges, event.type.startsWith('task') ? 'task' : 'roster', event.type, at),
    };
    // A stopped member's child has exited (disposal stopped it).
    return event.type === 'memberStopped' ? { ...next, liveStatus: { ...next.liveStatus, [event.name]: 'exited' } } : next;
  }
  switch (event.type) {
    case 'leadMailReceived':
      return { ...state, leadInbox: receive(state.leadInbox, event.message).inbox, edges: recordEdge(state.edges, 'mailbox', event.message.messageId, at) };
    case 'leadInboxTaken':
      return { ...state, leadInbox: takePending(state.leadInbox).inbox };
    case 'memberInboxOpened': {
      const { name } = event;
      let next = state;
      if (own(next.liveStatus, name) === undefined) next = { ...next, liveStatus: { ...next.liveStatus, [name]: 'starting' } };
      if (own(next.delivered, name) === undefined) {
        next = { ...next, delivered: { ...next.delivered, [name]: 1 }, unsettledBytes: { ...next.unsettledBytes, [name]: [event.initialMessageBytes] } };
      }
      return next;
    }
    case 'relayBegun': {
      const { to, bytes } = event;
      return {
        ...state,
        delivered: { ...state.delivered, [to]: (own(state.delivered, to) ?? 0) + 1 },
        unsettledBytes: { ...state.unsettledBytes, [to]: [...(own(state.unsettledBytes, to) ?? []), bytes] },
      };
    }
    case 'relayAbandoned': {
      const { to, bytes } = event;
      const sizes = [...(own(state.unsettledBytes, to) ?? [])];
      const at = sizes.lastIndexOf(bytes);
      if (at >= 0) sizes.splice(at, 1);
      return {
        ...state,
        delivered: { ...state.delivered, [to]: Math.max(0, (own(state.delivered, to) ?? 0) - 1) },
        unsettledBytes: { ...state.unsettledBytes, [to]: sizes },
      };
    }
    case 'messageRelayed':
      return { ...state, edges: recordEdge(state.edges, 'mailbox', event.messageId, at) };
    case 'memberStatusReported':
      return applyStatusReport(state, event, at);
    case 'memberUsageReported':
      return keepUsage(state, event.name, event.usage);
    case 'leadStatusChanged':
      return { ...state, edges: recordEdge(state.edges, 'status', `lead:${event.status}`, at) };
    case 'watchRegistered':
      return { ...state, watchers: { ...state.watchers, [event.name]: watcherOf(state, event) } };
    case 'watchCleared': {
      const watchers: LeadState['watchers'] = {};
      for (const [name, watch] of Object.entries(state.watchers)) if (name !== event.name) watchers[name] = watch;
      return { ...state, watchers };
    }
    case 'updateRemembered':
      return { ...state, recentUpdates: rememberUpdate(state.recentUpdates, event.updateId, event.result) };
    case 'budgetSet':
      return { ...state, budgetOverrides: { ...state.budgetOverrides, [event.name]: event.limits } };
    case 'operationRejected':
      return { ...state, lastFailure: event.failure, edges: recordEdge(state.edges, 'failure', `${event.failure.operation}:${event.failure.type}`, at) };
    default: {
      const never: never = event;
      return never;
    }
  }
}

export function applyLeadAll(state: LeadState, events: readonly LeadEvent[], at: string): LeadState {
  return events.reduce((next, event) => applyLead(next, event, at), state);
}

/**
 * A watch that says when its call began sees the edges recorded since then, but not its own status
 * changes; one without (sent before teammates said) sees those recorded after it arrived.
 */
function watcherOf(state: LeadState, event: Extract<LeadEvent, { type: 'watchRegistered' }>): EdgeWatcher {
  const { waitId, kinds, callStartedAt } = event;
  if (callStartedAt === undefined) return { waitId, kinds, since: state.edges.lastSeq };
  return { waitId, kinds, since: seqBefore(state.edges, callStartedAt), skipsOwnStatus: true };
}

/** A member's usage on its own word: kept when it counts at least the calls already kept (a late, older report changes nothing). */
function keepUsage(state: LeadState, name: string, usage: UsageTotals): LeadState {
  return usage.calls >= (own(state.memberUsage, name)?.calls ?? 0) ? { ...state, memberUsage: { ...state.memberUsage, [name]: usage } } : state;
}

function applyStatusReport(state: LeadState, report: Extract<LeadEvent, { type: 'memberStatusReported' }>, at: string): LeadState {
  const { name, status, consumed, settled, usage } = report;
  let next = state;
  if (usage !== undefined) next = keepUsage(next, name, usage);
  if (consumed !== undefined && consumed > (own(next.consumed, name) ?? 0)) next = { ...next, consumed: { ...next.consumed, [name]: consumed } };
  const before = own(next.settled, name) ?? 0;
  if (settled !== undefined && (settled > before || own(next.settled, name) === undefined)) {
    next = {
      ...next,
      settled: { ...next.settled, [name]: settled },
      unsettledBytes: { ...next.unsettledBytes, [name]: (own(next.unsettledBytes, name) ?? []).slice(Math.max(0, settled - before)) },
    };
  }
  if (own(next.liveStatus, name) === status) return next;
  return { ...next, liveStatus: { ...next.liveStatus, [name]: status }, edges: recordEdge(next.edges, 'status', statusSubject(name, status), at) };
}
