/**
 * The only way the Lead agent's carried state changes: each event returns a new value that
 * replaces only the parts it touches. Pure (no clock: no event needs time). Events come from the
 * decide functions (agentDecide.ts), which have already checked them; an event that no longer fits
 * (a subagent that is not recorded) changes nothing.
 */
import { own } from '../util/own';
import { SUBAGENT_ANSWERS_KEPT } from '../contract/limits';
import type { LeadAgentEvent } from './agentEvents';
import type { CarriedLeadAgent, SubagentRecord } from './carried';
import { NO_MEMBER_USAGE, NO_USAGE, addActiveTime, addUsage, recordCall, sumUsage } from '../agent/usage';

export function applyLeadAgent(state: CarriedLeadAgent, event: LeadAgentEvent): CarriedLeadAgent {
  switch (event.type) {
    case 'statusChanged':
      return { ...state, status: event.status };
    case 'turnBegan':
      return { ...state, turns: state.turns + 1 };
    case 'turnStarted':
      return { ...state, lastError: null };
    case 'turnYielded':
      return { ...state, resumeTurn: { turn: event.turn, step: event.step } };
    case 'turnResumed': {
      const { resumeTurn: _taken, ...rest } = state;
      return rest;
    }
    case 'turnFailed':
      return { ...state, lastError: event.error };
    case 'nudgeCounted':
      return { ...state, nudges: state.nudges + 1 };
    case 'nudgesReset':
      return { ...state, nudges: 0 };
    case 'answered':
      return { ...state, finalAnswer: event.finalAnswer, openTasksAtAnswer: [...event.openTasks] };
    case 'conversationAppended':
      return { ...state, conversation: [...state.conversation, ...event.entries] };
    case 'cwdChanged':
      return { ...state, cwd: event.cwd };
    case 'subagentOpened':
      return {
        ...state,
        nextSubagent: state.nextSubagent + 1,
        subagents: {
          ...state.subagents,
          [event.agentId]: { workflowId: event.agentId, answers: [], closed: false, ...(event.model !== undefined ? { model: event.model } : {}) },
        },
      };
    case 'subagentAnswered': {
      const { answer } = event;
      return withSubagent(state, answer.agentId, (r) => ({ ...r, answers: [...r.answers, answer].slice(-SUBAGENT_ANSWERS_KEPT) }));
    }
    case 'subagentUsageReported':
      return withSubagent(state, event.agentId, (r) => (r.usage && r.usage.calls > event.usage.calls ? r : { ...r, usage: event.usage }));
    case 'activeTimeAdded':
      return { ...state, usage: addActiveTime(state.usage ?? NO_MEMBER_USAGE, event.ms) };
    case 'modelCallCompleted':
      return { ...state, usage: recordCall(state.usage ?? NO_MEMBER_USAGE, event.turn, event.usage) };
    case 'subagentClosed':
      return withSubagent(state, event.agentId, (r) => ({ ...r, closed: true }));
    case 'subagentsPruned': {
      const forget = new Set(event.agentIds);
      const forgotten = Object.entries(state.subagents).filter(([id]) => forget.has(id));
      const used = sumUsage(forgotten.map(([, r]) => r.usage ?? NO_USAGE));
      return {
        ...state,
        subagents: Object.fromEntries(Object.entries(state.subagents).filter(([id]) => !forget.has(id))),
        // Their usage stays in the Team's totals, as one row.
        ...(used.calls > 0 || state.forgottenSubagents ? { forgottenSubagents: { usage: addUsage(state.forgottenSubagents?.usage ?? NO_USAGE, used) } } : {}),
      };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

export function applyLeadAgentAll(state: CarriedLeadAgent, events: readonly LeadAgentEvent[]): CarriedLeadAgent {
  return events.reduce(applyLeadAgent, state);
}

function withSubagent(state: CarriedLeadAgent, agentId: string, change: (record: SubagentRecord) => SubagentRecord): CarriedLeadAgent {
  const record = own(state.subagents, agentId);
  return record ? { ...state, subagents: { ...state.subagents, [agentId]: change(record) } } : state;
}
