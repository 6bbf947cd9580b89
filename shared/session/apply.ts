/**
 * The only way a session's state changes: each event returns a new value that replaces only the
 * parts it touches. Pure (times come in the events). Events come from the decide functions
 * (decide.ts), which have already checked them.
 */
import { jsonBytes } from '../contract/limits';
import { addActiveTime, recordCall } from '../agent/usage';
import { receive, returnToPending, takePending } from '../team/inbox';
import type { InboxMessage } from '../contract';
import type { SessionEvent } from './events';
import { REJECTED_DELIVERIES_KEPT, type SessionSpend, type SessionState } from './state';

export function applySession(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'signalReceived':
      return { ...state, signalsThisRun: state.signalsThisRun + 1 };
    case 'signalIgnored':
      return { ...state, ignored: { ...state.ignored, [event.reason]: state.ignored[event.reason] + 1 } };
    case 'deliveryRejected':
      return {
        ...state,
        rejectedDeliveries: [...state.rejectedDeliveries.slice(1 - REJECTED_DELIVERIES_KEPT), { messageId: event.messageId, reason: event.reason }],
        ignored: { ...state.ignored, malformed: state.ignored.malformed + 1 },
        settled: state.settled + (event.relayed ? 1 : 0),
      };
    case 'messageReceived':
      return { ...state, inbox: receive(state.inbox, event.message).inbox, pendingBytes: state.pendingBytes + event.bytes };
    case 'duplicateSettled':
      return { ...state, settled: state.settled + 1 };
    case 'turnBegan':
      return {
        ...state,
        turns: state.turns + 1,
        turnsThisRun: state.turnsThisRun + 1,
        interruptRequested: false,
        status: 'running',
        lastTake: [],
        spend: { ...state.spend, turnStartedAt: event.at },
      };
    case 'messagesTaken':
      return {
        ...state,
        inbox: takePending(state.inbox).inbox,
        pendingBytes: 0,
        settled: state.settled + relayed(event.messages),
        conversation: [...state.conversation, ...event.entries],
        ...(event.atStepBoundary ? { lastTake: event.messages } : {}),
      };
    case 'conversationAppended':
      return { ...state, conversation: [...state.conversation, ...event.entries] };
    case 'takeReturned': {
      const inbox = returnToPending(state.inbox, event.messages);
      return {
        ...state,
        conversation: state.conversation.slice(0, state.conversation.length - event.messages.length),
        inbox,
        pendingBytes: jsonBytes(inbox.pending),
        settled: state.settled - relayed(event.messages),
      };
    }
    case 'turnInterrupted':
      return { ...state, interruptedTurns: state.interruptedTurns + 1 };
    case 'turnEnded': {
      const { turnStartedAt, usage } = state.spend;
      return {
        ...state,
        interruptRequested: false,
        status: 'idle',
        lastTake: [],
        spend: { ...state.spend, turnStartedAt: null, usage: turnStartedAt === null ? usage : addActiveTime(usage, event.at - turnStartedAt) },
      };
    }
    case 'interruptRequested':
      return { ...state, interruptRequested: true };
    case 'cwdChanged':
      return { ...state, cwd: event.cwd };
    case 'statusChanged':
      return { ...state, status: event.status };
    case 'settlementsReported':
      return { ...state, reportedSettled: event.settled };
    case 'stopReported':
      return withSpend(state, { exhaustionReported: true });
    case 'waitBegan':
      return { ...state, currentWaitId: event.waitId, notifiedEdge: null };
    case 'waitEnded':
      return { ...state, currentWaitId: null, notifiedEdge: null };
    case 'edgeNotified':
      return { ...state, notifiedEdge: event.edge };
    case 'modelCallRecorded':
      return withSpend(state, { usage: recordCall(state.spend.usage, event.turn, event.usage) });
    case 'budgetSet':
      return withSpend(state, { override: event.budget, exhaustionReported: false });
    case 'modelCallAnswered': {
      const { exhaustion } = event.answer;
      if (exhaustion === null) return withSpend(state, { teamAnswer: event.answer, teamStop: null });
      if (state.spend.teamStop) return withSpend(state, { teamAnswer: event.answer });
      return withSpend(state, { teamAnswer: event.answer, teamStop: exhaustion, exhaustionReported: false });
    }
    case 'answerTaken':
      return withSpend(state, { teamAnswer: null });
    default: {
      const never: never = event;
      return never;
    }
  }
}

export function applySessionAll(state: SessionState, events: readonly SessionEvent[]): SessionState {
  return events.reduce(applySession, state);
}

function withSpend(state: SessionState, change: Partial<SessionSpend>): SessionState {
  return { ...state, spend: { ...state.spend, ...change } };
}

function relayed(messages: readonly InboxMessage[]): number {
  return messages.filter((m) => m.relaySeq !== undefined).length;
}
