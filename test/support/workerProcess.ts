/** Runs the project's worker (worker/main.ts) as a separate OS process, for crash drills. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { address, tempCheckout } from './temporal';

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything the process printed so far, per stream. */
  output(): { stdout: string; stderr: string };
  /** SIGKILL: no graceful shutdown, in-flight tasks are simply lost by this process. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

const ROOT = path.resolve(__dirname, '../..');

export interface WorkerProcessOptions {
  /** The server (default: the test suite's, TEMPORAL_ADDRESS). */
  address?: string;
  /** The checkout its work tools act on (default: a fresh temp dir per process). */
  checkoutRoot?: string;
  /** Variables set for this process beside the connection's (telemetry settings, for instance). */
  env?: Record<string, string>;
  /**
   * What to run instead of `node -r ts-node/register worker/main.ts` under this Node: e.g. the
   * compiled worker (`dist/worker/main.js`) under another Node binary. `env` replaces the test
   * process's environment as the base (TEMPORAL_* and the checkout are still set on top).
   */
  command?: { node: string; args: string[]; env: NodeJS.ProcessEnv };
}

export async function spawnWorkerProcess(taskQueue: string, options: WorkerProcessOptions = {}): Promise<WorkerProcess> {
  const node = options.command?.node ?? process.execPath;
  const args = options.command?.args ?? ['-r', 'ts-node/register/transpile-only', path.join(ROOT, 'worker/main.ts')];
  const child = spawn(node, args, {
    cwd: ROOT,
    env: {
      ...(options.command?.env ?? process.env),
      TEMPORAL_ADDRESS: options.address ?? address(),
      TEMPORAL_TASK_QUEUE: taskQueue,
      AGENT_TEAMS_CHECKOUT: options.checkoutRoot ?? tempCheckout(),
      // `npm run worker` runs the orphan reaper by default; a test opts in (env), so no Schedule outlives a file unasked.
      AGENT_TEAMS_REAPER_INTERVAL: 'off',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const streams = { stdout: '', stderr: '' };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker process did not start polling within 60s:\n${output}`)), 60_000);
    const onData = (stream: keyof typeof streams) => (chunk: Buffer) => {
      output += chunk.toString();
      streams[stream] += chunk.toString();
      if (output.includes('worker polling')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData('stdout'));
    child.stderr?.on('data', onData('stderr'));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited with ${code} before polling:\n${output}`));
    });
  });
  const waitExit = (signal: NodeJS.Signals): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  return { child, output: () => ({ ...streams }), kill: () => waitExit('SIGKILL'), stop: () => waitExit('SIGTERM') };
}
