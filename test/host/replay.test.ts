/**
 * Determinism guard: every recorded history in test/histories/ (see `npm run record-histories`)
 * must replay against the current workflow code without a non-determinism error. No server needed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { workflowSpanSinks } from '../../worker/tracing';
import { PRELOADED_MODULES, WORKFLOW_INTERCEPTOR_MODULES } from '../../worker/workflowBundle';

const DIR = path.join(__dirname, '..', 'histories');
/** The workflow id each history ran under: replay must use it (ids derived from it, e.g. operation ids, are part of the workflow's logic). */
const WORKFLOW_IDS = JSON.parse(fs.readFileSync(path.join(DIR, 'workflow-ids.json'), 'utf8')) as Record<string, string>;
// A history of megabytes (a full board's reads) is kept gzipped.
const files = fs.readdirSync(DIR).filter((f) => (f.endsWith('.json') || f.endsWith('.json.gz')) && f !== 'workflow-ids.json');
const readHistory = (file: string): string => {
  const bytes = fs.readFileSync(path.join(DIR, file));
  return (file.endsWith('.gz') ? zlib.gunzipSync(bytes) : bytes).toString('utf8');
};

beforeAll(() => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed already
  }
});

test('there are recorded histories to replay', () => {
  expect(files.length).toBeGreaterThan(0);
});

test('every recorded history replays against the current workflow code', async () => {
  for (const file of files) expect({ file, workflowId: WORKFLOW_IDS[file] }).toEqual({ file, workflowId: expect.any(String) });
  const histories = files.map((file) => ({
    workflowId: WORKFLOW_IDS[file]!,
    history: historyFromJSON(JSON.parse(readHistory(file))),
  }));
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories(
    {
      workflowsPath: require.resolve('../../workflows'),
      // As the workers bundle: zod preloaded and shared (worker/workflowBundle.ts).
      bundlerOptions: { ignoreModules: [], preloadModules: [...PRELOADED_MODULES] },
      // The bundle the workers run: histories begun with the tracing patch replay through the OpenTelemetry interceptors.
      interceptors: { workflowModules: [...WORKFLOW_INTERCEPTOR_MODULES] },
      sinks: workflowSpanSinks(null),
    },
    histories,
  )) {
    replayed += 1;
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(files.length);
}, 300_000); // 67 s alone on 2 cores; more beside other suites (the host project runs files in parallel)
