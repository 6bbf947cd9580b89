/**
 * Observability of the worker process: Prometheus metrics scraped from a live worker while a Team runs, JSON logs on
 * every line it prints, and OpenTelemetry spans exported over OTLP/HTTP for workflows and activities.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { answer, script, scriptText, send, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import type { LeadAgentView } from '../../shared/contract';
import { freePort } from '../../scripts/devServer';
import { useClientAndWorkerProcesses } from '../support/harness';
import { countOn, parseExposition, scrape } from '../support/prometheus';
import { recordedModelUsage } from '../support/recordedUsage';
import { teammateWorkflowId } from '../../shared/team';
import { eventually } from '../support/teams';
import { uniqueId } from '../support/temporal';
import { replayRecorded } from '../support/replay';
import { TRACING_PATCH } from '../../shared/contract/patches';

const env = useClientAndWorkerProcesses();

/** A Lead that plans one task and spawns one teammate who completes it and reports back; the Lead then answers. */
async function startTeamRun(client: Client, taskQueue: string): Promise<TeamClient> {
  const teamId = uniqueId('team-obs');
  const aliceScript = script(
    tool('claim_task', { taskId: 1, expectedRevision: 1 }),
    tool('set_task_status', { taskId: 1, expectedRevision: 2, status: 'completed' }),
    send('lead', script(answer('done'))),
  );
  const agent: defs.LeadAgentOptions = {
    profile: 'team',
    prompt: scriptText(tool('create_task', { subject: 'observe me' }), tool('spawn_teammate', { name: 'alice', message: aliceScript })),
  };
  await client.workflow.start(defs.TEAM_LEAD_WORKFLOW_TYPE, { workflowId: teamId, taskQueue, args: [{ teamId, agent }] });
  return TeamClient.attach(client, teamId);
}

const answered = (team: TeamClient): Promise<LeadAgentView> =>
  eventually(
    () => team.handle().query(defs.getAgentStateQuery),
    (v) => v.status === 'answered',
    120_000,
  );

test('a worker process serves Prometheus workflow and activity task metrics by task queue while a Team runs, and prints only JSON log lines', async () => {
  const taskQueue = uniqueId('tq-metrics');
  const port = await freePort();
  const worker = await env.spawnWorker(taskQueue, { env: { AGENT_TEAMS_METRICS_BIND: `127.0.0.1:${port}`, AGENT_TEAMS_LOG_FORMAT: 'json' } });
  const team = await startTeamRun(env.client, taskQueue);
  await answered(team);

  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  const samples = parseExposition(await response.text());
  // Scraped during the run: the Lead still runs (it waits for prompts until disposed).
  expect((await team.handle().describe()).status.name).toBe('RUNNING');
  for (const workflowType of ['teamLead', 'teammate']) {
    const tasks = countOn(samples, 'temporal_workflow_task_execution_latency_count', { task_queue: taskQueue, workflow_type: workflowType });
    expect({ workflowType, executedTasks: tasks > 0 }).toEqual({ workflowType, executedTasks: true });
  }
  // The Lead's model calls (plan, then the answer after alice's report) and alice's calls and Team tools ran as activities.
  expect(
    countOn(samples, 'temporal_activity_execution_latency_count', { task_queue: taskQueue, activity_type: 'callModel', workflow_type: 'teamLead' }),
  ).toBeGreaterThanOrEqual(2);
  expect(
    countOn(samples, 'temporal_activity_execution_latency_count', { task_queue: taskQueue, activity_type: 'runTeamTool', workflow_type: 'teammate' }),
  ).toBeGreaterThan(0);
  expect(countOn(samples, 'temporal_workflow_task_queue_poll_succeed', { task_queue: taskQueue })).toBeGreaterThan(0);

  // Usage counters: each recorded model call once (equal to the histories' completed callModel
  // activities), its tokens by kind, labelled by role, provider and model, never by Team.
  const recorded = {
    lead: await recordedModelUsage(env.client, team.teamId),
    teammate: await recordedModelUsage(env.client, teammateWorkflowId(team.teamId, 'alice')),
  };
  const usageSamples = await eventually(
    () => scrape(port),
    (all) => (['lead', 'teammate'] as const).every((role) => countOn(all, 'agent_teams_model_calls', { taskQueue, role }) === recorded[role].calls),
  );
  for (const role of ['lead', 'teammate'] as const) {
    expect(recorded[role].calls).toBeGreaterThan(0);
    for (const [kind, field] of [
      ['input', 'inputTokens'],
      ['output', 'outputTokens'],
    ] as const) {
      expect([role, kind, countOn(usageSamples, 'agent_teams_model_tokens', { taskQueue, role, kind })]).toEqual([role, kind, recorded[role][field]]);
    }
  }
  const usageSeries = usageSamples.filter((s) => s.name.startsWith('agent_teams_model_'));
  expect(usageSeries.length).toBeGreaterThan(0);
  for (const sample of usageSeries) {
    expect(sample.labels).toMatchObject({ provider: 'default', model: 'default' });
    expect(Object.values(sample.labels).some((value) => value.includes(team.teamId))).toBe(false);
  }
  expect(countOn(samples, 'temporal_activity_task_received', { task_queue: taskQueue })).toBeGreaterThan(0);

  await team.dispose();
  await worker.stop();
  const { stdout, stderr } = worker.output();
  const lines = [...stdout.split('\n'), ...stderr.split('\n')].filter((line) => line !== '');
  const entries = lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return { notJson: line };
    }
  });
  for (const entry of entries)
    expect(entry).toEqual(expect.objectContaining({ time: expect.any(String), level: expect.any(String), message: expect.any(String) }));
  // The worker's own line, the sandbox check (console) and the SDK's logs all came through the JSON logger.
  expect(entries).toContainEqual(expect.objectContaining({ level: 'INFO', message: expect.stringContaining('worker polling'), taskQueue }));
  expect(entries).toContainEqual(expect.objectContaining({ message: expect.stringContaining('bash sandbox') }));
  expect(entries).toContainEqual(expect.objectContaining({ message: 'Worker state changed', sdkComponent: 'worker', taskQueue, state: 'STOPPED' }));
});

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/** A stand-in OpenTelemetry collector: accepts OTLP/HTTP JSON trace exports on /v1/traces and keeps their spans. */
async function startTraceCollector(): Promise<{ endpoint: string; spans: ExportedSpan[]; services: Set<string>; close: () => Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const services = new Set<string>();
  interface Export {
    resourceSpans?: { resource?: { attributes?: { key: string; value: { stringValue?: string } }[] }; scopeSpans?: { spans?: ExportedSpan[] }[] }[];
  }
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        for (const resourceSpans of (JSON.parse(body) as Export).resourceSpans ?? []) {
          for (const attribute of resourceSpans.resource?.attributes ?? [])
            if (attribute.key === 'service.name') services.add(attribute.value.stringValue ?? '');
          for (const scope of resourceSpans.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, spans, services, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('with an OTLP endpoint set, the worker exports workflow and activity spans over OTLP/HTTP in one trace from the Lead down', async () => {
  const collector = await startTraceCollector();
  try {
    const taskQueue = uniqueId('tq-tracing');
    const worker = await env.spawnWorker(taskQueue, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' } });
    const team = await startTeamRun(env.client, taskQueue);
    await answered(team);
    await team.dispose();
    await worker.stop(); // flushes what the batch processor still holds

    const names = new Set(collector.spans.map((s) => s.name));
    for (const name of [
      'RunWorkflow:teamLead',
      'RunWorkflow:teammate',
      'StartChildWorkflow:teammate',
      'StartActivity:callModel',
      'RunActivity:callModel',
      'RunActivity:runTeamTool',
    ]) {
      expect({ name, exported: names.has(name) }).toEqual({ name, exported: true });
    }
    const byId = new Map(collector.spans.map((s) => [s.spanId, s]));
    const runs = collector.spans.filter((s) => s.name === 'RunActivity:callModel');
    for (const run of runs) expect(byId.get(run.parentSpanId ?? '')).toMatchObject({ name: 'StartActivity:callModel', traceId: run.traceId });
    // The teammate's run continues the Lead's trace through the child workflow start.
    const teammateRun = collector.spans.find((s) => s.name === 'RunWorkflow:teammate')!;
    expect(byId.get(teammateRun.parentSpanId ?? '')).toMatchObject({ name: 'StartChildWorkflow:teammate', traceId: teammateRun.traceId });
    expect([...collector.services]).toEqual(['agent-teams-worker']);
  } finally {
    await collector.close();
  }
});

/** The patch ids a workflow's history recorded, in order. */
async function recordedPatches(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const data = event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [String((JSON.parse(Buffer.from(data).toString('utf8')) as { id: unknown }).id)] : [];
  });
}

async function failedWorkflowTasks(client: Client, workflowId: string): Promise<number> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowTaskFailedEventAttributes).length;
}

/** Spans only the workflow interceptors make (the activity and client interceptors name theirs otherwise). */
const WORKFLOW_SPAN = /^(RunWorkflow|HandleUpdate|HandleSignal|HandleQuery|StartActivity|StartChildWorkflow):/;

test('a run is traced as the worker that began it says, and goes on as it began on a worker that says otherwise', async () => {
  const collector = await startTraceCollector();
  const tracingEnv = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' };
  try {
    // Begun on a worker that does not trace: no marker, and on a tracing worker it replays as it ran and makes no spans.
    const plainFirst = uniqueId('tq-plain-first');
    let worker = await env.spawnWorker(plainFirst);
    const untraced = await startTeamRun(env.client, plainFirst);
    await answered(untraced);
    await worker.stop();
    const untracedPatches = await recordedPatches(env.client, untraced.teamId);
    expect(untracedPatches.length).toBeGreaterThan(0); // the Lead's other patches: the markers are read
    expect(untracedPatches).not.toContain(TRACING_PATCH);
    worker = await env.spawnWorker(plainFirst, { env: tracingEnv });
    await untraced.createTask({ subject: 'after the move to a tracing worker' });
    await untraced.dispose();
    await worker.stop();
    expect(collector.spans.filter((span) => WORKFLOW_SPAN.test(span.name)).map((span) => span.name)).toEqual([]);

    // Begun on a tracing worker: the marker, spans, and on a worker that does not trace it replays as it ran.
    const tracedFirst = uniqueId('tq-traced-first');
    worker = await env.spawnWorker(tracedFirst, { env: tracingEnv });
    const traced = await startTeamRun(env.client, tracedFirst);
    await answered(traced);
    await worker.stop();
    expect(await recordedPatches(env.client, traced.teamId)).toContain(TRACING_PATCH);
    expect(collector.spans.some((span) => span.name === 'StartActivity:callModel')).toBe(true); // the Lead's run span ends only with the run
    worker = await env.spawnWorker(tracedFirst);
    await traced.createTask({ subject: 'after the move to a worker that does not trace' });
    await traced.dispose();
    await worker.stop();

    for (const team of [untraced, traced]) {
      for (const workflowId of [team.teamId, teammateWorkflowId(team.teamId, 'alice')]) {
        expect({ workflowId, failedWorkflowTasks: await failedWorkflowTasks(env.client, workflowId) }).toEqual({ workflowId, failedWorkflowTasks: 0 });
        const { runId } = await env.client.workflow.getHandle(workflowId).describe();
        await replayRecorded(env.client, workflowId, runId);
      }
    }
  } finally {
    await collector.close();
  }
});
