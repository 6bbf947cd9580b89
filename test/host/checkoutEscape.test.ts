/**
 * Issue 20, played as the attacker: one member's bash (under real bubblewrap) swaps a checkout
 * directory with a symlink out of the checkout in a tight loop while another member's file tools
 * read and write through that directory. Before the descriptor walk (beneath.ts), the write landed
 * outside and the outside secret was read back within 27-234 ms; each attempt here races 10 s.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorkToolActivities } from '../../activities/tools';
import { WORK_TOOL_LIMITS } from '../../shared/agent/workTools';
import { giveToBash } from '../support/bashUser';

const RACE_MS = 10_000;
const OUTSIDE_SECRET = 'OUTSIDE-SECRET-7d1f';
/** What a refused or raced call may say; anything else (or success through the symlink) is a failure. */
const RACE_ERRORS = new Set(['PathOutsideCheckout', 'FileNotFound', 'NotADirectory', 'StaleVersion']);

let scratch: string;
let root: string;
let outside: string;
let runWorkTool: ReturnType<typeof createWorkToolActivities>['runWorkTool'];

beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-escape-'));
  root = path.join(scratch, 'checkout');
  outside = path.join(scratch, 'outside');
  fs.mkdirSync(path.join(root, 'd'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  fs.writeFileSync(path.join(root, 'd', 'secret.txt'), 'inside\n');
  fs.symlinkSync(outside, path.join(root, 'l'));
  giveToBash(root, scratch);
  ({ runWorkTool } = createWorkToolActivities({ root }));
});

afterEach(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function call(tool: string, args: unknown) {
  const outcome = await runWorkTool({ tool, argumentsJson: JSON.stringify(args), cwd: '.' });
  return { ok: outcome.ok, text: outcome.text, result: JSON.parse(outcome.text) as Record<string, unknown> };
}

/** renameat2(AT_FDCWD, "d", AT_FDCWD, "l", RENAME_EXCHANGE) in a loop, for `seconds` (x86_64 syscall 316). */
function swapLoop(seconds: number): string {
  return `perl -e 'my ($from, $to, $end) = ("d", "l", time + ${seconds}); while (time < $end) { syscall(316, -100, $from, -100, $to, 2) }'`;
}

test(`a directory swapped for a symlink out of the checkout, ${RACE_MS / 1000} s of racing: nothing is read or written outside`, async () => {
  const attacker = call('bash', { command: swapLoop(RACE_MS / 1000), timeoutMs: RACE_MS + 20_000 });
  const started = Date.now();
  const seen = { readInside: 0, wroteInside: 0, refused: 0 };
  let index = 0;
  while (Date.now() - started < RACE_MS) {
    index++;
    const [read, write] = await Promise.all([
      call('read_file', { path: 'd/secret.txt' }),
      call('write_file', { path: `d/escaped-${index}.txt`, content: 'planted\n', version: null }),
    ]);
    expect(read.text).not.toContain(OUTSIDE_SECRET);
    for (const outcome of [read, write]) {
      if (outcome.ok) continue;
      expect(RACE_ERRORS).toContain(outcome.result.error);
      seen.refused++;
    }
    if (read.ok) seen.readInside++;
    if (write.ok) seen.wroteInside++;
  }
  const swap = await attacker;
  expect([swap.ok, swap.result.exitCode]).toEqual([true, 0]);
  expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
  // The race really ran both ways: calls went through the real directory and were refused at the symlink.
  expect(seen.readInside + seen.wroteInside).toBeGreaterThan(0);
  expect(seen.refused).toBeGreaterThan(0);
}, 60_000);

test('a FIFO in the checkout is refused at once, never waited on', async () => {
  const { execFileSync } = await import('node:child_process');
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  const read = await call('read_file', { path: 'pipe' });
  expect([read.ok, read.result.error]).toEqual([false, 'PermissionDenied']);
  expect(read.result.message).toMatch(/not a regular file/);
}, 10_000);

test('edit_file refuses an edit whose result is over the bound before building it', async () => {
  // 5 MiB of 'a' with each replaced by 100 bytes would be a 524 MB string.
  const size = 5 * 1024 * 1024;
  fs.writeFileSync(path.join(root, 'big.txt'), 'a'.repeat(size));
  const read = await call('read_file', { path: 'big.txt', limit: 1 });
  const before = process.memoryUsage().rss;
  const edit = await call('edit_file', { path: 'big.txt', version: read.result.version, oldText: 'a', newText: 'b'.repeat(100), replaceAll: true });
  const grown = process.memoryUsage().rss - before;
  expect([edit.ok, edit.result.error]).toEqual([false, 'FileTooLarge']);
  expect(edit.result.message).toContain(`${size * 100} bytes`);
  expect(size * 100).toBeGreaterThan(WORK_TOOL_LIMITS.maxFileBytes);
  // The checked result would be 500 MB; far less than that was allocated to refuse it.
  expect(grown).toBeLessThan(100 * 1024 * 1024);
  expect(fs.statSync(path.join(root, 'big.txt')).size).toBe(size);
}, 30_000);
