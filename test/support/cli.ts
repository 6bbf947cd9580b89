/** Runs the project CLI as a separate process against the test server, as a person would. */
import { execFile, spawn } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { address } from './temporal';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Killed by `killAfterMs`: the CLI did not end by itself. */
  killed: boolean;
  ms: number;
}

/** Runs the CLI as a separate process (`env` over this one's); with `killAfterMs`, one that has not ended by then is killed. */
export async function cliWith(options: { killAfterMs?: number; env?: Record<string, string> }, ...args: string[]): Promise<CliResult> {
  const started = Date.now();
  try {
    const { stdout, stderr } = await run(process.execPath, ['-r', 'ts-node/register/transpile-only', 'cli/index.ts', '--address', address(), ...args], {
      cwd: ROOT,
      ...(options.env !== undefined ? { env: { ...process.env, ...options.env } } : {}),
      ...(options.killAfterMs !== undefined ? { timeout: options.killAfterMs, killSignal: 'SIGKILL' as const } : {}),
    });
    return { code: 0, stdout, stderr, killed: false, ms: Date.now() - started };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? '',
      killed: e.killed === true,
      ms: Date.now() - started,
    };
  }
}

export function cli(...args: string[]): Promise<CliResult> {
  return cliWith({}, ...args);
}

/** The CLI running in the background, its output so far readable while it runs (`watch`, say). */
export function cliInBackground(...args: string[]): { stdout(): string; stderr(): string; exited: Promise<number> } {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'cli/index.ts', '--address', address(), ...args], { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  return { stdout: () => stdout, stderr: () => stderr, exited };
}
