/**
 * The CLI's deadlines: the global `--timeout <seconds>` and what it means for each kind of command,
 * and the CLI's own next step after a call timed out. Pure, so the unit tests can parse with it.
 */
import { InvalidArgumentError } from 'commander';
import { DEFAULT_DEADLINES, MAX_DEADLINE_MS, mayBeApplied, type TeamCallTimedOut, type TeamDeadlines } from '../client/deadlines';

/** Seconds (a positive number) for --timeout and other durations. */
export function parseSeconds(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`"${value}" is not a positive number of seconds`);
  if (n * 1000 > MAX_DEADLINE_MS)
    throw new InvalidArgumentError(`${value} seconds is longer than the longest deadline (${Math.floor(MAX_DEADLINE_MS / 1000)} s)`);
  return n;
}

/**
 * read: queries (roster, tasks, answer, conversation, status); change: Updates and starts;
 * dispose: disposeTeam; wait: a command with --wait; watch: `watch`.
 */
export type CommandKind = 'read' | 'change' | 'dispose' | 'wait' | 'watch';

/** Default --timeout per kind, in seconds (wait: how long to wait for the Lead's answer). */
export const DEFAULT_TIMEOUT_S: Record<Exclude<CommandKind, 'watch'>, number> = {
  read: DEFAULT_DEADLINES.callMs / 1000,
  change: DEFAULT_DEADLINES.updateMs / 1000,
  dispose: DEFAULT_DEADLINES.disposeMs / 1000,
  wait: 1800,
};

export interface CommandPlan {
  /** The deadlines of the command's TeamClient. */
  deadlines: Partial<TeamDeadlines>;
  /** The whole command's deadline (ms from its start), or null: `watch` without --for runs until stopped. */
  commandMs: number | null;
  /** wait: how long to wait for the answer (ms from the command's start); the command gets the margin on top. */
  waitMs?: number;
}

/**
 * What `--timeout` (seconds, when given) means for a command of `kind`:
 *  - read / change / dispose: the whole command's deadline, and every call's in it;
 *  - wait: how long to wait for the Lead's answer; each call keeps its own deadline (a Lead that
 *    stops answering ends the wait early) and the command ends within it plus the wait margin;
 *  - watch: each durable wait's allowed lateness (its margin); `--for` bounds the command.
 */
export function commandPlan(kind: CommandKind, timeoutS?: number, watchForS?: number): CommandPlan {
  const given = timeoutS === undefined ? undefined : timeoutS * 1000;
  const margin = DEFAULT_DEADLINES.waitMarginMs;
  switch (kind) {
    case 'wait': {
      const waitMs = given ?? DEFAULT_TIMEOUT_S.wait * 1000;
      return { deadlines: {}, commandMs: waitMs + margin, waitMs };
    }
    case 'watch':
      return {
        deadlines: given === undefined ? {} : { waitMarginMs: given },
        commandMs: watchForS === undefined ? null : watchForS * 1000 + (given ?? margin),
      };
    default: {
      const ms = given ?? DEFAULT_TIMEOUT_S[kind] * 1000;
      return { deadlines: { callMs: ms, updateMs: ms, disposeMs: ms }, commandMs: ms };
    }
  }
}

/** Operations whose update id is the message id, so the CLI can repeat them exactly with --id. */
const REPEATABLE_WITH_ID: Record<string, string> = { sendMessage: 'send', promptLead: 'prompt' };

/** The client's TeamCallTimedOut message with the CLI's way to act on it. */
export function cliTimeoutMessage(error: Pick<TeamCallTimedOut, 'message' | 'operation' | 'updateId'>): string {
  const more = '--timeout <seconds> gives the command more time';
  const command = REPEATABLE_WITH_ID[error.operation];
  let hint: string;
  if (!mayBeApplied(error)) hint = `From the CLI: ${more}.`;
  else if (command !== undefined) hint = `From the CLI: repeat it with \`${command} … --id ${error.updateId}\` (taken once); ${more}.`;
  else hint = `From the CLI: it may still be applied, so read the board or roster before repeating it; ${more}.`;
  return `${error.message} ${hint}`;
}
