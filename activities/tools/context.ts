/**
 * What one work-tool call carries to the tool that runs it: where the member is, and (for bash)
 * how to heartbeat and when to stop. Its own module because the file tools, bash and the
 * dispatcher in index.ts all share it.
 */
import { Context } from '@temporalio/activity';

export interface WorkToolContext {
  /** Absolute directory relative paths resolve against. */
  base: string;
  /** The member's directory relative to root, '.' for root. */
  cwd: string;
  /** Set by bash when the member's directory changes. */
  nextCwd?: string;
  heartbeat?: () => void;
  signal?: AbortSignal;
}

/** The current activity's heartbeat and cancellation signal, or nothing outside an activity. */
export function defaultHeartbeat(): { heartbeat?: () => void; signal?: AbortSignal } {
  try {
    const context = Context.current();
    return { heartbeat: () => context.heartbeat(), signal: context.cancellationSignal };
  } catch {
    return {}; // not running inside an activity (e.g. tests calling the function directly)
  }
}
