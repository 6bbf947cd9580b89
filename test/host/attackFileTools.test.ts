/**
 * Issue 52, played as the attacker: the worker runs as root and the file tools act on a checkout a
 * hostile member also writes through bash. Whatever the member puts there (a file it grows while it
 * is read, symlink chains, FIFOs and sockets, trees too deep, names too long or carrying terminal
 * escapes), every call ends typed, holds a bounded number of descriptors and bytes, never waits,
 * and says nothing of the host's (no absolute path, no /proc/self/fd, no raw control character).
 * Each test fails on the code before (docs/security.md, "The worker's own resources are bounded per call").
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createWorkToolActivities } from '../../activities/tools';
import { WORK_TOOL_ERRORS, WORK_TOOL_LIMITS as LIMITS } from '../../shared/agent/workTools';
import { giveToBash, runningAsRoot } from '../support/bashUser';

const TYPED = new Set<string>(Object.values(WORK_TOOL_ERRORS));
const MB = 1024 * 1024;
/** Raw control characters a terminal or the model must never get: C0, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** OSC 52 (write the clipboard), CSI 2J (clear the screen), the 8-bit CSI, and a right-to-left override. */
const ESCAPES = '\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u009b2J\u202e';

let scratch: string;
let root: string;
let rootReal: string;
let runWorkTool: ReturnType<typeof createWorkToolActivities>['runWorkTool'];

beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'attack-file-tools-'));
  root = path.join(scratch, 'checkout');
  fs.mkdirSync(path.join(root, 'd'), { recursive: true });
  giveToBash(root, scratch);
  rootReal = fs.realpathSync(root);
  ({ runWorkTool } = createWorkToolActivities({ root }));
});

afterEach(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

interface Called {
  ok: boolean;
  text: string;
  cwd: string;
  result: Record<string, unknown>;
}

/** One call, which must come back (never throw), as compact JSON saying nothing of the host's. */
async function call(tool: string, args: unknown, cwd = '.'): Promise<Called> {
  const outcome = await runWorkTool({ tool, argumentsJson: JSON.stringify(args), cwd });
  const result = JSON.parse(outcome.text) as Record<string, unknown>;
  if (!outcome.ok) {
    expect(TYPED).toContain(result.error);
    const message = String(result.message);
    expect(message).not.toMatch(RAW_CONTROLS);
    expect(outcome.text).not.toMatch(RAW_CONTROLS);
    for (const hostPath of [root, rootReal, scratch, '/proc/self/fd']) expect(message).not.toContain(hostPath);
  }
  return { ...outcome, result };
}

const openDescriptors = () => fs.readdirSync('/proc/self/fd').length;

/** The most descriptors one call may hold: the root and a directory per level, and the file. */
const DESCRIPTOR_BOUND = LIMITS.pathMaxDepth + 2;

/**
 * Runs `body` while counting this process's open descriptors between its steps; the most seen
 * above the count before (counting stops once past the bound: listing 20,000 is slow).
 */
async function peakDescriptors<T>(body: () => Promise<T>): Promise<{ value: T; peak: number }> {
  const before = openDescriptors();
  let peak = 0;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      if (peak <= DESCRIPTOR_BOUND) peak = Math.max(peak, openDescriptors() - before);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  try {
    return { value: await body(), peak };
  } finally {
    done = true;
    await sampler;
  }
}

test('a file another member grows and shrinks while read_file reads it: memory stays bounded, every call is ok or FileTooLarge', async () => {
  const file = path.join(root, 'grows.txt');
  fs.writeFileSync(file, 'small\n');
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 1);
  const seen = new Map<string, number>();
  const read = async () => {
    const outcome = await call('read_file', { path: 'grows.txt', limit: 1 });
    const kind = outcome.ok ? 'ok' : String(outcome.result.error);
    seen.set(kind, (seen.get(kind) ?? 0) + 1);
    peak = Math.max(peak, process.memoryUsage().rss);
  };
  await read();
  const before = process.memoryUsage().rss;
  peak = before;
  // Another member, from its bash: the file flips between 6 bytes and 300 MB (sparse: no disk), as fast as it can.
  const writer = spawn(
    'perl',
    ['-e', 'open(my $f, "+<", $ARGV[0]) or die; my $end = time + 30; while (time < $end) { truncate($f, 6); truncate($f, 300 * 1024 * 1024); }', file],
    { stdio: 'ignore' },
  );
  let writerStopped = false;
  const stopWriter = () => {
    if (writerStopped || writer.pid === undefined) return;
    writerStopped = true;
    process.kill(writer.pid, 'SIGKILL');
  };
  // The same member winning the race outright: the file grows to 300 MB right after the tool's
  // fstat on its descriptor said it was small (the instant the code before read it again, whole).
  const probe = await fs.promises.open(file, 'r');
  const handlePrototype = Object.getPrototypeOf(probe) as { stat: (...args: unknown[]) => Promise<fs.Stats> };
  await probe.close();
  const stat = handlePrototype.stat;
  let growAfterStat = false;
  handlePrototype.stat = async function (this: unknown, ...args: unknown[]) {
    const result = await stat.apply(this, args);
    if (growAfterStat && result.isFile() && result.size <= LIMITS.maxFileBytes) fs.truncateSync(file, 300 * MB);
    return result;
  };
  try {
    for (let i = 0; i < 40; i++) await read();
    stopWriter();
    growAfterStat = true;
    for (let i = 0; i < 5; i++) {
      fs.truncateSync(file, 6);
      await read();
    }
  } finally {
    handlePrototype.stat = stat;
    clearInterval(sampler);
    stopWriter();
  }
  expect([...seen.keys()].filter((kind) => kind !== 'ok' && kind !== 'FileTooLarge')).toEqual([]);
  expect(seen.get('FileTooLarge') ?? 0).toBeGreaterThanOrEqual(5);
  expect(peak - before).toBeLessThan(100 * MB);
}, 60_000);

test('40 symlinks of 800 `d/..` each: PathTooComplex, as a path and as the member directory, with the descriptors held bounded', async () => {
  // l0 -> d/../d/../…/l1, …, l39 -> d/../…/d: 64,000 components, each `d` an open descriptor on the code before.
  for (let i = 0; i < 40; i++) fs.symlinkSync(`${'d/../'.repeat(800)}${i === 39 ? 'd' : `l${i + 1}`}`, path.join(root, `l${i}`));
  for (const [tool, args, cwd] of [
    ['read_file', { path: 'l0' }, '.'],
    ['read_file', { path: 'l0/x.txt' }, '.'],
    ['write_file', { path: 'l0/x.txt', content: 'x', version: null }, '.'],
    ['read_file', { path: 'x.txt' }, 'l0'],
    ['bash', { command: 'touch ran' }, 'l0'],
  ] as const) {
    const { value: outcome, peak } = await peakDescriptors(() => call(tool, args, cwd));
    expect([tool, cwd, outcome.ok, outcome.result.error]).toEqual([tool, cwd, false, 'PathTooComplex']);
    if (cwd !== '.') expect(outcome.cwd).toBe('.');
    expect(peak).toBeLessThanOrEqual(DESCRIPTOR_BOUND);
  }
  expect(fs.existsSync(path.join(root, 'd', 'x.txt'))).toBe(false);
  expect(fs.existsSync(path.join(root, 'd', 'ran'))).toBe(false);
}, 60_000);

test('FIFOs, sockets and device nodes where files are expected: typed refusals, never opened, never waited on', async () => {
  fs.mkdirSync(path.join(root, 'special'));
  const fifo = path.join(root, 'special', 'pipe');
  const { execFileSync } = await import('node:child_process');
  execFileSync('mkfifo', [fifo]);
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(path.join(root, 'special', 'sock'), resolve));
  const names = ['pipe', 'sock'];
  if (runningAsRoot()) {
    execFileSync('mknod', [path.join(root, 'special', 'null'), 'c', '1', '3']);
    names.push('null');
  }
  fs.symlinkSync('special/pipe', path.join(root, 'to-pipe'));
  const { constants } = fs;
  /** Whether the FIFO has a reader now: a writer's non-blocking open fails with ENXIO exactly when none has it open. */
  const fifoHasReader = () => {
    try {
      fs.closeSync(fs.openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
      return false;
    }
  };
  /** The call, while the FIFO is watched between its steps: a reader seen means the tool opened (or waits on) it. */
  const watched = async (run: () => Promise<Called>) => {
    let settled = false;
    let readerSeen = false;
    const running = run().finally(() => {
      settled = true;
    });
    while (!settled) {
      readerSeen ||= fifoHasReader();
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { outcome: await running, readerSeen };
  };
  try {
    const attempts: Array<[string, Record<string, unknown>, string]> = [['read_file', { path: 'to-pipe' }, '.']];
    for (const name of names) {
      attempts.push(
        ['read_file', { path: `special/${name}` }, '.'],
        ['write_file', { path: `special/${name}`, content: 'x', version: null }, '.'],
        ['edit_file', { path: `special/${name}`, version: `sha256:${'0'.repeat(64)}`, oldText: 'a', newText: 'b' }, '.'],
        ['read_file', { path: `special/${name}/x` }, '.'],
        ['read_file', { path: 'x' }, `special/${name}`],
      );
    }
    for (const [tool, args, cwd] of attempts) {
      const { outcome, readerSeen } = await watched(() => call(tool, args, cwd));
      expect([tool, args, cwd, outcome.ok, readerSeen]).toEqual([tool, args, cwd, false, false]);
      expect(['PermissionDenied', 'NotADirectory']).toContain(outcome.result.error);
      expect(fifoHasReader()).toBe(false);
    }
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}, 30_000);

test('trees deeper than the bound, names longer than a name can be, paths of too many components: PathTooComplex, descriptors bounded', async () => {
  const deep = (levels: number) => Array.from({ length: levels }, () => 'n').join('/');
  fs.mkdirSync(path.join(root, deep(LIMITS.pathMaxDepth + 20)), { recursive: true });
  fs.writeFileSync(path.join(root, deep(LIMITS.pathMaxDepth), 'f.txt'), 'at the bound\n');
  fs.writeFileSync(path.join(root, deep(LIMITS.pathMaxDepth + 1), 'f.txt'), 'past the bound\n');
  const atBound = await peakDescriptors(() => call('read_file', { path: `${deep(LIMITS.pathMaxDepth)}/f.txt` }));
  expect(atBound.value.result).toMatchObject({ content: 'at the bound\n' });
  expect(atBound.peak).toBeLessThanOrEqual(DESCRIPTOR_BOUND);
  const past = await peakDescriptors(() => call('read_file', { path: `${deep(LIMITS.pathMaxDepth + 1)}/f.txt` }));
  expect([past.value.ok, past.value.result.error]).toEqual([false, 'PathTooComplex']);
  expect(past.peak).toBeLessThanOrEqual(DESCRIPTOR_BOUND);
  // Created directories stop at the bound too.
  const write = await call('write_file', { path: `${Array.from({ length: 300 }, () => 'w').join('/')}/f.txt`, content: 'x', version: null });
  expect([write.ok, write.result.error]).toEqual([false, 'PathTooComplex']);
  expect(fs.existsSync(path.join(root, Array.from({ length: LIMITS.pathMaxDepth + 1 }, () => 'w').join('/')))).toBe(false);

  const long = 'a'.repeat(LIMITS.nameMaxBytes + 1);
  fs.symlinkSync('b'.repeat(LIMITS.nameMaxBytes + 1), path.join(root, 'to-long'));
  fs.symlinkSync(`${'./'.repeat(2000)}d`, path.join(root, 'dots'));
  fs.writeFileSync(path.join(root, 'd', 'here.txt'), 'here\n');
  for (const args of [
    { path: long },
    { path: `${long}/x` },
    { path: 'to-long' },
    { path: 'to-long/x' },
    { path: `${'d/'.repeat(LIMITS.pathMaxComponents)}x` },
    { path: 'x'.repeat(200_000) },
  ]) {
    const outcome = await call('read_file', args);
    expect([outcome.ok, outcome.result.error]).toEqual([false, 'PathTooComplex']);
    expect(String(outcome.result.message).length).toBeLessThan(1000);
  }
  const write2 = await call('write_file', { path: `d/${long}`, content: 'x', version: null });
  expect([write2.ok, write2.result.error]).toEqual([false, 'PathTooComplex']);
  // `.` components cost nothing: a symlink of 2,000 of them still resolves.
  expect((await call('read_file', { path: 'dots/here.txt' })).result).toMatchObject({ content: 'here\n' });
}, 60_000);

test('names carrying terminal escapes: every message escapes them and names no host path; nothing escapes the activity', async () => {
  const loop = `loop${ESCAPES}`;
  fs.symlinkSync(loop, path.join(root, loop)); // a symlink to itself: ELOOP for the kernel
  fs.writeFileSync(path.join(root, `file${ESCAPES}`), 'a file\n');
  fs.symlinkSync(`file${ESCAPES}/y`, path.join(root, 'through-file'));
  fs.symlinkSync(`missing${ESCAPES}/y`, path.join(root, 'through-missing'));
  fs.symlinkSync(path.join(scratch, `outside${ESCAPES}`), path.join(root, 'out'));
  const attempts: Array<[string, unknown, string]> = [
    ['read_file', { path: `${loop}/f` }, '.'],
    ['read_file', { path: loop }, '.'],
    ['write_file', { path: `${loop}/f`, content: 'x', version: null }, '.'],
    ['read_file', { path: 'f' }, loop],
    ['bash', { command: 'true' }, loop],
    ['read_file', { path: 'through-file' }, '.'],
    ['read_file', { path: 'through-missing' }, '.'],
    ['read_file', { path: `missing${ESCAPES}` }, '.'],
    ['read_file', { path: `../x${ESCAPES}` }, '.'],
    ['read_file', { path: 'x' }, `../x${ESCAPES}`],
    ['read_file', { path: 'out/x' }, '.'],
    ['write_file', { path: `.git/hooks/pre-commit${ESCAPES}`, content: 'x', version: null }, '.'],
    ['edit_file', { path: `file${ESCAPES}`, version: `sha256:${'0'.repeat(64)}`, oldText: 'a', newText: 'b' }, '.'],
    [`tool${ESCAPES}`, {}, '.'],
  ];
  for (const [tool, args, cwd] of attempts) {
    const outcome = await call(tool, args, cwd); // rejects on a raw error; checks every failure's text
    expect([tool, args, cwd, outcome.ok]).toEqual([tool, args, cwd, false]);
  }
  // The escapes read as escapes: the model can still tell which name it was.
  const refused = await call('read_file', { path: 'through-file' });
  expect(refused.result).toMatchObject({ error: 'NotADirectory' });
  expect(String(refused.result.message)).toContain('\\u001b]52;c;cHduZWQ=\\u0007');
  expect((await call('read_file', { path: `${loop}/f` })).result.error).toBe('PathTooComplex');
  expect(fs.readdirSync(scratch).sort()).toEqual(['checkout']);
}, 30_000);

test('symlinks at every component: followed up to the bound, PathTooComplex past it, descriptors bounded', async () => {
  // s0 -> c0, c0/s1 -> ../c1, …: every component of s0/s1/…/sN is a symlink, relative or absolute.
  const chain = LIMITS.pathMaxSymlinks + 1;
  for (let i = 0; i < chain; i++) {
    fs.mkdirSync(path.join(root, `c${i}`));
    const at = i === 0 ? root : path.join(root, `c${i - 1}`);
    fs.symlinkSync(i % 2 === 0 ? (i === 0 ? `c${i}` : `../c${i}`) : path.join(root, `c${i}`), path.join(at, `s${i}`));
    fs.writeFileSync(path.join(root, `c${i}`, 'f.txt'), `c${i}\n`);
  }
  const through = (count: number) => `${Array.from({ length: count }, (_, i) => `s${i}`).join('/')}/f.txt`;
  const within = await peakDescriptors(() => call('read_file', { path: through(LIMITS.pathMaxSymlinks) }));
  expect(within.value.result).toMatchObject({ path: through(LIMITS.pathMaxSymlinks), content: `c${LIMITS.pathMaxSymlinks - 1}\n` });
  expect(within.peak).toBeLessThanOrEqual(DESCRIPTOR_BOUND);
  const past = await peakDescriptors(() => call('read_file', { path: through(chain) }));
  expect([past.value.ok, past.value.result.error]).toEqual([false, 'PathTooComplex']);
  expect(past.peak).toBeLessThanOrEqual(DESCRIPTOR_BOUND);
  const write = await call('write_file', { path: through(chain), content: 'x', version: null });
  expect([write.ok, write.result.error]).toEqual([false, 'PathTooComplex']);
  // The same as the member's directory.
  const cwd = through(chain).replace(/\/f\.txt$/, '');
  const asCwd = await call('read_file', { path: 'f.txt' }, cwd);
  expect([asCwd.ok, asCwd.result.error, asCwd.cwd]).toEqual([false, 'PathTooComplex', '.']);
  expect((await call('read_file', { path: 'f.txt' }, through(3).replace(/\/f\.txt$/, ''))).result).toMatchObject({ content: 'c2\n' });
}, 30_000);
