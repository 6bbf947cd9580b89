/**
 * `npm run bench:profile` (issue 28: "profile one Lead activation for a mutation and for a query"): where the worker's CPU
 * goes while one Lead serves sequential editTask Updates, and then getTask queries, beside the floor's bare workflows
 * doing the same (bench/floorBaselines.ts, in a worker of their own: bench/floorWorker.ts).
 *
 * Each side's worker runs in its own process under `node --cpu-prof` (the Team's compiled, as `npm run worker:compiled`
 * runs it, with the prebuilt bundle), one phase per worker run, on a fresh dev server; the profile is written when the
 * worker stops. Its samples are attributed by self time: workflow code by the bundle module its line falls in (the
 * bundle is the file the profile names), everything else by package or by V8's own categories (GC, idle, program). Each
 * phase runs twice, with BENCH_PROFILE_OPS operations and with twice as many, and the table gives the difference per
 * operation, side by side with the floor's: what one more operation costs, with each worker's start left out.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { TeamClient } from '../client/teamClient';
import { startDevServer } from '../scripts/devServer';
import { spawnWorkerProcess } from '../test/support/workerProcess';
import { casUpdate, finishSignal, readCasQuery } from './floorBaselines';

const ROOT = path.resolve(__dirname, '..');
const BUNDLE = path.join(ROOT, 'dist/workflow-bundle.js');
const OPS = Number(process.env.BENCH_PROFILE_OPS ?? 1000);
/** BENCH_PROFILE_BY=function: attribute to each function (with its place) instead of its module or package. */
const BY_FUNCTION = process.env.BENCH_PROFILE_BY === 'function';
/** BENCH_PROFILE_ONLY: run only the comparisons whose name contains it (e.g. `editTask`). */
const ONLY = process.env.BENCH_PROFILE_ONLY ?? '';
const TOP = 18;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The first line of each module in a bundle (webpack's development format marks each with its path). */
function bundleModules(bundle: string): { line: number; name: string }[] {
  const lines = fs.readFileSync(bundle, 'utf8').split('\n');
  const starts: { line: number; name: string }[] = [];
  lines.forEach((text, index) => {
    const match = /^\/\*\*\*\/ "(\.\/[^"]+)"/.exec(text);
    if (match?.[1]) starts.push({ line: index, name: match[1].replace(/^\.\/(dist\/)?/, '') });
  });
  return starts;
}

/** Where a sample's own time is counted: a bundle module, a package, a file of the worker, or V8's category. */
function attribution(frame: ProfileNode['callFrame'], modules: { line: number; name: string }[]): string {
  // V8's own categories are named in parentheses already: (idle), (program), (garbage collector).
  if (!frame.url) return frame.functionName.startsWith('(') ? frame.functionName : `native: ${frame.functionName || 'anonymous'}`;
  // The worker names the bundle's script after its hash (it is given as code, with the worker's tracing ahead of it).
  if (/workflow-bundle[^/]*\.js$/.test(frame.url)) {
    let found = 'workflow bundle (entry)';
    for (const module of modules) {
      if (module.line > frame.lineNumber) break;
      found = module.name;
    }
    const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(found);
    return `workflow: ${inPackage?.[1] ?? found}`;
  }
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (inPackage?.[1]) return `worker: ${inPackage[1]}`;
  if (frame.url.startsWith('node:')) return 'worker: node internals';
  return `worker: ${path.relative(ROOT, frame.url.replace(/^file:\/\//, ''))}`;
}

/** Self time (ms) per attribution, over every thread's profile of a worker that ran `bundle`. */
function selfTimes({ bundle, profiles }: Profiled): Map<string, number> {
  const modules = bundleModules(bundle);
  const totals = new Map<string, number>();
  for (const profile of profiles) {
    const key = (frame: ProfileNode['callFrame']): string => {
      const place = attribution(frame, modules);
      return BY_FUNCTION && frame.url ? `${place} › ${frame.functionName || 'anonymous'} (line ${frame.lineNumber + 1})` : place;
    };
    const byNode = new Map(profile.nodes.map((node) => [node.id, key(node.callFrame)]));
    profile.samples.forEach((id, index) => {
      const key = byNode.get(id) ?? '(unknown)';
      totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
    });
  }
  return totals;
}

/** A worker's CPU profiles (one per thread) and the workflow bundle it ran. */
interface Profiled {
  bundle: string;
  profiles: CpuProfile[];
}

/** Which worker a phase runs against: the Team's compiled worker, or the floor's bare workflows in a worker of their own. */
type Side = { kind: 'team' } | { kind: 'floor'; bundle: string };

function workerCommand(side: Side, dir: string): { node: string; args: string[]; env: NodeJS.ProcessEnv } {
  const profile = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  if (side.kind === 'team') {
    return {
      node: process.execPath,
      args: [...profile, path.join(ROOT, 'dist/worker/main.js')],
      env: { ...process.env, AGENT_TEAMS_WORKFLOW_BUNDLE: BUNDLE, AGENT_TEAMS_LOG_FORMAT: 'json' },
    };
  }
  return {
    node: process.execPath,
    args: [...profile, '-r', 'ts-node/register/transpile-only', path.join(__dirname, 'floorWorker.ts')],
    env: { ...process.env, BENCH_FLOOR_BUNDLE: side.bundle },
  };
}

/** Runs `phase` against a worker under --cpu-prof and returns its profile once the worker has stopped. */
async function profiled(address: string, side: Side, phase: (client: Client, taskQueue: string) => Promise<void>): Promise<Profiled> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-profile-'));
  const taskQueue = `bench-profile-${Date.now()}`;
  const worker = await spawnWorkerProcess(taskQueue, { address, command: workerCommand(side, dir) });
  const connection = await Connection.connect({ address });
  try {
    await phase(new Client({ connection }), taskQueue);
  } finally {
    await connection.close();
    await worker.stop();
  }
  // One file per thread: the main thread, and the workflow threads where the SDK runs workflows.
  const files = fs.readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`the worker wrote no CPU profile in ${dir}: did it exit by its own shutdown?`);
  const profiles = files.map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile);
  fs.rmSync(dir, { recursive: true, force: true });
  return { bundle: side.kind === 'team' ? BUNDLE : side.bundle, profiles };
}

/** One bare CAS workflow; `measure` runs OPS operations on it, with the profile already running. */
function onOneCasWorkflow(measure: (handle: WorkflowHandle) => Promise<void>) {
  return async (client: Client, taskQueue: string): Promise<void> => {
    const handle = await client.workflow.start('casFloor', { taskQueue, workflowId: `bench-profile-cas-${Date.now()}` });
    await measure(handle);
    await handle.signal(finishSignal);
    await handle.result();
  };
}

/** One Team with one task; `measure` runs OPS operations on it after a warm-up, with the profile already running. */
function onOneTask(measure: (team: TeamClient, taskId: number) => Promise<void>) {
  return async (client: Client, taskQueue: string): Promise<void> => {
    const team = await TeamClient.start(client, { teamId: `bench-profile-${Date.now()}`, taskQueue });
    const { task } = await team.createTask({ subject: 'profiled' });
    await measure(team, task.id);
    await team.dispose();
  };
}

type Phase = (ops: number) => (client: Client, taskQueue: string) => Promise<void>;

/** One operation of the Team and its floor, each as a phase of `ops` operations. */
interface Comparison {
  name: string;
  team: Phase;
  floor: Phase;
}

const COMPARISONS: Comparison[] = [
  {
    name: 'editTask against a bare CAS Update',
    team: (ops) =>
      onOneTask(async (team, taskId) => {
        let revision = (await team.task(taskId))?.revision ?? 0;
        for (let i = 0; i < ops; i++) revision = (await team.editTask({ taskId, expectedRevision: revision, description: `d${i}` })).task.revision;
      }),
    floor: (ops) =>
      onOneCasWorkflow(async (handle) => {
        for (let i = 0; i < ops; i++) await handle.executeUpdate(casUpdate, { args: [{ expectedRevision: i, value: `d${i}` }] });
      }),
  },
  {
    name: 'getTask against a bare query',
    team: (ops) =>
      onOneTask(async (team, taskId) => {
        for (let i = 0; i < ops; i++) await team.task(taskId);
      }),
    floor: (ops) =>
      onOneCasWorkflow(async (handle) => {
        for (let i = 0; i < ops; i++) await handle.query(readCasQuery);
      }),
  },
];

/**
 * CPU per operation by attribution, as a marginal cost: a run of OPS operations and one of 2 × OPS, each on a worker of
 * its own, and the difference divided by OPS. What both runs share (the worker's start, the Team's start and disposal,
 * ts-node compiling the floor's worker) cancels out.
 */
async function perOperation(address: string, side: Side, phase: Phase): Promise<Map<string, number>> {
  const once = selfTimes(await profiled(address, side, phase(OPS)));
  const twice = selfTimes(await profiled(address, side, phase(2 * OPS)));
  const out = new Map<string, number>();
  for (const key of new Set([...once.keys(), ...twice.keys()])) {
    if (key !== '(idle)') out.set(key, ((twice.get(key) ?? 0) - (once.get(key) ?? 0)) / OPS);
  }
  return out;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  console.log('bench:profile: building the compiled worker (npm run build)…');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const server = await startDevServer({ uiPort: false });
  try {
    const floorBundle = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'floor-bundle-')), 'workflow-bundle-floor.js');
    const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./floorBaselines'), logger: new DefaultLogger('ERROR') });
    fs.writeFileSync(floorBundle, code);
    for (const { name, team, floor } of COMPARISONS.filter((comparison) => comparison.name.includes(ONLY))) {
      console.log(`  profile: ${name}, ${OPS} and ${2 * OPS} sequential operations on each side…`);
      const teamCost = await perOperation(server.address, { kind: 'team' }, team);
      const floorCost = await perOperation(server.address, { kind: 'floor', bundle: floorBundle }, floor);
      const sum = (costs: Map<string, number>): number => [...costs.values()].reduce((a, b) => a + b, 0);
      const keys = [...new Set([...teamCost.keys(), ...floorCost.keys()])];
      const difference = (key: string): number => (teamCost.get(key) ?? 0) - (floorCost.get(key) ?? 0);
      keys.sort((a, b) => Math.abs(difference(b)) - Math.abs(difference(a)));
      console.log(`\n${name}: worker CPU per operation (marginal), the Team ${sum(teamCost).toFixed(3)} ms, the floor ${sum(floorCost).toFixed(3)} ms\n`);
      console.log('| Self time in (largest differences first) | Team (ms per op) | floor (ms per op) | difference |\n| --- | ---: | ---: | ---: |');
      for (const key of keys.slice(0, TOP)) {
        console.log(`| ${key} | ${(teamCost.get(key) ?? 0).toFixed(3)} | ${(floorCost.get(key) ?? 0).toFixed(3)} | ${difference(key).toFixed(3)} |`);
      }
    }
    console.log(`\nMeasured ${new Date().toISOString().slice(0, 10)}, ${process.version}.`);
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
