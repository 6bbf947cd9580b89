/** What the Team benches share: waiting for spawned teammates to finish their first turn, and a standalone run's table. */
import type { TeamClient } from '../client/teamClient';

/** Polls the Team's live status until every named member reports idle (its first turn done), or fails after `timeoutMs`. */
export async function allIdle(team: TeamClient, names: string[], timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = await team.liveStatus();
    if (names.every((name) => Object.hasOwn(live, name) && live[name] === 'idle')) return;
    if (Date.now() > deadline) throw new Error(`members not idle after ${timeoutMs / 1000} s: ${JSON.stringify(live)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A bench's rows as the markdown table docs/benchmarks.md takes, with the day and the Node version they were measured on. */
export function measuredTable(header: string[], rows: string[][]): string {
  const lines = [header, header.map((_, i) => (i === 0 ? '---' : '---:')), ...rows].map((r) => `| ${r.join(' | ')} |`);
  return `${lines.join('\n')}\n\nMeasured ${new Date().toISOString().slice(0, 10)}, ${process.version}.`;
}
