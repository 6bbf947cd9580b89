/**
 * The work tools as a worker runs them, end to end (runWorkTool: the member's directory, the git
 * protection, the sandbox, the sweep): a read_file, a write_file and a `bash true` in a git checkout
 * with a configured hooks directory. No baseline of its own: it is run at two commits side by side
 * to price a change to the tools (issue 52: before and after the pinned descriptors), rounds
 * alternating between checkouts by the caller. `npx ts-node bench/toolCalls.ts` prints one line of
 * medians (ms per call).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorkToolActivities } from '../activities/tools';

const CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 40);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tool-calls-'));
  fs.chmodSync(scratch, 0o755);
  const root = path.join(scratch, 'checkout');
  fs.mkdirSync(path.join(root, 'tools', 'hooks'), { recursive: true });
  fs.mkdirSync(path.join(root, 'src'));
  execFileSync('git', ['init', '-q', root]);
  execFileSync('git', ['-C', root, 'config', 'core.hooksPath', 'tools/hooks']);
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', '65534:65534', root]);
  const { runWorkTool } = createWorkToolActivities({ root, heartbeat: () => undefined });
  const call = async (tool: string, args: unknown) => {
    const started = performance.now();
    const outcome = await runWorkTool({ tool, argumentsJson: JSON.stringify(args), cwd: '.' });
    if (!outcome.ok) throw new Error(outcome.text);
    return performance.now() - started;
  };
  try {
    await call('bash', { command: 'true' }); // the sandbox probe
    const times = { read: [] as number[], write: [] as number[], bash: [] as number[] };
    for (let index = 0; index < CALLS; index++) {
      times.write.push(await call('write_file', { path: `src/f${index}.txt`, content: 'x'.repeat(4096), version: null }));
      times.read.push(await call('read_file', { path: `src/f${index}.txt` }));
      times.bash.push(await call('bash', { command: 'true' }));
    }
    console.log(`read_file ${median(times.read).toFixed(3)} write_file ${median(times.write).toFixed(3)} bash ${median(times.bash).toFixed(2)}`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
