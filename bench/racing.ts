/** One round of raw SDK callers (no TeamClient, so no client-side in-flight limit) racing `claimTask` on one task of a fresh Team. */
import type { Client } from '@temporalio/client';
import { TeamClient } from '../client/teamClient';
import { claimTaskUpdate } from '../shared/contract';

export interface RacingRound {
  /** From the first call to the last answer. */
  settleMs: number;
  /** Callers whose claim succeeded: exactly one, or the Team is broken. */
  winners: number;
}

export async function racingRound(client: Client, taskQueue: string, callers: number, teamId: string): Promise<RacingRound> {
  const team = await TeamClient.start(client, { teamId, taskQueue });
  const { task } = await team.createTask({ subject: 'contended' });
  const handle = team.handle();
  const started = process.hrtime.bigint();
  const outcomes = await Promise.allSettled(
    Array.from({ length: callers }, () =>
      handle.executeUpdate(claimTaskUpdate, { args: [{ taskId: task.id, expectedRevision: task.revision, caller: 'lead' }] }),
    ),
  );
  const settleMs = Number(process.hrtime.bigint() - started) / 1e6;
  await team.dispose();
  return { settleMs, winners: outcomes.filter((o) => o.status === 'fulfilled').length };
}

export function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
