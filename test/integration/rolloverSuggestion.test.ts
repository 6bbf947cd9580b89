/**
 * The rollover suggestion as a replay sees it (workflows/common/rolloverSuggestion.ts), on a dev
 * server of its own whose history-size limit for suggesting continue-as-new is low. A Lead's history
 * crosses the limit in one completion, so the next workflow task is the first whose started event
 * suggests continue-as-new, and that task carries only an Update its validator rejects. The server
 * drops such a task from history. A Lead that began rolling over there (the code before
 * rollover-suggestion-traced-v1 did) made a history that no replay reproduces. It must roll over at
 * the next task that leaves a trace instead, and its history must replay.
 */
import type { Client } from '@temporalio/client';
import { TeamClient } from '../../client/teamClient';
import { startDevServer, type DevServer } from '../../scripts/devServer';
import { SUGGEST_EARLY_DYNAMIC_CONFIG, runSuggestedRollover } from '../../scripts/suggestedRollover';
import { replayRecorded } from '../support/replay';
import { eventKind, uniqueId, workerAndClientOn } from '../support/temporal';

let server: DevServer;
let client: Client;
let closeAll: () => Promise<void>;
const taskQueue = uniqueId('suggest');

beforeAll(async () => {
  server = await startDevServer({ uiPort: false, dynamicConfig: SUGGEST_EARLY_DYNAMIC_CONFIG });
  const own = await workerAndClientOn(server.address, taskQueue);
  client = own.client;
  closeAll = async () => {
    await own.close();
    await server.stop();
  };
}, 120_000);
afterAll(async () => closeAll());

test('a suggestion first seen in a task of rejected Updates only starts no rollover there; the next traced task does, and the run replays', async () => {
  const team = await TeamClient.start(client, { teamId: uniqueId('team'), taskQueue });
  const outcome = await runSuggestedRollover(client, team);
  expect(outcome.rejection.type).toBe('TaskRevisionConflict');
  // Queries answer from the same run: it did not begin to roll over in a task that left no trace.
  expect(outcome.runIdAfterRejection).toBe(outcome.runId);
  expect(outcome.tasksAfterRejection).toBe(outcome.created);
  // The accepted Update's task did, and the continued run carries every task.
  expect(outcome.tasksContinued).toBe(outcome.created + 1);
  expect((await client.workflow.getHandle(team.teamId).describe()).status.name).toBe('RUNNING');

  const events = (await client.workflow.getHandle(team.teamId, outcome.runId).fetchHistory()).events ?? [];
  expect(events.map(eventKind).at(-1)).toBe('workflowExecutionContinuedAsNewEventAttributes');
  const started = events.filter((e) => e.workflowTaskStartedEventAttributes).map((e) => Boolean(e.workflowTaskStartedEventAttributes!.suggestContinueAsNew));
  // Only the last task of the run, the one with the accepted Update, carries the suggestion in history.
  expect(started.at(-1)).toBe(true);
  expect(started.slice(0, -1)).not.toContain(true);
  await replayRecorded(client, team.teamId, outcome.runId);
}, 180_000);
