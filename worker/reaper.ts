/**
 * The orphan reaper's Schedule (issue 22): `agent-teams-reaper/<taskQueue>` starts the reaper
 * workflow (REAPER_WORKFLOW_TYPE) on that queue every interval, overlap SKIP, so one pass runs at
 * a time per queue however many workers ensure it. Each worker of the queue ensures it at start:
 * created when missing, updated when its interval or action differ, and a concurrent create by
 * another worker is taken as done. An orphan is asked to cancel by the first pass after its Lead
 * closed (within one interval, plus the visibility store's lag) and terminated by the next one if
 * it still runs: about two intervals in all.
 *
 * `npm run worker` reads AGENT_TEAMS_REAPER_INTERVAL (default 60s; `off`: this worker leaves the
 * Schedule alone). createTeamWorker's programmatic default is off (tests opt in).
 */
import { z } from 'zod';
import { type Client, ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import { REAPER_WORKFLOW_TYPE } from '../shared/contract';
import type { ReapOrphansInput } from '../shared/reaper/orphans';

export const REAPER_INTERVAL_ENV = 'AGENT_TEAMS_REAPER_INTERVAL';
export const DEFAULT_REAPER_INTERVAL_MS = 60_000;
export const MIN_REAPER_INTERVAL_MS = 1_000;
export const MAX_REAPER_INTERVAL_MS = 24 * 60 * 60_000;
/** A pass that runs longer than this is ended by the server, and the next interval starts a new one. */
const REAPER_RUN_TIMEOUT_MS = 45 * 60_000;

export interface ReaperOptions {
  /** Whole seconds, 1 s to 24 h (Schedules count in seconds). */
  intervalMs: number;
}

/** AGENT_TEAMS_REAPER_INTERVAL is malformed; the message names the variable and what it accepts. */
export class ReaperConfigInvalid extends Error {
  override readonly name = 'ReaperConfigInvalid';
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000 };

const intervalSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(
    z.union([
      z.enum(['off']).transform(() => null),
      z
        .string()
        .regex(/^\d{1,6}[smh]$/)
        .transform((text) => Number(text.slice(0, -1)) * (UNIT_MS[text.slice(-1)] ?? 0))
        .pipe(z.number().int().min(MIN_REAPER_INTERVAL_MS).max(MAX_REAPER_INTERVAL_MS)),
    ]),
  );

/**
 * The reaper setting a worker process runs with: unset or empty means the default (60 s); `off`
 * disables it; otherwise a whole number of seconds, minutes or hours (`30s`, `5m`, `1h`), 1 s to 24 h.
 */
export function reaperFromEnv(env: NodeJS.ProcessEnv = process.env): ReaperOptions | false {
  const raw = env[REAPER_INTERVAL_ENV];
  if (raw === undefined || raw.trim() === '') return { intervalMs: DEFAULT_REAPER_INTERVAL_MS };
  const parsed = intervalSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ReaperConfigInvalid(
      `${REAPER_INTERVAL_ENV}=${JSON.stringify(raw)} is not an interval: set a whole number of seconds, minutes or hours ` +
        `from 1s to 24h (e.g. 60s, 5m, 1h), or off to leave the orphan reaper's Schedule alone`,
    );
  }
  return parsed.data === null ? false : { intervalMs: parsed.data };
}

/** The Schedule of a task queue's reaper. Schedule ids take any characters; the queue's own name keeps queues apart. */
export function reaperScheduleId(taskQueue: string): string {
  return `agent-teams-reaper/${taskQueue}`;
}

/** `60 s`, `5 min`: for the start-up line. */
export function describeInterval(intervalMs: number): string {
  return intervalMs % 60_000 === 0 ? `${intervalMs / 60_000} min` : `${intervalMs / 1_000} s`;
}

function checkedInterval(intervalMs: number): number {
  const rounded = Math.round(intervalMs / 1_000) * 1_000;
  if (!Number.isFinite(rounded) || rounded < MIN_REAPER_INTERVAL_MS || rounded > MAX_REAPER_INTERVAL_MS) {
    throw new ReaperConfigInvalid(`the orphan reaper's interval must be 1 s to 24 h, got ${intervalMs} ms`);
  }
  return rounded;
}

function scheduleBody(taskQueue: string, intervalMs: number) {
  const input: ReapOrphansInput = { taskQueue };
  return {
    spec: { intervals: [{ every: intervalMs }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: REAPER_WORKFLOW_TYPE,
      // The server appends each action's time to this id.
      workflowId: reaperScheduleId(taskQueue),
      taskQueue,
      args: [input],
      workflowRunTimeout: REAPER_RUN_TIMEOUT_MS,
      staticSummary: `orphan reaper: one pass over task queue ${taskQueue}`,
    },
    policies: {
      overlap: ScheduleOverlapPolicy.SKIP,
      // Passes missed while the server was down are not made up one by one: the next one covers them.
      catchupWindow: Math.max(10_000, intervalMs),
    },
  };
}

/** Whether an existing Schedule already does what this worker would set. */
function isCurrent(description: ScheduleDescription, taskQueue: string, intervalMs: number): boolean {
  const intervals = description.spec.intervals ?? [];
  const action = description.action;
  const args = action.args as unknown[] | undefined;
  return (
    intervals.length === 1 &&
    intervals[0]?.every === intervalMs &&
    (description.spec.calendars ?? []).length === 0 &&
    action.workflowType === REAPER_WORKFLOW_TYPE &&
    action.taskQueue === taskQueue &&
    (args?.[0] as ReapOrphansInput | undefined)?.taskQueue === taskQueue &&
    description.policies.overlap === ScheduleOverlapPolicy.SKIP
  );
}

export type EnsureOutcome = 'created' | 'updated' | 'unchanged';

/**
 * Creates the task queue's reaper Schedule, or brings an existing one to this interval and action.
 * A create that loses the race to another worker's is followed by the same check as an existing one.
 */
export async function ensureReaperSchedule(client: Client, options: { taskQueue: string; intervalMs: number }): Promise<EnsureOutcome> {
  const { taskQueue } = options;
  const intervalMs = checkedInterval(options.intervalMs);
  const scheduleId = reaperScheduleId(taskQueue);
  const body = scheduleBody(taskQueue, intervalMs);
  const handle = client.schedule.getHandle(scheduleId);
  let existing: ScheduleDescription | null;
  try {
    existing = await handle.describe();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
    existing = null;
  }
  if (existing === null) {
    try {
      await client.schedule.create({ scheduleId, ...body });
      return 'created';
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      existing = await handle.describe();
    }
  }
  if (isCurrent(existing, taskQueue, intervalMs)) return 'unchanged';
  await handle.update((previous) => ({ ...body, state: { paused: previous.state.paused, note: previous.state.note } }));
  return 'updated';
}
