/**
 * `npm run bench:profile` (issue 28: "profile one Lead activation for a mutation and for a query"): where the worker's CPU
 * goes while one Lead serves sequential editTask Updates, and then getTask queries.
 *
 * The compiled worker (as `npm run worker:compiled` runs it, with the prebuilt bundle) in its own process under
 * `node --cpu-prof`, one phase per worker run, on a fresh dev server; the profile is written when the worker stops. Its
 * samples are attributed by self time: workflow code by the bundle module its line falls in (the bundle is the file
 * the profile names), everything else by package or by V8's own categories (GC, idle, program). The table gives each
 * one's CPU per operation, so the phases compare across runs and machines; BENCH_PROFILE_OPS sets the count.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { TeamClient } from '../client/teamClient';
import { startDevServer } from '../scripts/devServer';
import { spawnWorkerProcess } from '../test/support/workerProcess';

const ROOT = path.resolve(__dirname, '..');
const BUNDLE = path.join(ROOT, 'dist/workflow-bundle.js');
const OPS = Number(process.env.BENCH_PROFILE_OPS ?? 1000);
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

/** The first line of each module in the bundle (webpack's development format marks each with its path). */
function bundleModules(): { line: number; name: string }[] {
  const lines = fs.readFileSync(BUNDLE, 'utf8').split('\n');
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

/** Self time (ms) per attribution, over every thread's profile. */
function selfTimes(profiles: CpuProfile[]): Map<string, number> {
  const modules = bundleModules();
  const totals = new Map<string, number>();
  for (const profile of profiles) {
    const byNode = new Map(profile.nodes.map((node) => [node.id, attribution(node.callFrame, modules)]));
    profile.samples.forEach((id, index) => {
      const key = byNode.get(id) ?? '(unknown)';
      totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
    });
  }
  return totals;
}

/** Runs `phase` against a worker under --cpu-prof and returns its profile once the worker has stopped. */
async function profiled(address: string, phase: (client: Client, taskQueue: string) => Promise<void>): Promise<CpuProfile[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-profile-'));
  const taskQueue = `bench-profile-${Date.now()}`;
  const worker = await spawnWorkerProcess(taskQueue, {
    address,
    command: {
      node: process.execPath,
      args: ['--cpu-prof', `--cpu-prof-dir=${dir}`, path.join(ROOT, 'dist/worker/main.js')],
      env: { ...process.env, AGENT_TEAMS_WORKFLOW_BUNDLE: BUNDLE, AGENT_TEAMS_LOG_FORMAT: 'json' },
    },
  });
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
  return profiles;
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

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  console.log('bench:profile: building the compiled worker (npm run build)…');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const server = await startDevServer({ uiPort: false });
  try {
    const phases: [string, CpuProfile[]][] = [];
    console.log(`  profile: ${OPS} sequential editTask Updates…`);
    phases.push([
      'editTask',
      await profiled(
        server.address,
        onOneTask(async (team, taskId) => {
          let revision = (await team.task(taskId))?.revision ?? 0;
          for (let i = 0; i < OPS; i++) revision = (await team.editTask({ taskId, expectedRevision: revision, description: `d${i}` })).task.revision;
        }),
      ),
    ]);
    console.log(`  profile: ${OPS} sequential getTask queries…`);
    phases.push([
      'getTask',
      await profiled(
        server.address,
        onOneTask(async (team, taskId) => {
          for (let i = 0; i < OPS; i++) await team.task(taskId);
        }),
      ),
    ]);
    for (const [name, profiles] of phases) {
      const totals = [...selfTimes(profiles)].filter(([key]) => key !== '(idle)').sort((a, b) => b[1] - a[1]);
      const busy = totals.reduce((sum, [, ms]) => sum + ms, 0);
      console.log(`\n${name}: worker CPU ${(busy / OPS).toFixed(3)} ms per operation (whole run, start and disposal included)\n`);
      console.log('| Self time in | ms per op | share |\n| --- | ---: | ---: |');
      for (const [key, ms] of totals.slice(0, TOP)) console.log(`| ${key} | ${(ms / OPS).toFixed(3)} | ${((100 * ms) / busy).toFixed(1)}% |`);
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
