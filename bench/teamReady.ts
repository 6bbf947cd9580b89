/** What the Team benches share: waiting for members to reach a live status (idle after their first turn, or running). */
import type { TeamClient } from '../client/teamClient';
import type { LiveStatus } from '../shared/contract';

/** Whether every named member's live status is `status` now. */
export async function allNowInStatus(team: TeamClient, names: string[], status: LiveStatus): Promise<boolean> {
  const live = await team.liveStatus();
  return names.every((name) => Object.hasOwn(live, name) && live[name] === status);
}

/** Polls the Team's live status until every named member reports `status`, or fails after `timeoutMs`. */
export async function allInStatus(team: TeamClient, names: string[], status: LiveStatus, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await allNowInStatus(team, names, status))) {
    if (Date.now() > deadline) throw new Error(`members not ${status} after ${timeoutMs / 1000} s: ${JSON.stringify(await team.liveStatus())}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Waits until every named member reports idle (its first turn done), or fails after `timeoutMs`. */
export const allIdle = (team: TeamClient, names: string[], timeoutMs = 120_000): Promise<void> => allInStatus(team, names, 'idle', timeoutMs);
