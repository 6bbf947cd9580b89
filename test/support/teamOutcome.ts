/**
 * What a finished agent Team left behind, in a form two runs can be compared by: the answer, the
 * board, the roster, every inbox (and whether each message was taken exactly once) and the files
 * the teammates wrote. A drill converges when its outcome equals an undisturbed run's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TeamClient } from '../../client/teamClient';
import { getAgentStateQuery, type TeammateStateView } from '../../shared/contract';
import { teammateState } from './teams';

export interface InboxOutcome {
  received: number;
  consumed: number;
  pending: number;
  /** Message ids of the user entries in the conversation, in order. */
  userMessages: string[];
  /** Every seen message id is in the conversation once, and every conversation message was seen: nothing doubled, nothing lost. */
  exactlyOnce: boolean;
  tools: string[];
}

export interface TeamOutcome {
  answer: string | null;
  leadTurns: number;
  leadTools: string[];
  leadUserMessages: number;
  board: [number, string, string | null, number][];
  members: [string, string, string][];
  inboxes: Record<string, Omit<InboxOutcome, 'userMessages'> & { userMessages: number }>;
  files: Record<string, string | null>;
}

const toolsOf = (conversation: TeammateStateView['conversation']): string[] =>
  conversation.filter((e) => e.role === 'tool').map((e) => `${e.toolName}:${e.ok}`);

export function inboxOutcome(state: TeammateStateView): InboxOutcome {
  const userMessages = state.conversation.filter((e) => e.role === 'user').map((e) => String(e.messageId));
  const seen = state.seenMessageIds;
  const exactlyOnce =
    new Set(seen).size === seen.length && new Set(userMessages).size === userMessages.length && [...seen].sort().join() === [...userMessages].sort().join();
  return { received: state.received, consumed: state.consumed, pending: state.pending.length, userMessages, exactlyOnce, tools: toolsOf(state.conversation) };
}

/** The outcome of `team` (its teammates' ids differ between runs, so inboxes hold counts, not ids). */
export async function teamOutcome(team: TeamClient, checkoutRoot: string, files: string[]): Promise<TeamOutcome> {
  const lead = await team.handle().query(getAgentStateQuery);
  const view = await team.view();
  const inboxes: TeamOutcome['inboxes'] = {};
  for (const member of view.members) {
    const inbox = inboxOutcome(await teammateState(team, member.name));
    inboxes[member.name] = { ...inbox, userMessages: inbox.userMessages.length };
  }
  const read = (file: string): string | null => (fs.existsSync(path.join(checkoutRoot, file)) ? fs.readFileSync(path.join(checkoutRoot, file), 'utf8') : null);
  return {
    answer: lead.finalAnswer,
    leadTurns: lead.turns,
    leadTools: toolsOf(lead.conversation),
    leadUserMessages: lead.conversation.filter((e) => e.role === 'user').length,
    board: view.tasks.map((t) => [t.id, t.status, t.owner ?? null, t.revision]),
    members: view.members.map((m) => [m.name, m.phase, m.context]),
    inboxes,
    files: Object.fromEntries(files.map((file) => [file, read(file)])),
  };
}
