import * as fs from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createModelActivities } from '../activities/modelCall';
import { createReaperActivities } from '../activities/reaper';
import { providerFromEnv } from '../activities/providers/select';
import { checkBashSandbox, sandboxConfigFromEnv } from '../activities/tools/bashSandbox';
import { assertCheckoutIsNotWorkerCode } from '../activities/tools/checkoutGuard';
import { checkoutRootFromEnv, createWorkToolActivities } from '../activities/tools';
import { toolSpecsFor } from '../shared/agent/profiles';
import type { ModelProvider } from '../shared/contract/model';
import { parseModelList, type TeamModels } from '../shared/contract/modelNames';
import { connectionOptionsFromEnv } from '../client/connection';
import { assertSearchAttributesRegistered } from './searchAttributeCheck';
import { DEFAULT_TASK_QUEUE, type WorkToolActivities } from '../shared/contract';
import { activityTracingInterceptors, clientTracingInterceptors, workflowSpanSinks, type WorkerTracing } from './tracing';
import { bundleHasFailureConverter, bundleForWorker, bundleHasTracingInterceptors, bundleTeamWorkflows, FAILURE_CONVERTER_PATH } from './workflowBundle';
import { describeInterval, ensureReaperSchedule, REAPER_INTERVAL_ENV, reaperScheduleId, type ReaperOptions } from './reaper';
import { errorMessage } from '../shared/util/errors';
import { workflowCacheFromEnv } from './workflowCache';

export interface TeamWorkerOptions {
  /** Worker connection; default: from TEMPORAL_ADDRESS and friends. */
  connection?: NativeConnection;
  /** Address for the activities' client connection; default: from the environment. */
  address?: string;
  taskQueue?: string;
  /** A prebuilt bundle (tests bundle once); otherwise `workflowsPath` is bundled at start. */
  workflowBundlePath?: string;
  /** The workflows module to bundle (the benchmark's adds its baselines); default: workflows/ (or AGENT_TEAMS_WORKFLOW_BUNDLE). */
  workflowsPath?: string;
  /** Activities registered beside the project's own (the benchmark's baseline activity). */
  extraActivities?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** The model every agent turn calls; default: from MODEL_PROVIDER / MODEL_BASE_URL (the scripted model when unset). */
  modelProvider?: ModelProvider;
  /**
   * The only models this worker calls (a call naming another fails, not retried, ModelNotAllowed);
   * default: AGENT_TEAMS_MODELS, the same list the CLI records in the Teams it starts. Unset: any.
   */
  models?: TeamModels;
  /** The checkout the work tools act on (never this package: CheckoutIsWorkerCode); default: AGENT_TEAMS_CHECKOUT or the current directory. */
  checkoutRoot?: string;
  /** Tracing installed for this process (worker/telemetry.ts); without it workflow spans are dropped. */
  tracing?: WorkerTracing | null;
  /**
   * The orphan reaper (worker/reaper.ts): with an interval, the worker ensures the task queue's
   * reaper Schedule at start. Default false: this worker leaves the Schedule alone (an existing one
   * still runs; its passes run on any worker of the queue). `npm run worker` reads
   * AGENT_TEAMS_REAPER_INTERVAL (default 60 s).
   */
  reaper?: ReaperOptions | false;
  extra?: Partial<WorkerOptions>;
}

export interface TeamWorker {
  worker: Worker;
  /** The model its agents call, for the start-up line (providerFromEnv's description: no API key, URL credentials redacted). */
  model: string;
  /** The orphan reaper's Schedule this worker ensured, for the start-up line; null when it leaves it alone. */
  reaper: string | null;
  /** Closes the connections this factory opened (call after the worker stopped). */
  close: () => Promise<void>;
}

/** Builds the project's worker: the Lead and teammate workflows plus their activities. */
export async function createTeamWorker(options: TeamWorkerOptions = {}): Promise<TeamWorker> {
  const checkoutRoot = options.checkoutRoot ?? checkoutRootFromEnv();
  // Before any connection: a worker whose members could edit its own code must not start at all.
  assertCheckoutIsNotWorkerCode(checkoutRoot);
  const envOptions = connectionOptionsFromEnv();
  const clientOptions = options.address ? { ...envOptions, address: options.address } : envOptions;
  const ownNative = options.connection ? null : await NativeConnection.connect(clientOptions);
  const connection = options.connection ?? ownNative!;
  const clientConnection = await Connection.connect(clientOptions);
  const namespace = envOptions.namespace ?? 'default';
  const client = new Client({ connection: clientConnection, namespace, ...(options.tracing ? { interceptors: clientTracingInterceptors() } : {}) });
  try {
    await assertSearchAttributesRegistered(client, namespace);
  } catch (error) {
    await clientConnection.close();
    await ownNative?.close();
    throw error;
  }
  // Logs once why bash would answer SandboxUnavailable, or that AGENT_TEAMS_BASH_SANDBOX=none runs it unsandboxed.
  await checkBashSandbox(sandboxConfigFromEnv(), checkoutRoot);
  const bundlePath = options.workflowBundlePath ?? (options.workflowsPath ? undefined : process.env.AGENT_TEAMS_WORKFLOW_BUNDLE);
  // Runs begun on a bundle with the interceptors replay only on bundles with them, tracing on or off.
  const bundleCode = bundlePath ? fs.readFileSync(bundlePath, 'utf8') : null;
  if (bundleCode !== null && (!bundleHasTracingInterceptors(bundleCode) || !bundleHasFailureConverter(bundleCode))) {
    throw new Error(
      `the workflow bundle ${bundlePath} lacks the project's workflow interceptors or failure converter: ` +
        'build it with bundleTeamWorkflows (worker/workflowBundle.ts)',
    );
  }
  const models = 'models' in options ? options.models : parseModelList(process.env.AGENT_TEAMS_MODELS);
  const model = options.modelProvider ? { provider: options.modelProvider, description: 'the model provider given to createTeamWorker' } : providerFromEnv();
  const taskQueue = options.taskQueue ?? process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  // Before the worker exists, so a refusal leaves nothing to shut down.
  let reaper: string | null = null;
  if (options.reaper) {
    try {
      const outcome = await ensureReaperSchedule(client, { taskQueue, intervalMs: options.reaper.intervalMs });
      reaper = `orphan reaper every ${describeInterval(options.reaper.intervalMs)} (Schedule ${reaperScheduleId(taskQueue)}, ${outcome})`;
    } catch (error) {
      await clientConnection.close();
      await ownNative?.close();
      throw new Error(
        `the orphan reaper's Schedule ${reaperScheduleId(taskQueue)} could not be ensured (${errorMessage(error)}); ` +
          `allow this worker to manage Schedules, or set ${REAPER_INTERVAL_ENV}=off and run the reaper elsewhere`,
        { cause: error },
      );
    }
  }
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    // Made here when there is no prebuilt one, the same way (logging through the worker's logger, JSON lines included);
    // either way with this worker's tracing ahead of it.
    workflowBundle: {
      code: bundleForWorker(
        bundleCode ??
          (await bundleTeamWorkflows({ workflowsPath: options.workflowsPath ?? require.resolve('../workflows'), logger: Runtime.instance().logger })).code,
        Boolean(options.tracing),
      ),
    },
    // Activities' failures; the bundle carries the same converter (checked above for a prebuilt one).
    dataConverter: { failureConverterPath: FAILURE_CONVERTER_PATH },
    // The bundle carries the workflow interceptors (worker/workflowBundle.ts).
    interceptors: options.tracing ? { activity: activityTracingInterceptors() } : {},
    activities: {
      ...createActivities({ client }),
      ...createModelActivities({ provider: model.provider, toolsFor: toolSpecsFor, ...(models ? { allowed: models } : {}) }),
      ...(createWorkToolActivities({ root: checkoutRoot }) satisfies WorkToolActivities),
      ...createReaperActivities({ client }),
      ...options.extraActivities,
    },
    // Registered with tracing off too: a run begun traced goes on making spans wherever it runs (workflows/interceptors.ts).
    sinks: workflowSpanSinks(options.tracing),
    ...workflowCacheFromEnv(process.env),
    ...options.extra,
  });
  return {
    worker,
    model: `${model.description}${models ? `; only the models of AGENT_TEAMS_MODELS: ${models.allowed.join(', ')}` : ''}`,
    reaper,
    close: async () => {
      await clientConnection.close();
      await ownNative?.close();
    },
  };
}
