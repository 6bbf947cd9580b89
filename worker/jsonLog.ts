/**
 * The worker's JSON log line (AGENT_TEAMS_LOG_FORMAT=json): one object per line, `time` (ISO 8601, UTC), `level`,
 * `message`, then the entry's metadata. Never throws: errors become {name, message, stack}, bigints strings,
 * repeated or circular objects "[Circular]"; a metadata key that would shadow time/level/message is kept as `meta.<key>`.
 */
import type { LogEntry } from '@temporalio/worker';

const OWN_FIELDS = new Set(['time', 'level', 'message']);

export function formatJsonLogLine(entry: LogEntry): string {
  const line: Record<string, unknown> = {
    time: new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString(),
    level: entry.level,
    message: entry.message,
  };
  for (const [key, value] of Object.entries(entry.meta ?? {})) line[OWN_FIELDS.has(key) ? `meta.${key}` : key] = value;
  return JSON.stringify(line, jsonSafe());
}

function jsonSafe(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error)
      return { name: value.name, message: value.message, stack: value.stack, ...(value.cause === undefined ? {} : { cause: value.cause }) };
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}
