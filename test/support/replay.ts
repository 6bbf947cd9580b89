/** Replays a workflow's recorded history against the current workflow code, as a restarted worker would. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { workflowSpanSinks } from '../../worker/tracing';
import { PRELOADED_MODULES, WORKFLOW_INTERCEPTOR_MODULES } from '../../worker/workflowBundle';

/**
 * Throws the replay's error when the code does not reproduce the history. A replay that fails leaves
 * the history in the temp directory, in the CLI's JSON form that test/host/replay.test.ts reads.
 */
export async function replayRecorded(client: Client, workflowId: string, runId: string): Promise<void> {
  const recorded = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  // A member's workflow id holds slashes (team/teammate/name): one file name all the same.
  const kept = path.join(os.tmpdir(), `replay-${workflowId.replaceAll('/', '_')}-${runId}.json`);
  fs.writeFileSync(kept, historyToJSON(recorded));
  await Worker.runReplayHistory(
    {
      workflowsPath: require.resolve('../../workflows'),
      bundlerOptions: { ignoreModules: [], preloadModules: [...PRELOADED_MODULES] },
      interceptors: { workflowModules: [...WORKFLOW_INTERCEPTOR_MODULES] },
      sinks: workflowSpanSinks(null),
    },
    recorded,
    workflowId,
  );
  fs.rmSync(kept);
}
